package pe.quipu.api.training;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** When the warm-up ends: once the JIT compilers have settled, never before its minimum, at the latest its limit. */
class WarmUpJitSettledTest {

    /** A moved clock and a compilers' time that the test sets. */
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicLong compileMillis = new AtomicLong();

    private WarmUp.JitSettled settledWithin(Duration limit) {
        return new WarmUp.JitSettled(nanos::get, compileMillis::get, limit);
    }

    /** Moves the clock by one sample, the compilers having worked this many milliseconds meanwhile, and asks. */
    private boolean step(WarmUp.JitSettled jit, long compiled) {
        nanos.addAndGet(WarmUp.SAMPLE.toNanos());
        compileMillis.addAndGet(compiled);
        return jit.over();
    }

    @Test
    void it_ends_once_the_compilers_were_nearly_idle_over_the_window_after_the_minimum() {
        WarmUp.JitSettled jit = settledWithin(Duration.ofSeconds(40));
        assertThat(jit.over()).isFalse();
        // Compiling flat out (one thread busy) for 8 s: not over.
        long elapsed = 0;
        while (elapsed < Duration.ofSeconds(8).toMillis()) {
            assertThat(step(jit, WarmUp.SAMPLE.toMillis())).as("compiling at %d ms", elapsed).isFalse();
            elapsed += WarmUp.SAMPLE.toMillis();
        }
        // Then 2 ms of compilation per sample (under 5 % of a thread): over once a whole window was that quiet.
        int quietSamples = 0;
        while (!step(jit, 2)) {
            quietSamples++;
            assertThat(quietSamples).as("samples before it settles").isLessThan(100);
        }
        long window = WarmUp.SETTLED_WINDOW.toMillis() / WarmUp.SAMPLE.toMillis();
        assertThat(quietSamples + 1L).isEqualTo(window);
        assertThat(jit.settled()).isTrue();
        assertThat(jit.over()).isTrue();
    }

    @Test
    void a_busy_sample_inside_the_window_keeps_it_going() {
        WarmUp.JitSettled jit = settledWithin(Duration.ofSeconds(40));
        for (int i = 0; i < 40; i++) {
            step(jit, WarmUp.SAMPLE.toMillis());
        }
        long window = WarmUp.SETTLED_WINDOW.toMillis() / WarmUp.SAMPLE.toMillis();
        for (int i = 0; i < window - 1; i++) {
            assertThat(step(jit, 1)).isFalse();
        }
        // 200 ms in one sample: 3 s of window now hold more than 5 % of a thread's time.
        assertThat(step(jit, 200)).isFalse();
        for (int i = 0; i < window - 1; i++) {
            assertThat(step(jit, 1)).as("the busy sample is still in the window").isFalse();
        }
        assertThat(step(jit, 1)).isTrue();
    }

    @Test
    void it_never_ends_before_the_minimum_even_with_idle_compilers() {
        WarmUp.JitSettled jit = settledWithin(Duration.ofSeconds(40));
        long elapsed = 0;
        while (elapsed + WarmUp.SAMPLE.toMillis() < WarmUp.MINIMUM.toMillis()) {
            assertThat(step(jit, 0)).as("at %d ms", elapsed + WarmUp.SAMPLE.toMillis()).isFalse();
            elapsed += WarmUp.SAMPLE.toMillis();
        }
        assertThat(step(jit, 0)).as("at the minimum").isTrue();
        assertThat(jit.settled()).isTrue();
    }

    @Test
    void it_ends_at_the_limit_if_the_compilers_never_settle() {
        WarmUp.JitSettled jit = settledWithin(Duration.ofSeconds(12));
        long elapsed = 0;
        while (elapsed + WarmUp.SAMPLE.toMillis() < 12_000) {
            assertThat(step(jit, WarmUp.SAMPLE.toMillis())).isFalse();
            elapsed += WarmUp.SAMPLE.toMillis();
        }
        assertThat(step(jit, WarmUp.SAMPLE.toMillis())).isTrue();
        assertThat(jit.settled()).as("ended by the limit, not settled").isFalse();
    }

    @Test
    void a_limit_under_the_minimum_is_kept_and_without_compilation_times_only_the_limit_ends_it() {
        WarmUp.JitSettled shortOne = settledWithin(Duration.ofSeconds(2));
        nanos.addAndGet(Duration.ofMillis(1999).toNanos());
        assertThat(shortOne.over()).isFalse();
        nanos.addAndGet(Duration.ofMillis(1).toNanos());
        assertThat(shortOne.over()).isTrue();

        WarmUp.JitSettled unmeasured = new WarmUp.JitSettled(nanos::get, null, Duration.ofSeconds(20));
        nanos.addAndGet(Duration.ofSeconds(19).toNanos());
        assertThat(unmeasured.over()).isFalse();
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertThat(unmeasured.over()).isTrue();
        assertThat(unmeasured.settled()).isFalse();
    }
}
