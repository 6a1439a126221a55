package pe.quipu.api.testing;

import com.fasterxml.jackson.databind.JsonNode;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.keys.ApiKeySecret;
import pe.quipu.api.keys.KeyIssuer;
import pe.quipu.core.events.EventOutbox;
import pe.quipu.core.testing.TestDatabase;

import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Fresh accounts for a test, each its own, so that tests never share one: keys issued straight into the database (as
 * the operator's create-key does), and sessions opened over HTTP (signup, then login).
 */
public final class TestAccounts {

    /** The monthly quota and per-minute rate of {@link #newKey}'s accounts: more than any test uses. */
    public static final long UNBOUNDED_QUOTA = 1_000_000_000_000L;
    public static final int UNBOUNDED_RPM = 1_000_000_000;

    private final QuipuClient client;
    private final TestDatabase database;
    private final Clock clock;

    TestAccounts(QuipuClient client, TestDatabase database, Clock clock) {
        this.client = client;
        this.database = database;
        this.clock = clock;
    }

    /**
     * A fresh account with a key carrying these scopes; returns the key's secret. The account is on the enterprise
     * plan (batch cap 500) with a quota and rate no test reaches, so that tests of other things can make any number
     * of requests; metering tests use {@link #newKeyOnPlan}.
     */
    public String newKey(Scope... scopes) {
        return newKey("enterprise", UNBOUNDED_QUOTA, UNBOUNDED_RPM, scopes);
    }

    /** A fresh account on this plan, with the plan's own numbers, and a key with these scopes. */
    public String newKeyOnPlan(String plan, Scope... scopes) {
        return newKey(plan, null, null, scopes);
    }

    /** A fresh account on the free plan (contract §2: 1,000 units a month, 60 requests a minute, batches of 10). */
    public String newFreeKey(Scope... scopes) {
        return newKeyOnPlan("free", scopes);
    }

    /**
     * A fresh account on this plan with these overrides of its numbers (null: the plan's), as the operator's
     * set-plan task sets them, and a key with these scopes.
     */
    public String newKey(String plan, Long monthlyQuota, Integer rateLimitRpm, Scope... scopes) {
        return database.jdbi().inTransaction(h -> {
            KeyIssuer issuer = issuer();
            UUID account = issuer.accountFor(h, "test-" + UUID.randomUUID() + "@quipu.test");
            String secret = issuer.issue(h, account, "test", scopeSet(scopes)).secret().reveal();
            h.createUpdate("""
                            update subscriptions set plan = :plan, monthly_quota = :quota, rate_limit_rpm = :rpm
                             where account_id = :account and ended_at is null""")
                    .bind("plan", plan)
                    .bindByType("quota", monthlyQuota, Long.class)
                    .bindByType("rpm", rateLimitRpm, Integer.class)
                    .bind("account", account)
                    .execute();
            return secret;
        });
    }

    /** Issues one more key, with these scopes, to an existing account (e.g. a session's). */
    public String issueKey(UUID accountId, Scope... scopes) {
        return database.jdbi().inTransaction(h ->
                issuer().issue(h, accountId, "test", scopeSet(scopes)).secret().reveal());
    }

    /** The account a key belongs to. */
    public UUID accountOf(String key) {
        return database.jdbi().withHandle(h -> h.createQuery("select account_id from api_keys where key_hash = :hash")
                .bind("hash", ApiKeySecret.hashOf(key))
                .mapTo(UUID.class)
                .findOne()
                .orElseThrow(() -> new IllegalArgumentException("no such key")));
    }

    /** An account made through the API, logged in: its credentials and its first session's tokens. */
    public record Session(UUID accountId, String email, String password, String accessToken, String refreshToken) {
    }

    /** Signs a fresh account up and logs it in, over HTTP. */
    public Session newSession() {
        String email = "user-" + UUID.randomUUID() + "@quipu.test";
        String password = "correct horse battery staple";
        HttpResponse<String> signup = client.post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"" + email + "\",\"password\":\"" + password + "\",\"nombre\":\"Test User\"}");
        if (signup.statusCode() != 201) {
            throw new IllegalStateException("signup answered " + signup.statusCode() + ": " + signup.body());
        }
        UUID accountId = UUID.fromString(client.body(signup).get("id").asText());
        HttpResponse<String> login = login(email, password);
        if (login.statusCode() != 200) {
            throw new IllegalStateException("login answered " + login.statusCode() + ": " + login.body());
        }
        JsonNode tokens = client.body(login);
        return new Session(accountId, email, password, tokens.get("accessToken").asText(),
                tokens.get("refreshToken").asText());
    }

    /** A login over HTTP, from this client (127.0.0.1). */
    public HttpResponse<String> login(String email, String password) {
        return client.post("/v1/auth/login", null, "application/json",
                "{\"email\":\"" + email + "\",\"password\":\"" + password + "\"}");
    }

    /** A refresh over HTTP. */
    public HttpResponse<String> refresh(String refreshToken) {
        return client.post("/v1/auth/refresh", null, "application/json",
                "{\"refreshToken\":\"" + refreshToken + "\"}");
    }

    private KeyIssuer issuer() {
        return new KeyIssuer(clock, new EventOutbox(clock, client.json));
    }

    private static Set<Scope> scopeSet(Scope... scopes) {
        return scopes.length == 0 ? EnumSet.noneOf(Scope.class) : EnumSet.copyOf(List.of(scopes));
    }
}
