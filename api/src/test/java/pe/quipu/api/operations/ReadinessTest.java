package pe.quipu.api.operations;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The readiness rule: started, warmed up, the database answering, and not shutting down. */
class ReadinessTest {

    @Test
    void readiness_waits_for_the_start_and_ends_for_good_at_the_shutdown() {
        Readiness readiness = new Readiness(() -> true, System::nanoTime);
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "starting"));
        readiness.serving();
        assertThat(readiness.verdict().ready()).isTrue();
        readiness.draining();
        readiness.serving();
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "shutting down"));
    }

    @Test
    void a_serving_instance_is_not_ready_until_its_warm_up_has_ended() {
        Readiness readiness = new Readiness(() -> true, System::nanoTime);
        Runnable warmedUp = readiness.warmingUp();
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "starting"));
        readiness.serving();
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "warming up"));
        warmedUp.run();
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(true, "ready"));
    }

    @Test
    void a_warm_up_that_ends_before_the_server_has_started_leaves_it_ready_once_started() {
        // The warm-up that holds the port ends before Jetty reports itself started.
        Readiness readiness = new Readiness(() -> true, System::nanoTime);
        readiness.warmingUp().run();
        assertThat(readiness.verdict().reason()).isEqualTo("starting");
        readiness.serving();
        assertThat(readiness.verdict().ready()).isTrue();
    }

    @Test
    void a_shutdown_during_the_warm_up_says_so_and_its_end_changes_nothing() {
        Readiness readiness = new Readiness(() -> true, System::nanoTime);
        Runnable warmedUp = readiness.warmingUp();
        readiness.serving();
        readiness.draining();
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "shutting down"));
        warmedUp.run();
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "shutting down"));
    }

    @Test
    void while_warming_up_the_database_is_not_asked() {
        AtomicInteger asked = new AtomicInteger();
        Readiness readiness = new Readiness(() -> asked.incrementAndGet() > 0, System::nanoTime);
        Runnable warmedUp = readiness.warmingUp();
        readiness.serving();
        readiness.verdict();
        assertThat(asked).hasValue(0);
        warmedUp.run();
        assertThat(readiness.verdict().ready()).isTrue();
        assertThat(asked).hasValue(1);
    }

    @Test
    void readiness_asks_the_database_at_most_once_a_second() {
        AtomicBoolean up = new AtomicBoolean(true);
        AtomicInteger asked = new AtomicInteger();
        AtomicLong now = new AtomicLong();
        Readiness readiness = new Readiness(() -> {
            asked.incrementAndGet();
            if (!up.get()) {
                throw new IllegalStateException("connection refused");
            }
            return true;
        }, now::get);
        readiness.serving();
        assertThat(readiness.verdict().ready()).isTrue();
        up.set(false);
        now.addAndGet(999_000_000L);
        assertThat(readiness.verdict().ready()).isTrue();
        assertThat(asked).hasValue(1);
        now.addAndGet(1_000_000L);
        assertThat(readiness.verdict()).isEqualTo(new Readiness.Verdict(false, "the database does not answer"));
        up.set(true);
        now.addAndGet(Readiness.DATABASE_RECHECK.toNanos());
        assertThat(readiness.verdict().ready()).isTrue();
        assertThat(asked).hasValue(3);
    }
}
