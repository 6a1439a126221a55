package pe.quipu.api.accounts;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import org.jdbi.v3.core.Jdbi;
import pe.quipu.api.auth.BearerAuthenticator;
import pe.quipu.api.http.HttpEdge;
import pe.quipu.api.http.JsonBody;
import pe.quipu.api.keys.ApiKeyAuthenticator;
import pe.quipu.api.keys.ApiKeySecret;
import pe.quipu.api.platform.Periodic;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.platform.Platform;
import pe.quipu.api.domain.Text;

import java.time.Clock;
import java.time.Duration;

/**
 * The accounts feature assembled: sessions (signup, login, refresh, logout, JWKS) and their access tokens, the
 * token denylist every instance keeps in memory, how bearer credentials are authenticated (an API key, or else an
 * access token), the account holder's profile with its deletion, and the daily cleanups: ended sessions, and
 * accounts deleted 30 days ago (also the {@code purge-deleted} task). {@code grant-admin} is the operator's.
 */
public final class Accounts {

    private Accounts() {
    }

    public static void serve(Platform platform, Environment environment, AuthSettings auth, boolean production,
                             ApiKeyAuthenticator apiKeys, AccountLimitsCache limits) {
        Jdbi jdbi = platform.jdbi();
        Clock clock = platform.clock();
        ObjectMapper json = platform.json();
        TokenDenylist denylist = new TokenDenylist(jdbi, clock);
        platform.notifications().on(TokenDenylist.CHANNEL, denylist::onNotification, denylist::reload);
        platform.manage(denylist);
        environment.metrics().registerGauge(MetricRegistry.name(TokenDenylist.class, "rows-read"), denylist::rowsRead);
        environment.metrics().registerGauge(MetricRegistry.name(TokenDenylist.class, "entries"), denylist::size);
        Duration accessLifetime = auth.getAccessTokenLifetime().toJavaDuration();
        Duration refreshLifetime = auth.getRefreshTokenLifetime().toJavaDuration();
        AccessTokens accessTokens = new AccessTokens(
                SigningKey.load(auth.getSigningKeyFile(), auth.getDevelopmentSigningKeyFile(), production),
                auth.getIssuer(), accessLifetime, clock, denylist);
        AccountDeletion deletion = new AccountDeletion(jdbi, clock, platform.audit(), denylist, apiKeys::forget);
        HttpEdge.authenticate(environment, new BearerAuthenticator(
                credentials -> credentials.startsWith(ApiKeySecret.PREFIX), apiKeys::authenticate,
                accessTokens::verify), deletion::deletedAt);

        JsonBody bodies = new JsonBody(json);
        LoginThrottleSettings throttle = auth.getLoginThrottle();
        AccountService accounts = new AccountService(jdbi, clock, new PasswordHasher(), accessTokens, platform.audit(),
                refreshLifetime, accessLifetime, throttle.throttle(clock),
                throttle.getUsualAddressWindow().toJavaDuration(), denylist,
                auth.getSignupThrottle().throttle(Text.of("accounts.throttle.signups"), clock));
        environment.jersey().register(new AuthResource(accounts, bodies, refreshLifetime));
        environment.jersey().register(new JwksResource(accessTokens));
        // Expired refresh tokens, ended sessions and expired denylist rows are deleted daily.
        SessionCleanup sessionCleanup = new SessionCleanup(jdbi, clock);
        platform.manage(Periodic.every("quipu-session-cleanup", SessionCleanup.FIRST_DELAY, SessionCleanup.EVERY,
                sessionCleanup::runAndLog));
        new GrantAdminTask(jdbi, platform.audit(), json).addTo(environment.admin());

        // The profile (a changed alert threshold evicts the account's limits everywhere) and its deletion.
        environment.jersey().register(new MeResource(new Profiles(jdbi, platform.audit(), limits,
                auth.getEmailChangeThrottle().throttle(Text.of("accounts.throttle.email_changes"), clock)), deletion, bodies));
        // Accounts deleted 30 days ago or more are purged daily (and by the purge-deleted task).
        AccountPurge purge = new AccountPurge(jdbi, clock);
        platform.manage(Periodic.every("quipu-account-purge", AccountPurge.FIRST_DELAY, AccountPurge.EVERY,
                purge::purgeAndLog));
        new PurgeDeletedTask(purge, json).addTo(environment.admin());
    }
}
