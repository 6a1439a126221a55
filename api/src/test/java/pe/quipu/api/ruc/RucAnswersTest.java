package pe.quipu.api.ruc;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.LogCapture;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static pe.quipu.api.ruc.RucFixture.etag;

/**
 * Answers kept in memory stay exact: whatever writes the registry, every instance answers the new record (and a
 * new ETag) once the write commits, including while its notification connection is down.
 */
class RucAnswersTest {

    private static final String RUC = "20100227461";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static RucFixture registry;

    @BeforeAll
    static void load() {
        registry = RucFixture.load(quipu);
    }

    @AfterEach
    void putTheSampleBack() {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        // The restore reaches the instance by its notification, a moment after the commit, like any change: the next
        // test starts once it has, or its first lookup could still be answered from what this test left in memory.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(lookup(quipu).body()).contains("\"estado\":\"ACTIVO\""));
    }

    @Test
    void a_change_committed_by_any_writer_is_answered_by_every_instance_once_it_commits() throws Exception {
        List<QuipuClient> instances = List.of(quipu, quipu.peer());
        for (QuipuClient instance : instances) {
            // Twice: the second answer comes from memory.
            lookup(instance);
            assertThat(lookup(instance).body()).contains("\"estado\":\"ACTIVO\"");
        }
        String before = etag(lookup(quipu));

        setEstado("BAJA DE OFICIO");

        for (QuipuClient instance : instances) {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(lookup(instance).body()).contains("\"estado\":\"BAJA DE OFICIO\""));
            HttpResponse<String> revalidated = registry.lookup(instance, RUC, "If-None-Match", before);
            assertThat(revalidated.statusCode()).isEqualTo(200);
            assertThat(etag(revalidated)).isNotEqualTo(before);
            HttpResponse<String> batch = registry.batch(instance, "{\"rucs\":[\"" + RUC + "\"]}");
            assertThat(batch.body()).contains("\"estado\":\"BAJA DE OFICIO\"");
        }
    }

    @Test
    void while_changes_cannot_be_heard_every_lookup_reads_the_database() throws Exception {
        assertThat(lookup(quipu).body()).contains("\"estado\":\"ACTIVO\"");
        assertThat(lookup(quipu).body()).contains("\"estado\":\"ACTIVO\"");

        try (LogCapture logs = LogCapture.start()) {
            // Cut this instance's LISTEN connection; the change below is notified to nobody.
            try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
                s.execute("select pg_terminate_backend(pid) from pg_stat_activity"
                        + " where application_name like '%listener%' and pid <> pg_backend_pid()");
            }
            await().atMost(Duration.ofSeconds(5)).until(() -> logs.events().stream()
                    .anyMatch(e -> e.getFormattedMessage().startsWith("Lost the notification listener's connection")));
            // Read while deaf (the connection comes back after a second): not kept, so not served after the change.
            assertThat(lookup(quipu).body()).contains("\"estado\":\"ACTIVO\"");
            setEstado("SUSPENSION TEMPORAL");

            assertThat(lookup(quipu).body()).contains("\"estado\":\"SUSPENSION TEMPORAL\"");
        }
        // Listening again: answers are kept again, and they are the current ones.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(lookup(quipu).body()).contains("\"estado\":\"SUSPENSION TEMPORAL\""));
        setEstado("ACTIVO");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(lookup(quipu).body()).contains("\"estado\":\"ACTIVO\""));
    }

    private static HttpResponse<String> lookup(QuipuClient instance) {
        HttpResponse<String> response = registry.lookup(instance, RUC);
        assertThat(response.statusCode()).isEqualTo(200);
        return response;
    }

    private static void setEstado(String estado) throws Exception {
        registry.setEstado(RUC, estado);
    }
}
