package pe.quipu.api.operations;

import io.dropwizard.core.setup.Environment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;

/**
 * A plain {@code java -jar} on a large machine gets the JVM's default heap, a quarter of the machine's memory, and
 * under load the process grows far beyond what Quipu needs (524 to 926 MB resident measured, against about 300 MB with
 * {@code -Xmx256m}, and less with the 128 MB {@code ./quipu} gives). A jar cannot set its own heap, so the start says
 * so once, with what to set.
 */
public final class HeapAdvice {

    private static final Logger LOG = LoggerFactory.getLogger(HeapAdvice.class);
    /** A heap Quipu never needs: it runs in 128 MB (what ./quipu gives it). */
    static final long LARGE = 1L << 30;

    private HeapAdvice() {
    }

    /** Logs the advice, if any, once the server serves. */
    public static void install(Environment environment) {
        advice(Runtime.getRuntime().maxMemory(), ManagementFactory.getRuntimeMXBean().getInputArguments())
                .ifPresent(advice -> environment.lifecycle().addServerLifecycleListener(server -> LOG.warn(advice)));
    }

    /** The advice for a JVM whose heap may grow to {@code maxHeap} bytes, started with {@code jvmArguments}. */
    static Optional<String> advice(long maxHeap, List<String> jvmArguments) {
        boolean chosen = jvmArguments.stream().anyMatch(a -> a.startsWith("-Xmx") || a.startsWith("-XX:MaxHeapSize")
                || a.startsWith("-XX:MaxRAMPercentage") || a.startsWith("-XX:MaxRAM=")
                || a.startsWith("-XX:MaxRAMFraction"));
        if (chosen || maxHeap <= LARGE) {
            return Optional.empty();
        }
        return Optional.of("The heap may grow to " + (maxHeap >> 20) + " MB (the JVM's default, a quarter of the"
                + " memory it sees; no -Xmx or -XX:MaxRAMPercentage was given), and under load the process then holds"
                + " far more memory than Quipu needs. ./quipu starts it with -Xmx128m; with java -jar, set"
                + " JAVA_TOOL_OPTIONS=-Xmx128m (or -XX:MaxRAMPercentage=25 in a container given 512 MB): README,"
                + " Performance.");
    }
}
