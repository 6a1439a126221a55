package pe.quipu.api.http;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.auth.AuthDynamicFeature;
import io.dropwizard.auth.PolymorphicAuthValueFactoryProvider;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.setup.Environment;
import ch.qos.logback.access.jetty.RequestLogImpl;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.BearerAuthenticator;
import pe.quipu.api.auth.BearerHeaderAuthFilter;
import pe.quipu.api.auth.QuipuPrincipal;
import pe.quipu.api.auth.ScopeFeature;
import pe.quipu.api.auth.SessionFeature;
import pe.quipu.api.auth.SessionPrincipal;

import java.util.Set;

/** What every route shares at the edge: errors, request bodies, the request log, and how credentials are read. */
public final class HttpEdge {

    private HttpEdge() {
    }

    /**
     * Problem Details everywhere, from Jersey and from Jetty; request bodies decoded by Quipu within each route's
     * limit; the request log with secret-named query values hidden; credentials refused in the query string; the
     * Problems' words in the language the request prefers.
     */
    public static void install(Environment environment, ServerFactory server) {
        install(environment, server, false);
    }

    /** As {@link #install(Environment, ServerFactory)}, the request log as JSON when {@code jsonLogs}. */
    public static void install(Environment environment, ServerFactory server, boolean jsonLogs) {
        RequestLanguage.install(environment);
        environment.jersey().register(new ProblemExceptionMapper());
        UnreadBodyFilter.install(environment);
        ProblemErrorHandler.install(environment, environment.getObjectMapper());
        // The server is built after run, with this layout.
        RedactingRequestLogLayout.installOn(server, jsonLogs);
        environment.jersey().register(new RequestContentEncoding(
                environment.metrics().counter(MetricRegistry.name(RequestContentEncoding.class, "inflated-bytes"))));
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle lifeCycle) {
                if (lifeCycle instanceof Server jetty) {
                    RequestContentEncoding.disableJettyInflation(jetty);
                    // logback-access prints its status at every start, outside any log format, because the
                    // versions of its two jars in Dropwizard's dependency set differ: a line that is no log line.
                    if (jetty.getRequestLog() instanceof RequestLogImpl requestLog) {
                        requestLog.setQuiet(true);
                    }
                }
            }
        });
        environment.jersey().register(new CredentialPlacement());
    }

    /**
     * Bearer credentials from the Authorization header: API keys for the data routes (by scope) and sessions' access
     * JWTs for the account routes, told apart by shape; a deleted account's still-valid tokens get 410 on /v1/me.
     */
    public static void authenticate(Environment environment, BearerAuthenticator credentials,
                                    SessionFeature.DeletedAccounts deleted) {
        environment.jersey().register(new AuthDynamicFeature(
                new BearerHeaderAuthFilter.Builder<QuipuPrincipal>()
                        .setAuthenticator(credentials)
                        .setPrefix("Bearer")
                        .setRealm("quipu")
                        .setUnauthorizedHandler(new ProblemUnauthorizedHandler())
                        .buildAuthFilter()));
        environment.jersey().register(new PolymorphicAuthValueFactoryProvider.Binder<>(
                Set.of(QuipuPrincipal.class, ApiKeyPrincipal.class, SessionPrincipal.class)));
        environment.jersey().register(new ScopeFeature());
        environment.jersey().register(new SessionFeature(deleted));
    }
}
