package pe.quipu.api.keys;

import com.codahale.metrics.Timer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpResponse;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * Well-formed keys that are no key: each is 401, and the database is asked about it once within
 * {@link ApiKeyAuthenticator#MISS_KEPT} rather than on every request. The database's work is counted by the
 * application's own meter of the key lookup statement (Dropwizard's Jdbi instrumentation times every SQL object
 * method), which counts the statements this instance ran.
 */
class UnknownKeysTest {

    private static final String LOOKUP = "/v1/ubigeos/150101";
    private static final char[] BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
    private static final SecureRandom RANDOM = new SecureRandom();

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void three_thousand_random_keys_from_eight_threads_are_401_each_looked_up_once_while_lookups_answer()
            throws Exception {
        String valid = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        assertThat(quipu.get(LOOKUP, valid).statusCode()).isEqualTo(200);
        List<String> unknown = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            unknown.add(randomKey());
        }
        // Each key is sent twice, by two different threads, in a different order: a client retrying a key it was
        // refused, or several replaying one list of guesses.
        List<List<String>> rounds = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            List<String> round = new ArrayList<>(unknown.subList(t * 375, (t + 1) * 375));
            round.addAll(unknown.subList(((t + 3) % 8) * 375, ((t + 3) % 8 + 1) * 375));
            Collections.shuffle(round);
            rounds.add(round);
        }
        long lookupsBefore = keyLookups();

        ExecutorService threads = Executors.newFixedThreadPool(9);
        AtomicBoolean flooding = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        AtomicInteger lookups = new AtomicInteger();
        List<Long> lookupMillis = Collections.synchronizedList(new ArrayList<>());
        try {
            Future<?> reader = threads.submit(() -> {
                while (flooding.get()) {
                    long started = System.nanoTime();
                    HttpResponse<String> answer = quipu.get(LOOKUP, valid);
                    lookupMillis.add((System.nanoTime() - started) / 1_000_000);
                    if (answer.statusCode() != 200) {
                        wrong.add("lookup: " + answer.statusCode() + " " + answer.body());
                    }
                    lookups.incrementAndGet();
                }
            });
            List<Future<?>> floods = new ArrayList<>();
            for (List<String> round : rounds) {
                floods.add(threads.submit(() -> {
                    for (String key : round) {
                        HttpResponse<String> answer = quipu.get(LOOKUP, key);
                        if (answer.statusCode() != 401 || !answer.body().contains("\"unauthorized\"")) {
                            wrong.add("unknown key: " + answer.statusCode() + " " + answer.body());
                        }
                    }
                }));
            }
            for (Future<?> flood : floods) {
                flood.get();
            }
            flooding.set(false);
            reader.get();
        } finally {
            flooding.set(false);
            threads.shutdownNow();
        }
        long databaseLookups = keyLookups() - lookupsBefore;

        assertThat(wrong).as("answers other than 401 to unknown keys and 200 to lookups").isEmpty();
        assertThat(lookups.get()).as("lookups answered during the flood").isPositive();
        assertThat(Collections.max(lookupMillis)).as("the slowest lookup during the flood, ms").isLessThan(2_000);
        // 6,000 requests of 3,000 distinct keys: each key is looked up in the database once. One more may be the
        // valid key's: its insert notifies every instance a moment after it is written, evicting it here once.
        assertThat(databaseLookups).as("key lookups in the database for 6,000 requests of 3,000 unknown keys")
                .isLessThanOrEqualTo(3_000 + 1);
    }

    @Test
    void a_refused_key_is_not_looked_up_again_until_five_seconds_have_passed() {
        String unknown = randomKey();
        long before = keyLookups();
        assertProblem(quipu.get(LOOKUP, unknown), 401, "unauthorized");
        assertThat(keyLookups() - before).isEqualTo(1);

        assertProblem(quipu.get(LOOKUP, unknown), 401, "unauthorized");
        quipu.clock.advance(Duration.ofMillis(4_999));
        assertProblem(quipu.get(LOOKUP, unknown), 401, "unauthorized");
        assertThat(keyLookups() - before).as("lookups within five seconds of the first").isEqualTo(1);

        quipu.clock.advance(Duration.ofMillis(1));
        assertProblem(quipu.get(LOOKUP, unknown), 401, "unauthorized");
        assertThat(keyLookups() - before).as("lookups once five seconds have passed").isEqualTo(2);
    }

    /**
     * A key row written after its secret was refused (here by SQL, as a restore or an import of keys would write it)
     * works at once, on the clock's same instant: the insert's notification forgets the refusal.
     */
    @Test
    void a_key_written_after_its_secret_was_refused_works_at_once() {
        String existing = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        UUID account = quipu.accounts.accountOf(existing);
        String secret = randomKey();
        assertProblem(quipu.get(LOOKUP, secret), 401, "unauthorized");
        assertProblem(quipu.get(LOOKUP, secret), 401, "unauthorized");

        quipu.database.jdbi().useHandle(h -> h.createUpdate("""
                        insert into api_keys (id, account_id, name, prefix, key_hash, scopes, status, created_at)
                        values (:id, :account, 'restored', :prefix, :hash, array['ubigeos:read'], 'active', :at)""")
                .bind("id", UUID.randomUUID()).bind("account", account).bind("prefix", secret.substring(0, 14))
                .bind("hash", ApiKeySecret.hashOf(secret)).bind("at", quipu.clock.instant()).execute());

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> {
                    HttpResponse<String> answer = quipu.get(LOOKUP, secret);
                    assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
                });
        assertThat(quipu.clock.instant()).isEqualTo(QuipuExtension.START);
    }

    /** A key past its grace (a client still sending the key it rotated away from) counts as missing too. */
    @Test
    void a_key_past_its_grace_is_looked_up_once_per_five_seconds() {
        String rotated = quipu.accounts.newKey(Scope.UBIGEOS_READ);
        quipu.database.jdbi().useHandle(h -> h.createUpdate(
                        "update api_keys set status = 'grace', expires_at = :at where key_hash = :hash")
                .bind("at", quipu.clock.instant().minusSeconds(1)).bind("hash", ApiKeySecret.hashOf(rotated))
                .execute());
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .untilAsserted(() -> assertProblem(quipu.get(LOOKUP, rotated), 401, "unauthorized"));
        long before = keyLookups();

        for (int i = 0; i < 5; i++) {
            assertProblem(quipu.get(LOOKUP, rotated), 401, "unauthorized");
        }
        assertThat(keyLookups() - before).as("lookups of a key past its grace, five requests").isLessThanOrEqualTo(1);
    }

    /** How many times this instance has run the statement that looks a key up by its hash. */
    private static long keyLookups() {
        Map<String, Timer> timers = quipu.environment().metrics().getTimers(
                (name, metric) -> name.contains("UsableKeyRows") && name.endsWith(".find"));
        assertThat(timers).as("the key lookup's meter among %s", quipu.environment().metrics().getTimers().keySet())
                .hasSize(1);
        return timers.values().iterator().next().getCount();
    }

    private static String randomKey() {
        char[] chars = new char[40];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = BASE62[RANDOM.nextInt(BASE62.length)];
        }
        return ApiKeySecret.PREFIX + new String(chars);
    }
}
