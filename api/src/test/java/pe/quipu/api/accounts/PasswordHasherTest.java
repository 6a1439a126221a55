package pe.quipu.api.accounts;

import com.password4j.Argon2Function;
import org.junit.jupiter.api.Test;
import pe.quipu.api.domain.DomainException.RateLimited;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/** How many hashes run at once, and what happens to the ones that cannot start in time. */
class PasswordHasherTest {

    private static final long MIB = 1L << 20;

    @Test
    void hashes_at_once_follow_a_quarter_of_the_heap_never_more_than_the_processors_never_fewer_than_one() {
        assertThat(PasswordHasher.permitsFor(256 * MIB, 12)).isEqualTo(3);
        assertThat(PasswordHasher.permitsFor(64 * MIB, 2)).isEqualTo(1);
        assertThat(PasswordHasher.permitsFor(16 * MIB, 1)).isEqualTo(1);
        assertThat(PasswordHasher.permitsFor(4096 * MIB, 12)).isEqualTo(12);
        assertThat(PasswordHasher.permitsFor(4096 * MIB, 64)).isEqualTo(51);
    }

    @Test
    void a_hash_that_cannot_start_within_the_wait_is_refused_with_retry_after() throws Exception {
        List<Outcome> outcomes = burst(new PasswordHasher(1, Duration.ZERO), 8);
        assertThat(outcomes).contains(Outcome.HASHED, Outcome.REFUSED);
    }

    @Test
    void hashes_that_start_within_the_wait_all_run() throws Exception {
        List<Outcome> outcomes = burst(new PasswordHasher(1, Duration.ofSeconds(60)), 4);
        assertThat(outcomes).containsOnly(Outcome.HASHED);
    }

    @Test
    void the_decoy_and_stored_hashes_verify() {
        PasswordHasher hasher = new PasswordHasher(1, Duration.ofSeconds(60));
        String hash = hasher.hash("correct horse battery staple");
        assertThat(hasher.matches("correct horse battery staple", hash)).isTrue();
        assertThat(hasher.matches("wrong", hash)).isFalse();
        assertThat(hasher.matches("anything", null)).isFalse();
    }

    @Test
    void the_decoy_has_the_parameters_of_a_new_hash_so_that_checking_it_costs_the_same() {
        String hash = new PasswordHasher(1, Duration.ofSeconds(60)).hash("any password");
        String parameters = hash.substring(0, hash.indexOf("$", "$argon2id$v=19$".length()));
        assertThat(PasswordHasher.DECOY).startsWith(parameters + "$");
        assertThat(Argon2Function.getInstanceFromHash(PasswordHasher.DECOY))
                .isEqualTo(Argon2Function.getInstanceFromHash(hash));
    }

    private enum Outcome { HASHED, REFUSED }

    /** {@code n} hashes started at once. */
    private static List<Outcome> burst(PasswordHasher hasher, int n) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(n);
        CountDownLatch go = new CountDownLatch(1);
        try {
            List<Future<Outcome>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String password = "password number " + i;
                futures.add(threads.submit(() -> {
                    go.await();
                    try {
                        assertThat(hasher.hash(password)).startsWith("$argon2id$");
                        return Outcome.HASHED;
                    } catch (RateLimited refused) {
                        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
                        return Outcome.REFUSED;
                    }
                }));
            }
            go.countDown();
            List<Outcome> outcomes = new ArrayList<>();
            for (Future<Outcome> future : futures) {
                outcomes.add(future.get());
            }
            return outcomes;
        } finally {
            threads.shutdownNow();
        }
    }
}
