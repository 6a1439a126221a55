package pe.quipu.api.platform;

import io.dropwizard.core.setup.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * What a process started in development (the API once it serves, the {@code deliver} worker) says: {@code QUIPU_ENV}
 * unset means development, so that {@code ./quipu server config.yml} just works, and a deployment that forgot it must
 * not go unnoticed.
 */
public final class DevelopmentMode {

    private static final Logger LOG = LoggerFactory.getLogger(DevelopmentMode.class);
    private static final String RULE = "*".repeat(100);

    private DevelopmentMode() {
    }

    /** The API's: the {@link #warning} at every start, once the server serves (after the start-up lines). */
    public static void announce(Environment environment, List<String> relaxed) {
        String warning = warning(relaxed);
        environment.lifecycle().addServerLifecycleListener(server -> LOG.warn(warning));
    }

    /** One block naming each thing {@code relaxed}, as the configuration's {@code developmentRelaxations} lists them. */
    public static String warning(List<String> relaxed) {
        StringBuilder text = new StringBuilder()
                .append("Quipu runs in DEVELOPMENT mode (QUIPU_ENV unset or development): not for a deployment"
                        + " others rely on.\n")
                .append(RULE).append('\n');
        if (relaxed.isEmpty()) {
            text.append("Nothing that production refuses is in use.\n");
        } else {
            text.append("Allowed here, refused in production:\n");
            relaxed.forEach(r -> text.append("  - ").append(r).append('\n'));
        }
        return text.append("Set QUIPU_ENV=production (with JWT_SIGNING_KEY, QUIPU_ADMIN_TOKEN_FILE and"
                        + " QUIPU_PRIVACY_CONTROLLER_*) for a real deployment; GET /v1/status shows \"environment\": \"development\" until then.\n")
                .append(RULE).toString();
    }
}
