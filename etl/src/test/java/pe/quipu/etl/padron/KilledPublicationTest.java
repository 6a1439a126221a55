package pe.quipu.etl.padron;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.etl.testing.ChildEtl;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A padrón load killed (SIGKILL) while it applies its difference to the registry in service: the previous registry
 * keeps serving, with its indexes, words and change log as they were, no {@code ruc.changed} event exists for a change
 * that did not publish, and the next load succeeds and writes them.
 */
class KilledPublicationTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);
    private static final Instant DAY_1 = Instant.parse("2026-11-10T11:00:00Z");
    private static final Instant DAY_2 = Instant.parse("2026-11-11T11:00:00Z");
    private static final int CHANGING = 200;

    private static String key;
    private static Path dir;

    @BeforeAll
    static void setUp() throws IOException {
        key = quipu.accounts.newKey(Scope.RUC_READ);
        dir = Files.createTempDirectory("quipu-killed-publication-test-");
        quipu.database.jdbi().useHandle(h -> h.execute("delete from ruc_registry"));
    }

    @AfterAll
    static void putTheSampleBack() throws IOException {
        PadronFixtures.restore(quipu.database, dir);
    }

    private static String ruc(int i) {
        return Ruc.completing(String.format(Locale.ROOT, "2096%06d", i)).value();
    }

    private static PadronDay day(int day) {
        PadronDay file = new PadronDay(20_000, 41);
        for (int i = 0; i < CHANGING; i++) {
            file.put(ruc(i), (day == 1 ? "WATAQ " : "HAMUQ ") + "KILLA " + (char) ('A' + i % 26) + " S.A.C.",
                    day == 1 ? "ACTIVO" : "BAJA DE OFICIO", "HABIDO", "150101");
        }
        return file;
    }

    @Test
    void a_load_killed_while_it_applies_its_difference_leaves_the_previous_registry_serving() throws Exception {
        quipu.clock.set(DAY_1);
        assertThat(etl.run("padron", "--file", day(1).writeTo(dir.resolve("day1.txt")).toString()).exitCode())
                .isZero();
        Path day2 = day(2).writeTo(dir.resolve("day2.txt"));
        List<String> registry = registry();
        List<String> words = words();
        List<String> indexes = indexes();
        long logged = count("select count(*) from ruc_changes");
        // An account watching ten of the RUCs the load changes, with an endpoint subscribed to ruc.changed (written
        // as the API writes one: only the event's existence matters here, RucChangedEventsTest delivers them).
        String watcherKey = quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE);
        UUID watcher = quipu.accounts.accountOf(watcherKey);
        assertThat(quipu.put("/v1/watchlists/vigilados", watcherKey, "application/json", "{\"rucs\":["
                + java.util.stream.IntStream.range(0, 10).mapToObj(i -> "\"" + ruc(i) + "\"")
                .collect(java.util.stream.Collectors.joining(",")) + "]}").statusCode()).isEqualTo(201);
        quipu.database.jdbi().useHandle(h -> {
            UUID endpoint = UUID.randomUUID();
            h.execute("insert into webhook_endpoints (id, account_id, url, host, port, pinned_address, active, secret,"
                    + " created_at, updated_at) values (?, ?, 'https://127.0.0.1:9/x', '127.0.0.1', 9, '127.0.0.1',"
                    + " true, 'whsec_killed', now(), now())", endpoint, watcher);
            h.execute("insert into webhook_subscriptions (endpoint_id, event_type, since_seq)"
                    + " select ?, 'ruc.changed', coalesce(max(seq), 0) from events", endpoint);
        });
        String watched = "select count(*) from events where type = 'ruc.changed' and account_id = '" + watcher + "'";
        List<String> loads = quipu.database.texts("select concat_ws(',', rows, loaded_at, added, changed, removed)"
                + " from dataset_loads where dataset = 'padron'");

        try (Connection blocker = quipu.database.connection(); ChildEtl child = ChildEtl.start(quipu.database,
                "padron", "--file", day2.toString())) {
            // A reader's row lock on one of the records the load changes: the load stops inside its update, in the
            // middle of its transaction (the words and the removals already applied), until it is killed.
            blocker.setAutoCommit(false);
            try (Statement s = blocker.createStatement()) {
                s.execute("select 1 from ruc_registry where ruc = '" + ruc(CHANGING - 1) + "' for update");
            }
            await().atMost(Duration.ofSeconds(90)).until(() -> {
                assertThat(child.process().isAlive()).as(child.log()).isTrue();
                return count("select count(*) from pg_stat_activity where application_name = '"
                        + child.applicationName() + "' and wait_event_type = 'Lock'"
                        + " and query like 'update ruc_registry %'") == 1;
            });

            child.process().destroyForcibly();
            assertThat(child.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(child.process().exitValue()).as("SIGKILL").isEqualTo(137);
            blocker.rollback();
            // The server notices the lost connection within a second (client_connection_check_interval) and rolls
            // the publication back.
            await().atMost(Duration.ofSeconds(30)).until(() -> count("select count(*) from pg_stat_activity"
                    + " where application_name = '" + child.applicationName() + "'") == 0);
        }

        assertThat(registry()).isEqualTo(registry);
        assertThat(words()).isEqualTo(words);
        assertThat(indexes()).isEqualTo(indexes);
        assertThat(count("select count(*) from ruc_changes")).isEqualTo(logged);
        assertThat(count(watched)).as("no event for a change that did not publish").isZero();
        assertThat(quipu.database.texts("select concat_ws(',', rows, loaded_at, added, changed, removed)"
                + " from dataset_loads where dataset = 'padron'")).isEqualTo(loads);
        assertThat(quipu.body(quipu.get("/v1/ruc/" + ruc(0), key)).path("estado").asText()).isEqualTo("ACTIVO");
        assertThat(quipu.body(quipu.get("/v1/ruc?q=wataq", key)).path("items")).isNotEmpty();

        // The next load drops what the killed one staged, marks it failed, and publishes.
        quipu.clock.set(DAY_2);
        EtlRun next = etl.run("padron", "--file", day2.toString());

        assertThat(next.exitCode()).as(next.stdout()).isZero();
        assertThat(quipu.database.texts("select kind || ' ' || count(*) from ruc_changes where load_run_id = ?"
                + " group by kind", next.runId())).containsExactly("changed " + CHANGING);
        assertThat(quipu.database.texts("select data->>'ruc' from events where type = 'ruc.changed'"
                + " and account_id = ? and (data->>'loadRunId')::bigint = ? order by 1", watcher, next.runId()))
                .isEqualTo(java.util.stream.IntStream.range(0, 10).mapToObj(KilledPublicationTest::ruc).toList());
        assertThat(count(watched)).isEqualTo(10);
        assertThat(quipu.database.texts("select status from batch_job_execution where job_execution_id = ?",
                next.runId() - 1)).containsExactly("FAILED");
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(
                quipu.body(quipu.get("/v1/ruc/" + ruc(0), key)).path("estado").asText()).isEqualTo("BAJA DE OFICIO"));
        assertThat(quipu.body(quipu.get("/v1/ruc?q=wataq", key)).path("items")).isEmpty();
        RegistryChangesTest.assertWordsExact();
        assertThat(count("select count(*) from pg_tables where tablename like 'ruc_registry_%'"
                + " and tablename <> 'ruc_registry_words'")).isZero();
    }

    private static List<String> registry() {
        return quipu.database.texts("select ruc || ' ' || content_hash || ' ' || actualizado || ' ' || nombre_busqueda"
                + " from ruc_registry order by ruc");
    }

    private static List<String> words() {
        return quipu.database.texts("select word || ' ' || occurrences from ruc_registry_words order by word");
    }

    private static List<String> indexes() {
        return quipu.database.texts("select indexname || ' ' || indexdef from pg_indexes"
                + " where tablename in ('ruc_registry', 'ruc_registry_words') order by indexname");
    }

    private static long count(String sql) {
        return Long.parseLong(quipu.database.texts(sql).getFirst());
    }
}
