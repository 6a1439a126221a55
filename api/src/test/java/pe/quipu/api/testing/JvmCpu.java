package pe.quipu.api.testing;

import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The CPU time this JVM's threads spend while something runs, counted thread by thread. A sum over the live
 * threads, taken before and after, is not a measurement: a thread that ends in between takes its whole past CPU
 * time out of the second sum (a JIT compiler thread or a pool's idle worker can end at any moment), and the
 * difference can come out negative. Here a thread that ended is left out, a thread that began and still runs counts
 * all its time, and every other thread counts what it spent in between. (A thread that both began and ended in
 * between is missed: a measurement can come out low, never below zero.)
 */
public final class JvmCpu {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private JvmCpu() {
    }

    /** What {@code work} gave, and the nanoseconds of CPU this JVM's threads spent while it ran. */
    public record Spent<T>(T result, long nanos) {
    }

    /** Nanoseconds of CPU spent by this JVM's threads while {@code work} ran. */
    public static long spentDuring(Runnable work) {
        return spentDuring(() -> {
            work.run();
            return null;
        }).nanos();
    }

    /** The result of {@code work} and the CPU this JVM's threads spent while it ran. */
    public static <T> Spent<T> spentDuring(Supplier<T> work) {
        Map<Long, Long> before = snapshot();
        T result = work.get();
        Map<Long, Long> after = snapshot();
        long spent = 0;
        for (Map.Entry<Long, Long> thread : after.entrySet()) {
            long earlier = before.getOrDefault(thread.getKey(), 0L);
            spent += Math.max(0, thread.getValue() - earlier);
        }
        return new Spent<>(result, spent);
    }

    private static Map<Long, Long> snapshot() {
        long[] ids = THREADS.getAllThreadIds();
        long[] nanos = THREADS.getThreadCpuTime(ids);
        Map<Long, Long> cpu = new HashMap<>(ids.length * 2);
        for (int i = 0; i < ids.length; i++) {
            if (nanos[i] >= 0) { // -1: the thread ended between the two calls, or is not measured
                cpu.put(ids[i], nanos[i]);
            }
        }
        return cpu;
    }
}
