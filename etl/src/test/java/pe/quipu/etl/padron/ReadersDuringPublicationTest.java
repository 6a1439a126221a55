package pe.quipu.etl.padron;

import com.fasterxml.jackson.databind.JsonNode;
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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Readers during a publication by difference see the registry before it or after it, never a mix: lookups and
 * searches over records whose every field changes from day 1 to day 2 must each answer entirely day 1 or entirely
 * day 2 (contract §11; a publication is one transaction).
 */
class ReadersDuringPublicationTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);
    /** Records of the test's own; each changes in its name, estado, condición and address from day 1 to day 2. */
    private static final int CHANGING = 3_000;

    private static String key;
    private static Path dir;

    @BeforeAll
    static void setUp() throws IOException {
        key = quipu.accounts.newKey(Scope.RUC_READ);
        dir = Files.createTempDirectory("quipu-readers-test-");
        quipu.database.jdbi().useHandle(h -> h.execute("delete from ruc_registry"));
    }

    @AfterAll
    static void putTheSampleBack() throws IOException {
        PadronFixtures.restore(quipu.database, dir);
    }

    private static String ruc(int i) {
        return Ruc.completing(String.format(Locale.ROOT, "2097%06d", i)).value();
    }

    /** A distinct word of letters for record {@code i}: names hold letters, and search counts words. */
    private static String tag(int i) {
        StringBuilder tag = new StringBuilder();
        for (int n = i + 17_576; n > 0; n /= 26) {
            tag.append((char) ('A' + n % 26));
        }
        return tag.toString();
    }

    private static PadronDay day(int day, long generated) {
        PadronDay file = new PadronDay(generated, 31);
        for (int i = 0; i < CHANGING; i++) {
            file.put(ruc(i), "TINKUY " + (day == 1 ? "NAWPA " : "MUSUQ ") + tag(i) + " S.A.C.",
                    day == 1 ? "ACTIVO" : "BAJA DE OFICIO", day == 1 ? "HABIDO" : "NO HABIDO",
                    day == 1 ? "150101" : "150102", day == 1 ? "AV." : "JR.", day == 1 ? "NAWPA" : "MUSUQ", "-", "-",
                    String.valueOf(i));
        }
        return file;
    }

    /** Which day an answer is entirely of, or null when it mixes them. */
    private static Integer dayOf(JsonNode record) {
        String name = record.path("razonSocial").asText();
        String key = String.join("|", name.contains(" NAWPA ") ? "1" : name.contains(" MUSUQ ") ? "2" : "?",
                record.path("estado").asText(), record.path("condicion").asText(), record.path("ubigeo").asText(),
                record.path("direccion").asText().replaceAll(" NRO\\. \\d+$", ""));
        return switch (key) {
            case "1|ACTIVO|HABIDO|150101|AV. NAWPA" -> 1;
            case "2|BAJA DE OFICIO|NO HABIDO|150102|JR. MUSUQ" -> 2;
            default -> null;
        };
    }

    @Test
    void lookups_and_searches_during_a_publication_answer_entirely_day_one_or_entirely_day_two() throws Exception {
        EtlRun first = etl.run("padron", "--file", day(1, 100_000).writeTo(dir.resolve("day1.txt")).toString());
        assertThat(first.exitCode()).as(first.stdout()).isZero();
        List<String> watched = new ArrayList<>();
        for (int i = 0; i < CHANGING; i += 150) {
            watched.add(ruc(i));
        }
        AtomicInteger[] seen = {new AtomicInteger(), new AtomicInteger(), new AtomicInteger()};
        List<String> failures = Collections.synchronizedList(new ArrayList<>());

        EtlRun second = etl.runWhile(() -> {
            try {
                for (String ruc : watched) {
                    HttpResponse<String> r = quipu.get("/v1/ruc/" + ruc, key);
                    check(r, ruc, quipu.body(r), seen, failures);
                }
                HttpResponse<String> search = quipu.get("/v1/ruc?q=tinkuy&limit=50", key);
                for (JsonNode item : quipu.body(search).path("items")) {
                    check(search, "search", item, seen, failures);
                }
            } catch (RuntimeException e) {
                failures.add(e.toString());
            }
        }, "padron", "--file", day(2, 100_000).writeTo(dir.resolve("day2.txt")).toString());

        assertThat(second.exitCode()).as(second.stdout()).isZero();
        assertThat(failures).isEmpty();
        assertThat(seen[1].get()).isPositive();
        assertThat(seen[0].get()).as("answers mixing the two days").isZero();
        // A publication by difference: the same table, 3,000 of its 103,000 records changed.
        assertThat(quipu.database.texts("select count(*) from ruc_changes where load_run_id = ?", second.runId()))
                .containsExactly(String.valueOf(CHANGING));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            for (String ruc : watched) {
                assertThat(dayOf(quipu.body(quipu.get("/v1/ruc/" + ruc, key)))).isEqualTo(2);
            }
        });
    }

    private static void check(HttpResponse<String> response, String what, JsonNode record, AtomicInteger[] seen,
                              List<String> failures) {
        if (response.statusCode() != 200) {
            failures.add(what + " -> " + response.statusCode() + " " + response.body());
            return;
        }
        Integer day = dayOf(record);
        seen[day == null ? 0 : day].incrementAndGet();
        if (day == null) {
            failures.add(what + " mixes the two days: " + record);
        }
    }
}
