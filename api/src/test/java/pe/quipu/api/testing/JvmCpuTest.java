package pe.quipu.api.testing;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class JvmCpuTest {

    private static final long BUSY_NANOS = TimeUnit.MILLISECONDS.toNanos(150);

    @Test
    void a_thread_that_ends_during_the_measurement_takes_none_of_its_past_time_away() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Thread spinner = Thread.ofPlatform().start(() -> {
            spin(BUSY_NANOS);
            busy.countDown();
            await(finish);
        });
        busy.await();

        long spent = JvmCpu.spentDuring(() -> {
            finish.countDown();
            join(spinner);
        });

        assertThat(spent).isGreaterThanOrEqualTo(0).isLessThan(BUSY_NANOS / 2);
    }

    @Test
    void a_thread_that_begins_and_works_during_the_measurement_counts_in_full() throws Exception {
        CountDownLatch finish = new CountDownLatch(1);
        Thread[] spinner = new Thread[1];
        long spent = JvmCpu.spentDuring(() -> {
            CountDownLatch busy = new CountDownLatch(1);
            spinner[0] = Thread.ofPlatform().start(() -> {
                spin(BUSY_NANOS);
                busy.countDown();
                await(finish);
            });
            await(busy);
        });
        finish.countDown();
        spinner[0].join();

        assertThat(spent).isGreaterThanOrEqualTo(BUSY_NANOS * 8 / 10);
    }

    @Test
    void work_on_the_measuring_thread_counts() {
        long spent = JvmCpu.spentDuring(() -> spin(BUSY_NANOS));

        assertThat(spent).isGreaterThanOrEqualTo(BUSY_NANOS * 8 / 10);
    }

    /** Spins until this thread itself has used {@code nanos} of CPU, however long the machine makes it wait. */
    private static void spin(long nanos) {
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long until = threads.getCurrentThreadCpuTime() + nanos;
        long sink = 0;
        while (threads.getCurrentThreadCpuTime() < until) {
            sink += System.identityHashCode(new Object());
        }
        if (sink == 42) {
            System.out.print("");
        }
    }

    private static void join(Thread thread) {
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
