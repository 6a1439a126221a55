package pe.quipu.etl.padron;

import com.codahale.metrics.Gauge;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A padrón publication that applies a difference tells the API instances its run, and each drops the answers of the
 * RUCs that run changed, added or removed, and only those: an unchanged RUC's answer is still served from memory
 * after the load, while a changed one, an added one (404 until then, from memory) and a removed one answer the new
 * registry as soon as the instance hears of the commit. A rebuild still drops everything. The RUCs 2097xxxxxxx are
 * this class's own; the registry is emptied, and the sample put back at the end.
 */
class PublicationEvictionTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);

    private static final String CHANGED = ruc(1);
    private static final String UNCHANGED = ruc(2);
    private static final String REMOVED = ruc(3);
    private static final String ADDED = ruc(4);

    private static Path dir;
    private static String key;

    private static String ruc(int i) {
        return Ruc.completing(String.format("2097%06d", i)).value();
    }

    @BeforeAll
    static void setUp() throws IOException {
        dir = Files.createTempDirectory("quipu-publication-eviction-test-");
        quipu.database.jdbi().useHandle(h -> h.execute("delete from ruc_registry"));
        key = quipu.accounts.newKey(Scope.RUC_READ);
    }

    @AfterAll
    static void putTheSampleBack() throws IOException {
        PadronFixtures.restore(quipu.database, dir);
    }

    @Test
    void a_difference_drops_the_answers_of_what_it_changed_and_keeps_the_others() throws Exception {
        PadronDay day1 = new PadronDay(500, 97)
                .put(CHANGED, "ANTA WASI S.A.C.", "ACTIVO", "HABIDO", "150101")
                .put(UNCHANGED, "YURAQ PATA S.A.C.", "ACTIVO", "HABIDO", "150101")
                .put(REMOVED, "PUKA RUMI S.A.", "ACTIVO", "HABIDO", "150101");
        quipu.clock.set(QuipuExtension.START);
        load(day1, "day1.txt");
        // Every answer in memory, the unknown RUC's 404 too.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(lookup(UNCHANGED).statusCode()).isEqualTo(200));
        for (String ruc : new String[]{CHANGED, UNCHANGED, REMOVED}) {
            assertThat(lookup(ruc).body()).contains("\"estado\":\"ACTIVO\"");
        }
        assertThat(lookup(ADDED).statusCode()).isEqualTo(404);
        long unknownHits = gauge("unknown.hits");
        assertThat(lookup(ADDED).statusCode()).isEqualTo(404);
        assertThat(gauge("unknown.hits")).as("the unknown RUC from memory").isEqualTo(unknownHits + 1);

        PadronDay day2 = day1.next()
                .set(CHANGED, 2, "BAJA DE OFICIO")
                .remove(REMOVED)
                .put(ADDED, "MAYU PATA S.A.", "ACTIVO", "HABIDO", "150101");
        quipu.clock.set(QuipuExtension.START.plus(Duration.ofDays(1)));
        load(day2, "day2.txt");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                assertThat(lookup(CHANGED).body()).contains("\"estado\":\"BAJA DE OFICIO\""));
        assertThat(lookup(ADDED).statusCode()).isEqualTo(200);
        assertThat(lookup(REMOVED).statusCode()).isEqualTo(404);
        long hits = gauge("answers.hits");
        long misses = gauge("answers.misses");
        assertThat(lookup(UNCHANGED).body()).contains("\"estado\":\"ACTIVO\"");
        assertThat(gauge("answers.hits")).as("the unchanged RUC, still from memory").isEqualTo(hits + 1);
        assertThat(gauge("answers.misses")).isEqualTo(misses);

        // A rebuild (a fifth of the registry added: over a tenth differs) drops everything.
        assertThat(gauge("answers.size")).isPositive();
        quipu.clock.set(QuipuExtension.START.plus(Duration.ofDays(2)));
        load(day2.withGenerated(600), "day3.txt");
        await().atMost(Duration.ofSeconds(30)).until(() -> gauge("answers.size") == 0);
    }

    private static EtlRun load(PadronDay day, String name) throws IOException {
        EtlRun run = etl.run("padron", "--file", day.writeTo(dir.resolve(name)).toString());
        assertThat(run.exitCode()).as(run.stdout() + run.stderr()).isZero();
        return run;
    }

    private static HttpResponse<String> lookup(String ruc) {
        return quipu.get("/v1/ruc/" + ruc, key);
    }

    private static long gauge(String name) {
        Gauge<?> gauge = quipu.environment().metrics().getGauges().get("pe.quipu.api.ruc.Rucs." + name);
        assertThat(gauge).as(name).isNotNull();
        return ((Number) gauge.getValue()).longValue();
    }
}
