package pe.quipu.api.platform;

import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.MutableClock;
import pe.quipu.core.testing.TestDatabase;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The kept answers on the real database: claims, replays, mismatches, abandoned claims, expiry and pruning. */
class IdempotentRequestsTest {

    private static final TestDatabase DATABASE = TestDatabase.get();
    private final MutableClock clock = new MutableClock(Instant.parse("2026-10-07T15:00:00.123456789Z"));
    private final IdempotentRequests requests = new IdempotentRequests(
            DATABASE.jdbi(), clock);

    private static UUID account() {
        UUID id = UUID.randomUUID();
        DATABASE.jdbi().useHandle(h -> h.execute("insert into accounts (id, email, created_at) values (?, ?, now())",
                id, id + "@quipu.test"));
        return id;
    }

    private static byte[] print(String body) {
        return IdempotentRequests.fingerprint("POST", "/v1/keys", body.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void the_first_claim_runs_a_retry_replays_another_request_mismatches() {
        UUID account = account();
        IdempotentRequests.Claim first = requests.claim(account, "k", print("{}"));
        assertThat(first).isInstanceOf(IdempotentRequests.Claim.First.class);
        assertThat(requests.claim(account, "k", print("{}"))).isInstanceOf(IdempotentRequests.Claim.Running.class);

        IdempotentRequests.Answer answer = new IdempotentRequests.Answer(201,
                Map.of("Content-Type", List.of("application/json")), "{\"key\":\"qk_live_x\"}".getBytes());
        requests.complete(((IdempotentRequests.Claim.First) first).token(), answer);

        IdempotentRequests.Claim replay = requests.claim(account, "k", print("{}"));
        assertThat(replay).isInstanceOfSatisfying(IdempotentRequests.Claim.Replay.class, r -> {
            assertThat(r.answer().status()).isEqualTo(201);
            assertThat(r.answer().headers()).isEqualTo(answer.headers());
            assertThat(r.answer().body()).isEqualTo(answer.body());
        });
        assertThat(requests.claim(account, "k", print("{\"a\":1}")))
                .isInstanceOf(IdempotentRequests.Claim.Mismatch.class);
        assertThat(requests.claim(account(), "k", print("{}"))).isInstanceOf(IdempotentRequests.Claim.First.class);
    }

    @Test
    void a_released_or_abandoned_claim_lets_a_retry_run_and_expired_keys_are_pruned() {
        UUID account = account();
        IdempotentRequests.Claim.First first = (IdempotentRequests.Claim.First) requests.claim(account, "r", print(""));
        requests.release(first.token());
        assertThat(requests.claim(account, "r", print(""))).isInstanceOf(IdempotentRequests.Claim.First.class);

        clock.advance(IdempotentRequests.ABANDONED_AFTER.plusSeconds(1));
        assertThat(requests.claim(account, "r", print(""))).isInstanceOf(IdempotentRequests.Claim.First.class);

        clock.advance(IdempotentRequests.KEPT);
        assertThat(requests.prune()).isPositive();
        assertThat(DATABASE.texts("select count(*)::text from idempotency_keys where account_id = ?::uuid",
                account.toString())).containsExactly("0");
    }

    @Test
    void an_answer_opens_only_with_the_key_it_was_sealed_under() {
        UUID account = UUID.randomUUID();
        byte[] keyId = new byte[32];
        byte[] secret = new byte[32];
        secret[0] = 1;
        IdempotentRequests.Answer answer = new IdempotentRequests.Answer(200, Map.of("A", List.of("1", "2")),
                "body".getBytes());
        byte[] sealed = IdempotentRequests.encrypt(secret, account, keyId, answer);
        assertThat(IdempotentRequests.decrypt(secret, account, keyId, sealed).headers()).isEqualTo(answer.headers());
        byte[] other = secret.clone();
        other[0] = 2;
        assertThatThrownBy(() -> IdempotentRequests.decrypt(other, account, keyId, sealed))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> IdempotentRequests.decrypt(secret, UUID.randomUUID(), keyId, sealed))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void the_fingerprint_tells_method_path_and_body_apart() {
        byte[] body = "{}".getBytes();
        assertThat(IdempotentRequests.fingerprint("POST", "/v1/keys", body))
                .isEqualTo(IdempotentRequests.fingerprint("POST", "/v1/keys", body))
                .isNotEqualTo(IdempotentRequests.fingerprint("POST", "/v1/webhooks", body))
                .isNotEqualTo(IdempotentRequests.fingerprint("PUT", "/v1/keys", body))
                .isNotEqualTo(IdempotentRequests.fingerprint("POST", "/v1/keys", "{ }".getBytes()));
        assertThat(Duration.ofHours(24)).isEqualTo(IdempotentRequests.KEPT);
    }
}
