package pe.quipu.core.fx;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.BcrpStub.Answer;
import pe.quipu.core.testing.SunatAnswers;
import pe.quipu.core.testing.SunatStub;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The SUNAT client against the SUNAT stand-in: the request it sends, months, retries, the bound of a fetch. */
class SunatClientTest {

    private static final Instant NOW = Instant.parse("2026-10-07T15:00:00Z");
    private static final RateSeries SUNAT = RateSeries.of(Fuente.SUNAT, Moneda.USD);

    private final SunatStub sunat = SunatStub.start();

    @AfterEach
    void stop() {
        sunat.stop();
    }

    @Test
    void asks_for_the_month_counted_from_zero_with_origin_and_referer_set_to_the_base_url() throws Exception {
        sunat.respond(month -> Answer.json(SunatResponseParserTest.sample("listarTipoCambio-2026-09.json")));
        try (SunatClient client = client(Duration.ofMillis(1400))) {
            RateFetch fetch = client.fetch(SUNAT, LocalDate.of(2026, 9, 28), LocalDate.of(2026, 9, 30));

            assertThat(sunat.requests()).singleElement().satisfies(request -> {
                assertThat(request.method()).isEqualTo("POST");
                assertThat(request.path()).isEqualTo("/cl-at-ittipcam/tcS01Alias/listarTipoCambio");
                assertThat(request.contentType()).startsWith("application/json");
                // September is 8: SUNAT counts months from 0.
                assertThat(request.anio()).isEqualTo(2026);
                assertThat(request.mes()).isEqualTo(8);
                assertThat(request.body()).matches("\\{\"anio\":2026,\"mes\":8,\"token\":\"[0-9A-Za-z]{32}\"}");
                assertThat(request.origin()).isEqualTo(sunat.baseUrl());
                assertThat(request.referer()).isEqualTo(sunat.baseUrl());
            });
            // SUNAT answers the whole month; only the range asked for is kept.
            assertThat(fetch.publications()).extracting(ExchangeRate::fecha).containsExactly(
                    LocalDate.of(2026, 9, 28), LocalDate.of(2026, 9, 29), LocalDate.of(2026, 9, 30));
            assertThat(fetch.publications()).allSatisfy(p -> {
                assertThat(p.fuente()).isEqualTo("sunat");
                assertThat(p.capturadoEn()).isEqualTo(NOW);
            });
            assertThat(fetch.series()).isEqualTo(SUNAT);
        }
    }

    @Test
    void a_range_over_a_new_year_asks_each_month_once_january_as_zero() {
        SunatAnswers answers = new SunatAnswers()
                .day(LocalDate.of(2025, 11, 28), "3.700", "3.710")
                .day(LocalDate.of(2025, 12, 30), "3.720", "3.730")
                .day(LocalDate.of(2026, 1, 2), "3.740", "3.750")
                .day(LocalDate.of(2026, 2, 2), "3.760", "3.770");
        sunat.respond(answers.responder());
        try (SunatClient client = client(Duration.ofMillis(1400))) {
            RateFetch fetch = client.fetch(SUNAT, LocalDate.of(2025, 12, 15), LocalDate.of(2026, 1, 31));

            assertThat(sunat.requests()).extracting(r -> r.anio() + "/" + r.mes())
                    .containsExactlyInAnyOrder("2025/11", "2026/0");
            assertThat(fetch.publications()).extracting(ExchangeRate::fecha)
                    .containsExactly(LocalDate.of(2025, 12, 30), LocalDate.of(2026, 1, 2));
        }
    }

    @Test
    void each_request_carries_a_token_of_its_own() {
        sunat.respond(new SunatAnswers().day(LocalDate.of(2026, 7, 29), "3.412", "3.420")
                .day(LocalDate.of(2026, 8, 31), "3.422", "3.430").day(LocalDate.of(2026, 9, 29), "3.432", "3.440")
                .responder());
        try (SunatClient client = client(Duration.ofMillis(1400))) {
            assertThat(client.fetch(SUNAT, LocalDate.of(2026, 7, 1), LocalDate.of(2026, 9, 30)).publications())
                    .hasSize(3);
        }
        assertThat(sunat.requests()).hasSize(3);
        assertThat(sunat.requests().stream().map(SunatStub.Request::token).distinct()).hasSize(3);
    }

    @Test
    void html_is_retried_then_fails_after_max_attempts() {
        AtomicInteger calls = new AtomicInteger();
        sunat.respond(month -> calls.incrementAndGet() == 1 ? Answer.html("<html>Error</html>")
                : Answer.json(SunatAnswers.json(java.util.Map.of(LocalDate.of(2026, 9, 29),
                new String[] {"3.432", "3.440"}))));
        try (SunatClient client = client(Duration.ofMillis(1400))) {
            assertThat(client.fetch(SUNAT, LocalDate.of(2026, 9, 29), LocalDate.of(2026, 9, 29)).publications())
                    .hasSize(1);
        }
        assertThat(sunat.requests()).hasSize(2);

        sunat.clearRequests();
        sunat.respond(month -> Answer.html("<html>Error</html>"));
        try (SunatClient client = client(Duration.ofMillis(1400))) {
            assertThatThrownBy(() -> client.fetch(SUNAT, LocalDate.of(2026, 9, 29), LocalDate.of(2026, 9, 29)))
                    .isInstanceOf(RatesUnavailableException.class).hasMessageContaining("SUNAT");
        }
        assertThat(sunat.requests()).hasSize(3);
    }

    @Test
    void an_empty_month_that_should_have_rates_is_retried_as_a_failure() {
        sunat.respond(month -> Answer.json("[]"));
        try (SunatClient client = client(Duration.ofMillis(1400))) {
            assertThatThrownBy(() -> client.fetch(SUNAT, LocalDate.of(2026, 9, 1), LocalDate.of(2026, 9, 30)))
                    .isInstanceOf(RatesUnavailableException.class).hasMessageContaining("should have rates");
        }
        assertThat(sunat.requests()).hasSize(3);
    }

    @Test
    void a_year_of_slow_months_is_given_up_on_within_the_bound_of_one_fetch() {
        // Every attempt of every month is slower than the attempt's limit.
        sunat.respond(month -> new Answer(200, "application/json", "[]", 3_000));
        try (SunatClient client = client(Duration.ofMillis(300))) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> client.fetch(SUNAT, LocalDate.of(2025, 10, 1), LocalDate.of(2026, 9, 30)))
                    .isInstanceOf(RatesUnavailableException.class);
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            // 3 × 300 ms + 2 × 20 ms = 0.94 s, with room for scheduling; twelve months one after another would take 11 s.
            assertThat(took).isLessThan(Duration.ofMillis(2_000));
        }
        // Four months at a time: the later ones were never asked.
        assertThat(sunat.months().stream().distinct().count()).isLessThan(12);
    }

    @Test
    void only_sunat_s_series_is_asked_of_sunat() {
        try (SunatClient client = client(Duration.ofMillis(1400))) {
            assertThatThrownBy(() -> client.fetch(RateSeries.of(Fuente.BCRP, Moneda.USD), LocalDate.of(2026, 9, 1),
                    LocalDate.of(2026, 9, 30))).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(sunat.requests()).isEmpty();
    }

    @Test
    void worst_case_of_the_defaults_is_under_five_seconds() {
        assertThat(new SunatFxSettings().worstCase()).isEqualTo(Duration.ofMillis(4600));
        assertThat(new SunatFxSettings().baseUrl()).isEqualTo("https://e-consulta.sunat.gob.pe");
    }

    private SunatClient client(Duration attemptTimeout) {
        SunatFxSettings settings = new SunatFxSettings(sunat.baseUrl() + "/", attemptTimeout, 3, Duration.ofMillis(20));
        return new SunatClient(settings, Clock.fixed(NOW, ZoneOffset.UTC));
    }

}
