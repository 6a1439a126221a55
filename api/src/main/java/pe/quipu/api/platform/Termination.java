package pe.quipu.api.platform;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * SIGTERM as a request to stop cleanly (contract §13): the process runs its own stop, then exits 0. The JVM's default
 * would run the shutdown hooks and exit 143, which orchestrators and process supervisors count as a failure.
 * Only a process's own entry point installs it: an application started inside a test JVM leaves the JVM's signals
 * alone.
 */
public final class Termination {

    private static final Logger LOG = LoggerFactory.getLogger(Termination.class);

    private Termination() {
    }

    /** On SIGTERM: {@code stop} on a thread of its own, then exit 0 (1 when {@code stop} failed). A second one waits. */
    public static void onSigterm(String what, ThrowingRunnable stop) {
        AtomicBoolean stopping = new AtomicBoolean();
        Signal.handle(new Signal("TERM"), signal -> {
            if (!stopping.compareAndSet(false, true)) {
                return;
            }
            Thread.ofPlatform().name("quipu-sigterm").start(() -> {
                int status = 0;
                LOG.info("SIGTERM: stopping the {}", what);
                try {
                    stop.run();
                    LOG.info("Stopped the {}; exiting", what);
                } catch (Exception | Error e) {
                    LOG.error("Stopping the {} failed", what, e);
                    status = 1;
                }
                System.exit(status);
            });
        });
    }

    /** A stop that may throw. */
    @FunctionalInterface
    public interface ThrowingRunnable {
        void run() throws Exception;
    }
}
