package pe.quipu.api.operations;

import io.dropwizard.core.server.AbstractServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.setup.Environment;
import pe.quipu.api.http.AdminTaskGuard;
import pe.quipu.api.http.IdleConnections;
import pe.quipu.api.http.RequestIds;
import pe.quipu.api.platform.Platform;
import pe.quipu.api.platform.Termination;

/**
 * Running Quipu like any other service (contract §13): the operator tasks behind the admin token, the probes, request
 * ids, /prometheus, and the shutdown sequence (readiness off at once, a drain delay while connections are still
 * accepted, then the requests in flight finish within the grace period, then what the features manage stops:
 * metering written, the delivery worker's attempts finished or handed back).
 */
public final class Operations {

    private Operations() {
    }

    /**
     * @param ownsProcess whether this application is the process's entry point, which then answers SIGTERM itself
     *                    (and exits 0); an application inside a test JVM leaves the JVM's signals alone
     * @param instrumentRequests false only to measure what request ids and request metrics cost (bench/operations.sh)
     */
    public static Readiness serve(Platform platform, Environment environment, ServerFactory server, AdminSettings admin,
                                  ShutdownSettings shutdown, boolean production, boolean ownsProcess,
                                  boolean instrumentRequests) {
        Readiness readiness = new Readiness(() -> platform.jdbi().withHandle(h ->
                h.createQuery("select 1").mapTo(Integer.class).one() == 1), System::nanoTime);
        // First, so that every later filter's answers and log lines have the id.
        if (instrumentRequests) {
            RequestIds.install(environment, () -> readiness.stage() == Readiness.Stage.DRAINING);
        }
        AdminTaskGuard.install(environment.admin(), environment.getObjectMapper(), AdminToken.load(admin, production));
        environment.jersey().register(new ProbesResource(readiness));
        HeapAdvice.install(environment);
        Prometheus.serve(environment, platform.prometheus(), environment.metrics(), instrumentRequests);

        if (server instanceof AbstractServerFactory factory) {
            factory.setShutdownGracePeriod(shutdown.getGrace());
        }
        long drainMillis = shutdown.getDrainDelay().toMilliseconds();
        environment.lifecycle().addServerLifecycleListener(jetty -> {
            readiness.serving();
            if (ownsProcess) {
                Termination.onSigterm("API", jetty::stop);
            }
        });
        IdleConnections.drainOnStop(environment, readiness::draining, drainMillis, shutdown.getGrace().toString());
        return readiness;
    }
}
