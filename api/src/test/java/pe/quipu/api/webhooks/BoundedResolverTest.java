package pe.quipu.api.webhooks;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The bound on a webhook host's lookup, with a resolver that answers, fails, or hangs until the test ends. */
class BoundedResolverTest {

    private static final Duration BOUND = Duration.ofMillis(300);

    private final CountDownLatch released = new CountDownLatch(1);
    private final WebhookUrls.Resolver hangs = host -> {
        try {
            released.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new UnknownHostException(host);
    };

    @AfterEach
    void release() {
        released.countDown();
    }

    @Test
    void an_answer_within_the_bound_is_passed_on() throws Exception {
        BoundedResolver resolver = new BoundedResolver(host -> List.of(InetAddress.ofLiteral("93.184.215.14")), BOUND);
        assertThat(resolver.resolve("hooks.example.com")).containsExactly(InetAddress.ofLiteral("93.184.215.14"));
    }

    @Test
    void a_name_that_does_not_resolve_is_passed_on_as_such() {
        BoundedResolver resolver = new BoundedResolver(host -> {
            throw new UnknownHostException(host);
        }, BOUND);
        assertThatThrownBy(() -> resolver.resolve("nowhere.example.com"))
                .isExactlyInstanceOf(UnknownHostException.class);
    }

    @Test
    void a_lookup_that_hangs_is_given_up_after_the_bound() {
        BoundedResolver resolver = new BoundedResolver(hangs, BOUND);
        long started = System.nanoTime();
        assertThatThrownBy(() -> resolver.resolve("black-hole.example.com"))
                .isInstanceOfSatisfying(BoundedResolver.TimedOut.class, e -> assertThat(e.waited()).isEqualTo(BOUND));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isBetween(BOUND, BOUND.plusMillis(500));
    }

    /**
     * Hanging lookups fill the threads, then the queue; a lookup beyond that is refused at once, and those queued
     * give up after the bound like any other.
     */
    @Test
    void once_every_thread_and_the_queue_are_taken_a_lookup_is_refused_at_once() {
        BoundedResolver resolver = new BoundedResolver(hangs, Duration.ofSeconds(30));
        int taking = BoundedResolver.THREADS + BoundedResolver.QUEUED;
        ExecutorService callers = Executors.newFixedThreadPool(taking);
        List<Future<?>> waiting = new ArrayList<>();
        try {
            for (int i = 0; i < taking; i++) {
                waiting.add(callers.submit(() -> resolver.resolve("black-hole.example.com")));
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> resolver.pending() == taking);
            long started = System.nanoTime();
            assertThatThrownBy(() -> resolver.resolve("hooks.example.com"))
                    .isInstanceOfSatisfying(BoundedResolver.TimedOut.class,
                            e -> assertThat(e.waited()).isEqualTo(Duration.ZERO));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofMillis(200));
            assertThat(waiting).noneMatch(Future::isDone);
        } finally {
            released.countDown();
            callers.shutdownNow();
        }
    }
}
