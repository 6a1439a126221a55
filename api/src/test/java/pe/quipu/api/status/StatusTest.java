package pe.quipu.api.status;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateSeries;

import java.math.BigDecimal;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class StatusTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void status_is_public_and_reports_every_dataset() {
        HttpResponse<String> response = quipu.get("/v1/status", null);

        assertThat(response.statusCode()).isEqualTo(200);
        JsonNode body = quipu.body(response);
        assertThat(body.path("version").asText()).isNotBlank();
        // config.yml without QUIPU_ENV: development, said where anyone can see it.
        assertThat(body.path("environment").asText()).isEqualTo("development");
        assertThat(body.path("registry").has("rows")).isTrue();
        assertThat(body.path("registry").has("loadedAt")).isTrue();
        assertThat(body.path("registry").has("lastPublication")).isTrue();
        assertThat(body.path("ubigeos").path("count").isInt()).isTrue();
        assertThat(body.path("tipoCambio").path("USD").has("fecha")).isTrue();
        assertThat(body.path("tipoCambio").path("EUR").has("fecha")).isTrue();
    }

    /**
     * The counts the padrón load records in {@code dataset_loads} beside the registry's size, written here as the
     * ETL writes them; the row is put back as it was, as other classes of this JVM share it.
     */
    @Test
    void the_registry_shows_what_its_last_publication_added_changed_and_removed() {
        // As text, so that the row goes back exactly, whatever the JVM's time zone.
        List<Map<String, Object>> before = quipu.database.jdbi().withHandle(h -> h.createQuery("""
                        select rows::text as rows, loaded_at::text as loaded_at, added::text as added,
                               changed::text as changed, removed::text as removed
                          from dataset_loads where dataset = 'padron'""")
                .mapToMap().list());
        try {
            record(null, null, null);
            // The status is read again at most every 5 s of the clock: read once, then 6 s on, it is read anew.
            quipu.clock.advance(Duration.ofDays(1));
            quipu.get("/v1/status", null);
            JsonNode unknown = freshStatus().path("registry").path("lastPublication");
            assertThat(unknown).isEqualTo(quipu.json.createObjectNode().putNull("added").putNull("changed")
                    .putNull("removed"));

            record(120L, 3400L, 7L);
            JsonNode registry = freshStatus().path("registry");
            assertThat(registry.path("loadedAt").asText()).isEqualTo("2026-10-07T15:00:00Z");
            assertThat(registry.path("lastPublication")).isEqualTo(quipu.json.createObjectNode()
                    .put("added", 120).put("changed", 3400).put("removed", 7));
        } finally {
            quipu.database.jdbi().useHandle(h -> {
                h.execute("delete from dataset_loads where dataset = 'padron'");
                for (Map<String, Object> row : before) {
                    h.createUpdate("""
                                    insert into dataset_loads (dataset, rows, loaded_at, added, changed, removed)
                                    values ('padron', cast(:rows as bigint), cast(:loaded_at as timestamptz),
                                            cast(:added as bigint), cast(:changed as bigint),
                                            cast(:removed as bigint))""")
                            .bindMap(row).execute();
                }
            });
        }
    }

    private static JsonNode freshStatus() {
        quipu.clock.advance(Duration.ofSeconds(6));
        HttpResponse<String> response = quipu.get("/v1/status", null);
        assertThat(response.statusCode()).isEqualTo(200);
        return quipu.body(response);
    }

    private static void record(Long added, Long changed, Long removed) {
        quipu.database.jdbi().useHandle(h -> h.createUpdate("""
                        insert into dataset_loads (dataset, rows, loaded_at, added, changed, removed)
                        values ('padron', (select count(*) from ruc_registry), :loadedAt, :added, :changed, :removed)
                        on conflict (dataset) do update set loaded_at = excluded.loaded_at, added = excluded.added,
                            changed = excluded.changed, removed = excluded.removed""")
                .bind("loadedAt", QuipuExtension.START)
                .bindByType("added", added, Long.class)
                .bindByType("changed", changed, Long.class)
                .bindByType("removed", removed, Long.class)
                .execute());
    }

    @Test
    void tipo_cambio_names_each_source_and_keeps_bcrp_s_dates_where_they_were() {
        // A SUNAT rate later than any other test's, so that it is the latest whatever else the database holds.
        LocalDate fecha = LocalDate.of(2027, 12, 31);
        RateSeries sunat = RateSeries.of(Fuente.SUNAT, Moneda.USD);
        quipu.database.jdbi().useTransaction(h -> ExchangeRateWriter.save(h, List.of(new ExchangeRate(Moneda.USD,
                fecha, new BigDecimal("3.901"), new BigDecimal("3.909"), "sunat", QuipuExtension.START)), sunat,
                List.of(), QuipuExtension.START));
        // Past the status's 5 s of memory.
        quipu.clock.advance(Duration.ofSeconds(10));

        JsonNode tipoCambio = quipu.body(quipu.get("/v1/status", null)).path("tipoCambio");

        assertThat(tipoCambio.path("sunat").path("USD").path("fecha").asText()).isEqualTo("2027-12-31");
        assertThat(tipoCambio.path("sbs").path("USD").has("fecha")).isTrue();
        assertThat(tipoCambio.path("bcrp").path("USD").has("fecha")).isTrue();
        assertThat(tipoCambio.path("bcrp").path("EUR").has("fecha")).isTrue();
        assertThat(tipoCambio.path("sbs").has("EUR")).isFalse();
        // The first shape's members are BCRP's, beside the sources.
        assertThat(tipoCambio.path("USD")).isEqualTo(tipoCambio.path("bcrp").path("USD"));
        assertThat(tipoCambio.path("EUR")).isEqualTo(tipoCambio.path("bcrp").path("EUR"));
        assertThat(tipoCambio.path("USD").path("fecha").asText()).isNotEqualTo("2027-12-31");
        List<String> members = new ArrayList<>();
        tipoCambio.fieldNames().forEachRemaining(members::add);
        assertThat(members).containsExactly("bcrp", "sbs", "sunat", "USD", "EUR");
    }
}
