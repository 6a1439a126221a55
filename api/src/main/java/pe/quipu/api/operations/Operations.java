package pe.quipu.api.operations;

import io.dropwizard.core.server.AbstractServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.core.setup.Environment;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.http.AdminTaskGuard;
import pe.quipu.api.http.IdleConnections;
import pe.quipu.api.http.RequestIds;
import pe.quipu.api.platform.Platform;
import pe.quipu.api.platform.Termination;

/**
 * Running Quipu like any other service (contract §13): the operator tasks behind the admin token, the probes, request
 * ids, and the
 * shutdown sequence (readiness off at once, a drain delay while connections are still accepted, then the requests in
 * flight finish within the grace period, then what the features manage stops: metering written, the delivery
 * worker's attempts finished or handed back).
 */
public final class Operations {

    private static final Logger LOG = LoggerFactory.getLogger(Operations.class);

    private Operations() {
    }

    /**
     * @param ownsProcess whether this application is the process's entry point, which then answers SIGTERM itself
     *                    (and exits 0); an application inside a test JVM leaves the JVM's signals alone
     */
    public static Readiness serve(Platform platform, Environment environment, ServerFactory server, AdminSettings admin,
                                  ShutdownSettings shutdown, boolean production, boolean ownsProcess) {
        Readiness readiness = new Readiness(() -> platform.jdbi().withHandle(h ->
                h.createQuery("select 1").mapTo(Integer.class).one() == 1), System::nanoTime);
        // First, so that every later filter's answers and log lines have the id.
        RequestIds.install(environment, () -> readiness.stage() == Readiness.Stage.DRAINING);
        AdminTaskGuard.install(environment.admin(), environment.getObjectMapper(), AdminToken.load(admin, production));
        environment.jersey().register(new ProbesResource(readiness));
        Prometheus.serve(environment, platform.prometheus(), environment.metrics());

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
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStopping(LifeCycle lifeCycle) {
                if (lifeCycle instanceof Server && readiness.stage() != Readiness.Stage.DRAINING) {
                    readiness.draining();
                    if (drainMillis > 0) {
                        LOG.info("Shutting down: /readyz answers 503; still accepting connections for {} ms",
                                drainMillis);
                        try {
                            Thread.sleep(drainMillis);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    int closed = IdleConnections.quiesce((Server) lifeCycle);
                    LOG.info("Shutting down: no new connections ({} idle ones closed); the requests in flight have {}"
                            + " to finish", closed, shutdown.getGrace());
                }
            }
        });
        return readiness;
    }
}
