package pe.quipu.api.keys;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.domain.Text;
import pe.quipu.api.http.JsonBody;
import pe.quipu.api.platform.Periodic;
import pe.quipu.api.platform.Platform;

import java.time.Duration;

/**
 * The API keys feature assembled: the authenticator behind every data route (keys cached in memory, evicted on every
 * instance by notification), their last use noted in memory and written in batches (and once more on stop), and the
 * account holder's {@code /v1/keys}.
 */
public final class Keys {

    private final ApiKeyAuthenticator authenticator;

    public Keys(Platform platform, Environment environment, KeysSettings settings) {
        KeyLastUse lastUse = new KeyLastUse(platform.jdbi(), platform.clock());
        Duration flush = settings.getLastUsedFlushInterval().toJavaDuration();
        platform.manage(Periodic.every("quipu-key-last-use", flush, flush, lastUse::flush).alsoOnStop());
        authenticator = new ApiKeyAuthenticator(platform.jdbi(), platform.clock(), lastUse);
        KeyChangeListener.register(platform.notifications(), authenticator);
        environment.jersey().register(new KeysResource(new AccountKeys(platform.jdbi(), platform.clock(),
                new KeyIssuer(platform.clock(), platform.outbox()), platform.audit(), authenticator,
                settings.getRotationGrace().toJavaDuration(), settings.getMaxPerAccount()),
                new JsonBody(platform.json()),
                settings.getOperationThrottle().throttle(Text.of("keys.throttle.operations"), platform.clock())));
    }

    /** Resolves {@code Authorization: Bearer qk_live_…} to a key. */
    public ApiKeyAuthenticator authenticator() {
        return authenticator;
    }
}
