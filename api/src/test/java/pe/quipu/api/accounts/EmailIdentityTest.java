package pe.quipu.api.accounts;

import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.accounts.EmailIdentityBackfill;

import java.net.IDN;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * One account per mailbox, whatever the address's Unicode case, composition or domain spelling:
 * the domain as IDNA ASCII lower-cased, the local part NFKC and case-folded.
 */
class EmailIdentityTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void an_address_differing_only_in_unicode_case_is_the_same_account() {
        String tag = UUID.randomUUID().toString();
        assertThat(signup("\u00c1NA-" + tag + "@quipu.test").statusCode()).isEqualTo(201);
        assertProblem(signup("\u00e1na-" + tag + "@quipu.test"), 409, "conflict");
        // Decomposed (a + combining acute) and compatibility (fullwidth) spellings are the same mailbox too.
        assertProblem(signup("a\u0301na-" + tag + "@quipu.test"), 409, "conflict");
        assertProblem(signup("\u00c1\uff2e\uff21-" + tag + "@QUIPU.test"), 409, "conflict");
    }

    @Test
    void an_internationalised_domain_and_its_ascii_form_are_the_same_account() {
        String local = "ana-" + UUID.randomUUID();
        assertThat(signup(local + "@\u00f1AND\u00da.pe").statusCode()).isEqualTo(201);
        assertProblem(signup(local + "@" + IDN.toASCII("\u00f1and\u00fa.pe")), 409, "conflict");
    }

    @Test
    void login_and_the_operators_look_ups_accept_any_spelling_of_the_address() {
        String tag = UUID.randomUUID().toString();
        assertThat(signup("Stra\u00dfe-" + tag + "@\u00f1and\u00fa.pe").statusCode()).isEqualTo(201);
        String other = "STRASSE-" + tag + "@" + IDN.toASCII("\u00f1and\u00fa.pe").toUpperCase();
        assertThat(quipu.accounts.login(other, "0123456789").statusCode()).isEqualTo(200);
        assertThat(quipu.task("grant-admin", "email", other).statusCode()).isEqualTo(200);
    }

    @Test
    void the_login_throttle_counts_every_spelling_of_one_address_together() {
        String tag = UUID.randomUUID().toString();
        String[] spellings = {"\u00c9va-" + tag + "@quipu.test", "\u00e9va-" + tag + "@quipu.test",
                "e\u0301VA-" + tag + "@QUIPU.TEST", "\u00c9VA-" + tag + "@quipu.test", "\u00e9Va-" + tag + "@quipu.test"};
        for (String spelling : spellings) {
            assertProblem(quipu.accounts.login(spelling, "wrong password"), 401, "unauthorized");
        }
        assertProblem(quipu.accounts.login("\u00e9va-" + tag + "@Quipu.Test", "wrong password"), 429, "rate_limited");
    }

    @Test
    void a_local_part_mixing_scripts_is_refused_but_one_script_is_welcome() {
        // Digits only: a UUID's hex letters are Latin, and would mix with the Cyrillic and Japanese below.
        String tag = Long.toString(System.nanoTime());
        // A Cyrillic "а" among Latin letters: a look-alike of ana-….
        assertThat(assertProblem(signup("\u0430na-" + tag + "@quipu.test"), 400, "validation_error")
                .get("errors").findValuesAsText("field")).containsExactly("email");
        assertThat(signup("\u0430\u043d\u043d\u0430-" + tag + "@quipu.test").statusCode()).isEqualTo(201);
        assertThat(signup("\u3084\u307e\u3060\u5c71\u7530\u30bf\u30ed\u30a6-" + tag + "@quipu.test").statusCode())
                .isEqualTo(201);
    }

    @Test
    void the_backfill_gives_existing_accounts_their_identity_and_leaves_a_younger_duplicate_findable_as_before()
            throws Exception {
        String tag = UUID.randomUUID().toString();
        UUID older = UUID.randomUUID();
        UUID younger = UUID.randomUUID();
        quipu.database.jdbi().useHandle(h -> {
            // Rows as they were before changeset 012: no identity.
            h.createUpdate("insert into accounts (id, email, created_at) values (:id, :email, :at)")
                    .bind("id", older).bind("email", "\u00d3SCAR-" + tag + "@quipu.test")
                    .bind("at", Instant.parse("2026-01-01T00:00:00Z")).execute();
            h.createUpdate("insert into accounts (id, email, created_at) values (:id, :email, :at)")
                    .bind("id", younger).bind("email", "\u00f3scar-" + tag + "@quipu.test")
                    .bind("at", Instant.parse("2026-02-01T00:00:00Z")).execute();
        });
        // What changeset 021 runs, on a connection of the test's own, committed as Liquibase commits a changeset.
        try (Connection connection = quipu.database.connection()) {
            Database database = DatabaseFactory.getInstance()
                    .findCorrectDatabaseImplementation(new JdbcConnection(connection));
            new EmailIdentityBackfill().execute(database);
            database.commit();
        }
        assertThat(identity(older)).isEqualTo("\u00f3scar-" + tag + "@quipu.test");
        assertThat(identity(younger)).isNull();
        assertProblem(signup("o\u0301scar-" + tag + "@quipu.test"), 409, "conflict");
        // The younger is still the operator's by its exact address (lower() as before).
        assertThat(quipu.task("grant-admin", "email", "\u00f3scar-" + tag + "@QUIPU.test").statusCode()).isEqualTo(200);
        boolean admin = quipu.database.jdbi().withHandle(h -> h.createQuery(
                "select is_admin from accounts where id = :id").bind("id", younger).mapTo(Boolean.class).one());
        assertThat(admin).isTrue();
    }

    private static String identity(UUID id) {
        return quipu.database.jdbi().withHandle(h -> h.createQuery(
                "select email_identity from accounts where id = :id").bind("id", id).mapTo(String.class).one());
    }

    private static HttpResponse<String> signup(String email) {
        return quipu.post("/v1/auth/signup", null, "application/json",
                "{\"email\":\"" + email + "\",\"password\":\"0123456789\",\"nombre\":\"Ana\"}");
    }
}
