package pe.quipu.api.keys;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;
import pe.quipu.core.events.EventOutbox;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/** {@code /v1/keys} (contract §2): an account holder lists, creates, rotates and revokes its API keys. */
class KeysTest {

    private static final String LOOKUP = "/v1/ubigeos/150101";
    private static final List<String> KEY_FIELDS =
            List.of("id", "name", "prefix", "scopes", "status", "createdAt", "lastUsedAt", "expiresAt");

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void a_new_key_is_answered_once_with_its_secret_and_works_at_once() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        HttpResponse<String> response = create(session.accessToken(),
                "{\"name\":\"  Producción  \",\"scopes\":[\"ubigeos:read\",\"ruc:read\",\"ubigeos:read\"]}");

        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode key = quipu.body(response);
        List<String> fields = new ArrayList<>(KEY_FIELDS);
        fields.add("key");
        assertThat(fieldNames(key)).containsExactlyElementsOf(fields);
        String secret = key.get("key").asText();
        assertThat(secret).matches("qk_live_[0-9A-Za-z]{40}");
        assertThat(key.get("prefix").asText()).isEqualTo(secret.substring(0, 14));
        assertThat(key.get("name").asText()).isEqualTo("Producción");
        assertThat(key.get("scopes").toString()).isEqualTo("[\"ruc:read\",\"ubigeos:read\"]");
        assertThat(key.get("status").asText()).isEqualTo("active");
        assertThat(key.get("createdAt").asText()).isEqualTo(quipu.clock.instant().toString());
        assertThat(key.get("lastUsedAt").isNull()).isTrue();
        assertThat(key.get("expiresAt").isNull()).isTrue();

        assertThat(quipu.get(LOOKUP, secret).statusCode()).isEqualTo(200);
        assertProblem(quipu.get("/v1/tipo-cambio", secret), 403, "forbidden_scope");

        // Listed without its secret.
        JsonNode listed = list(session.accessToken());
        assertThat(listed.size()).isEqualTo(1);
        assertThat(fieldNames(listed.get(0))).containsExactlyElementsOf(KEY_FIELDS);
        assertThat(listed.get(0).get("id")).isEqualTo(key.get("id"));
        assertThat(listed.toString()).doesNotContain(secret);

        List<JsonNode> events = events(session.accountId());
        assertThat(events).hasSize(1);
        assertThat(events.getFirst().get("type").asText()).isEqualTo("key.created");
        assertThat(events.getFirst().get("data")).isEqualTo(quipu.json.readTree("{\"keyId\":\"" + key.get("id").asText()
                + "\",\"name\":\"Producción\",\"prefix\":\"" + secret.substring(0, 14)
                + "\",\"scopes\":[\"ruc:read\",\"ubigeos:read\"]}"));
        List<JsonNode> audit = audit(session.accountId(), "key.%");
        assertThat(audit).hasSize(1);
        assertThat(audit.getFirst().get("action").asText()).isEqualTo("key.created");
        assertThat(audit.getFirst().get("details").get("keyId")).isEqualTo(key.get("id"));
        assertThat(audit.getFirst().get("userAgent").asText()).isNotBlank();
        assertThat(audit.getFirst().toString()).doesNotContain(secret);
    }

    @Test
    void the_instants_answered_at_creation_and_rotation_are_those_listed_later() {
        TestAccounts.Session session = quipu.accounts.newSession();
        Instant start = quipu.clock.instant();
        quipu.clock.set(start.plusNanos(123_456_789)); // finer than PostgreSQL keeps
        JsonNode created = created(session.accessToken(), "precise", "ruc:read");
        JsonNode rotated = quipu.body(quipu.post("/v1/keys/" + created.get("id").asText() + "/rotate",
                session.accessToken(), null, ""));
        JsonNode items = list(session.accessToken());
        assertThat(items.findValuesAsText("createdAt")).containsOnly(created.get("createdAt").asText(),
                rotated.get("createdAt").asText());
        assertThat(created.get("createdAt").asText()).isEqualTo(start.plusNanos(123_456_000).toString());
    }

    @Test
    void keys_are_listed_newest_first_and_only_the_accounts_own() {
        TestAccounts.Session session = quipu.accounts.newSession();
        TestAccounts.Session other = quipu.accounts.newSession();
        String first = created(session.accessToken(), "first", "ruc:read").get("id").asText();
        quipu.clock.advance(Duration.ofSeconds(1));
        String second = created(session.accessToken(), "second", "ruc:read").get("id").asText();
        created(other.accessToken(), "someone else's", "ruc:read");

        JsonNode items = list(session.accessToken());
        assertThat(items.findValuesAsText("id")).containsExactly(second, first);
    }

    @Test
    void the_key_endpoints_take_only_a_sessions_access_token() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String apiKey = created(session.accessToken(), "k", "ubigeos:read", "webhooks:manage").get("key").asText();
        String id = list(session.accessToken()).get(0).get("id").asText();

        assertProblem(quipu.get("/v1/keys", apiKey), 401, "unauthorized");
        assertProblem(quipu.get("/v1/keys", null), 401, "unauthorized");
        assertProblem(create(apiKey, "{\"name\":\"x\",\"scopes\":[\"ruc:read\"]}"), 401, "unauthorized");
        assertProblem(quipu.post("/v1/keys/" + id + "/rotate", apiKey, null, ""), 401, "unauthorized");
        assertProblem(quipu.request("DELETE", "/v1/keys/" + id, apiKey), 401, "unauthorized");
        assertProblem(quipu.get("/v1/keys", "not-a-token"), 401, "unauthorized");
        assertThat(list(session.accessToken()).size()).isEqualTo(1);
    }

    @Test
    void a_bad_body_lists_every_fault_and_an_unknown_scope_is_named() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();

        HttpResponse<String> unknown = create(session.accessToken(),
                "{\"name\":\"ci\",\"scopes\":[\"ruc:read\",\"ruc:write\"]}");
        JsonNode problem = assertProblem(unknown, 400, "validation_error");
        assertThat(problem.get("detail").asText()).contains("ruc:write");
        assertThat(problem.get("errors").get(0).get("field").asText()).isEqualTo("scopes[1]");

        JsonNode all = assertProblem(create(session.accessToken(),
                "{\"name\":\"   \",\"scopes\":[],\"expires\":1}"), 400, "validation_error");
        assertThat(all.get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("name", "scopes", "expires");

        assertThat(assertProblem(create(session.accessToken(), "{}"), 400, "validation_error")
                .get("errors").findValuesAsText("field")).containsExactlyInAnyOrder("name", "scopes");
        assertProblem(create(session.accessToken(), "{\"name\":\"" + "n".repeat(101) + "\",\"scopes\":[\"ruc:read\"]}"),
                400, "validation_error");
        assertProblem(create(session.accessToken(), "{\"name\":\"a\\u0000b\",\"scopes\":[\"ruc:read\"]}"),
                400, "validation_error");
        assertProblem(create(session.accessToken(), "{\"name\":\"x\",\"scopes\":\"ruc:read\"}"), 400, "validation_error");
        assertProblem(create(session.accessToken(), "[\"ruc:read\"]"), 400, "validation_error");
        assertProblem(create(session.accessToken(), "{\"name\":"), 400, "validation_error");
        assertProblem(quipu.post("/v1/keys", session.accessToken(), "text/plain",
                "{\"name\":\"x\",\"scopes\":[\"ruc:read\"]}"), 415, "unsupported_media_type");

        // 100 characters is the most a name may have.
        assertThat(create(session.accessToken(), "{\"name\":\"" + "ñ".repeat(100) + "\",\"scopes\":[\"ruc:read\"]}")
                .statusCode()).isEqualTo(201);
        assertThat(list(session.accessToken()).size()).isEqualTo(1);
        assertThat(events(session.accountId())).hasSize(1);
    }

    @Test
    void rotation_gives_a_new_key_and_the_old_one_works_through_its_grace_only() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        JsonNode old = created(session.accessToken(), "backend", "ubigeos:read", "ruc:read");
        String oldSecret = old.get("key").asText();
        assertThat(quipu.get(LOOKUP, oldSecret).statusCode()).isEqualTo(200); // cached from here on

        Instant start = quipu.clock.instant();
        quipu.clock.advance(Duration.ofSeconds(1)); // so that "newest first" has a meaning
        HttpResponse<String> response = quipu.post("/v1/keys/" + old.get("id").asText() + "/rotate",
                session.accessToken(), null, "");
        quipu.clock.set(start);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode rotated = quipu.body(response);
        String newSecret = rotated.get("key").asText();
        assertThat(rotated.get("id")).isNotEqualTo(old.get("id"));
        assertThat(newSecret).matches("qk_live_[0-9A-Za-z]{40}").isNotEqualTo(oldSecret);
        assertThat(rotated.get("name").asText()).isEqualTo("backend");
        assertThat(rotated.get("scopes")).isEqualTo(old.get("scopes"));
        assertThat(rotated.get("status").asText()).isEqualTo("active");

        Instant graceEnds = start.plusSeconds(1).plus(Duration.ofHours(24));
        JsonNode items = list(session.accessToken());
        assertThat(items.findValuesAsText("id")).containsExactly(rotated.get("id").asText(), old.get("id").asText());
        assertThat(items.get(1).get("status").asText()).isEqualTo("grace");
        assertThat(items.get(1).get("expiresAt").asText()).isEqualTo(graceEnds.toString());
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("select replaced_by from api_keys where id = ?::uuid")) {
            q.setString(1, old.get("id").asText());
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo(rotated.get("id").asText());
            }
        }

        // Both work during the grace; at its end the old one fails and shows as revoked.
        assertThat(quipu.get(LOOKUP, oldSecret).statusCode()).isEqualTo(200);
        assertThat(quipu.get(LOOKUP, newSecret).statusCode()).isEqualTo(200);
        quipu.clock.set(graceEnds.minusSeconds(1));
        assertThat(quipu.get(LOOKUP, oldSecret).statusCode()).isEqualTo(200);
        quipu.clock.set(graceEnds);
        assertProblem(quipu.get(LOOKUP, oldSecret), 401, "unauthorized");
        assertThat(quipu.get(LOOKUP, newSecret).statusCode()).isEqualTo(200);
        JsonNode later = list(login(session));
        assertThat(later.get(1).get("status").asText()).isEqualTo("revoked");
        assertThat(later.get(0).get("status").asText()).isEqualTo("active");

        List<JsonNode> events = events(session.accountId());
        assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("key.created", "key.rotated");
        JsonNode data = events.get(1).get("data");
        assertThat(data.get("keyId")).isEqualTo(rotated.get("id"));
        assertThat(data.get("name").asText()).isEqualTo("backend");
        assertThat(data.get("prefix").asText()).isEqualTo(newSecret.substring(0, 14));
        assertThat(data.get("scopes")).isEqualTo(rotated.get("scopes"));
        assertThat(data.get("previousKeyId")).isEqualTo(old.get("id"));
        assertThat(data.get("previousPrefix").asText()).isEqualTo(oldSecret.substring(0, 14));
        assertThat(data.get("previousExpiresAt").asText()).isEqualTo(graceEnds.toString());
        assertThat(data.toString()).doesNotContain(newSecret).doesNotContain(oldSecret);
        List<JsonNode> audit = audit(session.accountId(), "key.rotated");
        assertThat(audit).hasSize(1);
        assertThat(audit.getFirst().get("details").get("keyId")).isEqualTo(rotated.get("id"));
        assertThat(audit.getFirst().get("details").get("previousKeyId")).isEqualTo(old.get("id"));
    }

    @Test
    void only_an_active_key_of_ones_own_can_be_rotated() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        String token = session.accessToken();
        String first = created(token, "k", "ruc:read").get("id").asText();
        String second = quipu.body(quipu.post("/v1/keys/" + first + "/rotate", token, null, "")).get("id").asText();

        JsonNode grace = assertProblem(quipu.post("/v1/keys/" + first + "/rotate", token, null, ""), 409, "conflict");
        assertThat(grace.get("detail").asText()).contains("grace");
        assertThat(quipu.request("DELETE", "/v1/keys/" + second, token).statusCode()).isEqualTo(204);
        assertProblem(quipu.post("/v1/keys/" + second + "/rotate", token, null, ""), 409, "conflict");

        TestAccounts.Session stranger = quipu.accounts.newSession();
        String theirs = created(stranger.accessToken(), "theirs", "ruc:read").get("id").asText();
        assertProblem(quipu.post("/v1/keys/" + theirs + "/rotate", token, null, ""), 404, "not_found");
        assertProblem(quipu.post("/v1/keys/" + UUID.randomUUID() + "/rotate", token, null, ""), 404, "not_found");
        assertProblem(quipu.post("/v1/keys/not-a-uuid/rotate", token, null, ""), 404, "not_found");
        assertProblem(quipu.post("/v1/keys/1-1-1-1-1/rotate", token, null, ""), 404, "not_found");

        assertThat(events(session.accountId())).extracting(e -> e.get("type").asText())
                .containsExactly("key.created", "key.rotated", "key.revoked");
        assertThat(events(stranger.accountId())).hasSize(1);
        assertThat(list(stranger.accessToken()).get(0).get("status").asText()).isEqualTo("active");
    }

    @Test
    void a_revoked_key_fails_from_the_next_request_and_revoking_again_changes_nothing() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        JsonNode key = created(session.accessToken(), "to revoke", "ubigeos:read");
        String secret = key.get("key").asText();
        String path = "/v1/keys/" + key.get("id").asText();
        assertThat(quipu.get(LOOKUP, secret).statusCode()).isEqualTo(200); // cached

        HttpResponse<String> revoked = quipu.request("DELETE", path, session.accessToken());
        assertThat(revoked.statusCode()).isEqualTo(204);
        assertThat(revoked.body()).isEmpty();
        // No waiting: the instance that revoked it forgets it before answering.
        assertProblem(quipu.get(LOOKUP, secret), 401, "unauthorized");

        JsonNode listed = list(session.accessToken()).get(0);
        assertThat(listed.get("status").asText()).isEqualTo("revoked");

        assertThat(quipu.request("DELETE", path, session.accessToken()).statusCode()).isEqualTo(204);
        List<JsonNode> events = events(session.accountId());
        assertThat(events).extracting(e -> e.get("type").asText()).containsExactly("key.created", "key.revoked");
        assertThat(events.get(1).get("data")).isEqualTo(quipu.json.readTree("{\"keyId\":\"" + key.get("id").asText()
                + "\",\"name\":\"to revoke\",\"prefix\":\"" + secret.substring(0, 14)
                + "\",\"scopes\":[\"ubigeos:read\"]}"));
        assertThat(audit(session.accountId(), "key.revoked")).hasSize(1);

        TestAccounts.Session stranger = quipu.accounts.newSession();
        assertProblem(quipu.request("DELETE", path, stranger.accessToken()), 404, "not_found");
        assertProblem(quipu.request("DELETE", "/v1/keys/" + UUID.randomUUID(), session.accessToken()), 404, "not_found");
        assertProblem(quipu.request("DELETE", "/v1/keys/xyz", session.accessToken()), 404, "not_found");
    }

    @Test
    void an_account_holds_at_most_50_working_keys() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        KeyIssuer issuer = new KeyIssuer(quipu.clock, new EventOutbox(quipu.clock, quipu.json));
        quipu.database.jdbi().useTransaction(h -> {
            for (int i = 0; i < 48; i++) {
                issuer.issue(h, session.accountId(), "bulk " + i, EnumSet.of(Scope.RUC_READ));
            }
        });
        String fortyNinth = created(session.accessToken(), "49th", "ruc:read").get("id").asText();
        assertThat(quipu.post("/v1/keys/" + fortyNinth + "/rotate", session.accessToken(), null, "").statusCode())
                .isEqualTo(201); // 49 active + 1 in grace
        JsonNode full = assertProblem(create(session.accessToken(), "{\"name\":\"51st\",\"scopes\":[\"ruc:read\"]}"),
                409, "conflict");
        assertThat(full.get("detail").asText()).contains("50");
        String anyActive = list(session.accessToken()).get(0).get("id").asText();
        assertProblem(quipu.post("/v1/keys/" + anyActive + "/rotate", session.accessToken(), null, ""), 409, "conflict");

        // The key in grace counts until its grace ends or it is revoked.
        assertThat(quipu.request("DELETE", "/v1/keys/" + fortyNinth, session.accessToken()).statusCode()).isEqualTo(204);
        assertThat(create(session.accessToken(), "{\"name\":\"again\",\"scopes\":[\"ruc:read\"]}").statusCode())
                .isEqualTo(201);
        assertThat(events(session.accountId()).stream().filter(e -> e.get("type").asText().equals("key.created")))
                .hasSize(50);
    }

    @Test
    void keys_that_stopped_working_stay_listed_for_90_days() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        String recent = created(session.accessToken(), "recent", "ruc:read").get("id").asText();
        String old = created(session.accessToken(), "old", "ruc:read").get("id").asText();
        String working = created(session.accessToken(), "working", "ruc:read").get("id").asText();
        assertThat(quipu.request("DELETE", "/v1/keys/" + recent, session.accessToken()).statusCode()).isEqualTo(204);
        assertThat(quipu.request("DELETE", "/v1/keys/" + old, session.accessToken()).statusCode()).isEqualTo(204);
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("update api_keys set revoked_at = ? where id = ?::uuid")) {
            q.setTimestamp(1, Timestamp.from(quipu.clock.instant().minus(Duration.ofDays(91))));
            q.setString(2, old);
            q.executeUpdate();
            q.setTimestamp(1, Timestamp.from(quipu.clock.instant().minus(Duration.ofDays(89))));
            q.setString(2, recent);
            q.executeUpdate();
        }
        assertThat(list(session.accessToken()).findValuesAsText("id")).containsExactlyInAnyOrder(working, recent);
    }

    @Test
    void a_revocation_reaches_every_instance_and_the_whole_lifecycle_holds_on_both() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();

        JsonNode first = created(session.accessToken(), "tienda", "ubigeos:read");
        String firstSecret = first.get("key").asText();
        assertThat(quipu.get(LOOKUP, firstSecret).statusCode()).isEqualTo(200);
        assertThat(quipu.peer().get(LOOKUP, firstSecret).statusCode()).isEqualTo(200);

        // Rotated through the second instance: both keys work on both instances.
        HttpResponse<String> rotation = quipu.peer().post("/v1/keys/" + first.get("id").asText() + "/rotate",
                session.accessToken(), null, "");
        assertThat(rotation.statusCode()).as(rotation.body()).isEqualTo(201);
        JsonNode second = quipu.body(rotation);
        String secondSecret = second.get("key").asText();
        for (String secret : List.of(firstSecret, secondSecret)) {
            assertThat(quipu.get(LOOKUP, secret).statusCode()).isEqualTo(200);
            assertThat(quipu.peer().get(LOOKUP, secret).statusCode()).isEqualTo(200);
        }

        quipu.clock.advance(Duration.ofHours(24).plusSeconds(1));
        // The first instance heard of the rotation by notification: it knows when the old key's grace ends.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> quipu.get(LOOKUP, firstSecret).statusCode() == 401);
        assertProblem(quipu.peer().get(LOOKUP, firstSecret), 401, "unauthorized");
        assertThat(quipu.get(LOOKUP, secondSecret).statusCode()).isEqualTo(200);
        assertThat(quipu.peer().get(LOOKUP, secondSecret).statusCode()).isEqualTo(200);

        // The access token of the first login has expired meanwhile: log in again, and revoke.
        String token = login(session);
        assertThat(quipu.request("DELETE", "/v1/keys/" + second.get("id").asText(), token).statusCode())
                .isEqualTo(204);
        assertProblem(quipu.get(LOOKUP, secondSecret), 401, "unauthorized");
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
                .until(() -> quipu.peer().get(LOOKUP, secondSecret).statusCode() == 401);
        assertProblem(quipu.peer().get(LOOKUP, secondSecret), 401, "unauthorized");

        assertThat(list(token).findValuesAsText("status")).containsExactly("revoked", "revoked");

        List<JsonNode> events = events(session.accountId());
        assertThat(events).extracting(e -> e.get("type").asText())
                .containsExactly("key.created", "key.rotated", "key.revoked");
        assertThat(events.get(0).get("data").get("keyId")).isEqualTo(first.get("id"));
        assertThat(events.get(1).get("data").get("keyId")).isEqualTo(second.get("id"));
        assertThat(events.get(1).get("data").get("previousKeyId")).isEqualTo(first.get("id"));
        assertThat(events.get(2).get("data").get("keyId")).isEqualTo(second.get("id"));
        assertThat(audit(session.accountId(), "key.%")).extracting(a -> a.get("action").asText())
                .containsExactly("key.created", "key.rotated", "key.revoked");
    }

    @Test
    void last_use_is_written_in_batches_without_evicting_the_cached_key() throws Exception {
        TestAccounts.Session session = quipu.accounts.newSession();
        JsonNode key = created(session.accessToken(), "measured", "ubigeos:read");
        String id = key.get("id").asText();
        String secret = key.get("key").asText();
        Instant used = quipu.clock.instant();
        assertThat(quipu.get(LOOKUP, secret).statusCode()).isEqualTo(200);

        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                .until(() -> !list(session.accessToken()).get(0).get("lastUsedAt").isNull());
        assertThat(list(session.accessToken()).get(0).get("lastUsedAt").asText()).isEqualTo(used.toString());

        // Revoke the key behind the caches' back (no trigger, so no notification): the instance still has it cached.
        try (Connection c = quipu.database.connection(); var s = c.createStatement()) {
            s.execute("set session_replication_role = replica");
            s.executeUpdate("update api_keys set status = 'revoked', revoked_at = now() where id = '" + id + "'");
        }
        try {
            quipu.clock.advance(Duration.ofMinutes(1));
            Instant later = quipu.clock.instant();
            assertThat(quipu.get(LOOKUP, secret).statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(200))
                    .until(() -> later.equals(lastUsedAt(id)));
            // Had the flush's write notified, the instance would have reloaded the key and found it revoked.
            assertThat(quipu.get(LOOKUP, secret).statusCode()).isEqualTo(200);
        } finally {
            try (Connection c = quipu.database.connection(); var s = c.createStatement()) {
                s.executeUpdate("update api_keys set status = 'revoked' where id = '" + id + "'");
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> quipu.get(LOOKUP, secret).statusCode() == 401);
    }

    private Instant lastUsedAt(String id) throws SQLException {
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("select last_used_at from api_keys where id = ?::uuid")) {
            q.setString(1, id);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                Timestamp at = rs.getTimestamp(1);
                return at == null ? null : at.toInstant();
            }
        }
    }

    private HttpResponse<String> create(String token, String body) {
        return quipu.post("/v1/keys", token, "application/json", body);
    }

    private JsonNode created(String token, String name, String... scopes) {
        HttpResponse<String> response = create(token, "{\"name\":\"" + name + "\",\"scopes\":["
                + String.join(",", java.util.Arrays.stream(scopes).map(s -> "\"" + s + "\"").toList()) + "]}");
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return quipu.body(response);
    }

    private JsonNode list(String token) {
        HttpResponse<String> response = quipu.get("/v1/keys", token);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode body = quipu.body(response);
        assertThat(fieldNames(body)).containsExactly("items");
        return body.get("items");
    }

    /** A fresh access token for the session's account, valid at the clock's current instant. */
    private String login(TestAccounts.Session session) {
        HttpResponse<String> login = quipu.post("/v1/auth/login", null, "application/json",
                "{\"email\":\"" + session.email() + "\",\"password\":\"" + session.password() + "\"}");
        assertThat(login.statusCode()).isEqualTo(200);
        return quipu.body(login).get("accessToken").asText();
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** The account's events, oldest first, each as {type, data}. */
    private List<JsonNode> events(UUID accountId) throws Exception {
        List<JsonNode> events = new ArrayList<>();
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement(
                     "select type, data from events where account_id = ? and type like 'key.%' order by seq")) {
            q.setObject(1, accountId);
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    events.add(quipu.json.createObjectNode().put("type", rs.getString(1))
                            .set("data", quipu.json.readTree(rs.getString(2))));
                }
            }
        }
        return events;
    }

    /** The account's audit rows whose action is like {@code action}, oldest first. */
    private List<JsonNode> audit(UUID accountId, String action) throws Exception {
        List<JsonNode> rows = new ArrayList<>();
        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement("""
                     select action, ip, user_agent, details from audit_log
                      where account_id = ? and action like ? order by id""")) {
            q.setObject(1, accountId);
            q.setString(2, action);
            try (ResultSet rs = q.executeQuery()) {
                while (rs.next()) {
                    rows.add(quipu.json.createObjectNode().put("action", rs.getString(1)).put("ip", rs.getString(2))
                            .put("userAgent", rs.getString(3)).set("details", quipu.json.readTree(rs.getString(4))));
                }
            }
        }
        return rows;
    }
}
