package pe.quipu.api.training;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** When the warm-up pauses for the clients: their own requests, not the warm-up's, many in the last sample. */
class WarmUpBusyTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicLong served = new AtomicLong();
    private final AtomicLong own = new AtomicLong();
    private final WarmUp.Busy busy = new WarmUp.Busy(nanos::get, served::get, own::get);

    /** One sample later, the clients and the warm-up having sent this many requests meanwhile. */
    private boolean sample(long clients, long warmUp) {
        nanos.addAndGet(WarmUp.SAMPLE.toNanos());
        served.addAndGet(clients + warmUp);
        own.addAndGet(warmUp);
        return busy.busy();
    }

    @Test
    void the_warm_up_alone_is_never_busy_however_fast() {
        assertThat(busy.busy()).isFalse();
        for (int i = 0; i < 20; i++) {
            assertThat(sample(0, 5_000)).isFalse();
        }
    }

    @Test
    void it_pauses_while_the_clients_are_many_and_resumes_when_they_drop() {
        busy.busy();
        assertThat(sample(WarmUp.BUSY_REQUESTS - 1, 800)).as("a few clients: it goes on beside them").isFalse();
        assertThat(sample(WarmUp.BUSY_REQUESTS, 800)).as("many: it pauses").isTrue();
        // Paused, it sends nothing; the clients alone keep it paused.
        assertThat(sample(3_000, 0)).isTrue();
        assertThat(sample(WarmUp.BUSY_REQUESTS, 0)).isTrue();
        assertThat(sample(WarmUp.BUSY_REQUESTS - 1, 0)).as("they dropped").isFalse();
    }

    @Test
    void it_samples_at_most_once_per_sample_period() {
        busy.busy();
        assertThat(sample(1_000, 0)).isTrue();
        nanos.addAndGet(WarmUp.SAMPLE.toNanos() / 2);
        assertThat(busy.busy()).as("half a period later: the last verdict").isTrue();
        nanos.addAndGet(WarmUp.SAMPLE.toNanos() / 2);
        assertThat(busy.busy()).as("a whole period without clients").isFalse();
    }

    @Test
    void without_a_count_of_the_servers_requests_it_never_pauses() {
        WarmUp.Busy blind = new WarmUp.Busy(nanos::get, () -> -1, own::get);
        blind.busy();
        nanos.addAndGet(WarmUp.SAMPLE.toNanos());
        assertThat(blind.busy()).isFalse();
    }
}
