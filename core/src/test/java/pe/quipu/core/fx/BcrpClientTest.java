package pe.quipu.core.fx;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The client against a local HTTP server standing in for BCRP: URL, retries, per-attempt timeouts. */
class BcrpClientTest {

    private static final RateSeries BCRP_USD = RateSeries.of(Fuente.BCRP, Moneda.USD);
    private static final RateSeries BCRP_EUR = RateSeries.of(Fuente.BCRP, Moneda.EUR);
    private static final Instant NOW = Instant.parse("2026-10-07T15:00:00Z");
    private static final String JSON = """
            {"config":{"series":[{"dec":"3"},{"dec":"3"}]},"periods":[
             {"name":"29.Set.26","values":["3.4205","3.42483333333333"]},
             {"name":"30.Set.26","values":["3.419","n.d."]}]}""";

    private HttpServer server;
    private final List<String> paths = new CopyOnWriteArrayList<>();
    private final AtomicInteger calls = new AtomicInteger();
    private volatile IntFunction<Reply> replies = n -> new Reply(200, "application/json", JSON, 0);

    private record Reply(int status, String contentType, String body, long delayMillis) {
    }

    @BeforeEach
    void start() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    @Test
    void asks_for_the_currency_series_and_range() {
        try (BcrpClient client = client()) {
            RateFetch fetch = client.fetch(BCRP_USD, LocalDate.of(2026, 9, 28), LocalDate.of(2026, 9, 30));

            assertThat(paths).containsExactly(
                    "/estadisticas/series/api/PD04637PD-PD04638PD/json/2026-09-28/2026-09-30/esp");
            assertThat(fetch.publications()).extracting(ExchangeRate::fecha).containsExactly(LocalDate.of(2026, 9, 29));
            assertThat(fetch.publications().getFirst().capturadoEn()).isEqualTo(NOW);
            assertThat(fetch.listedWithoutValue()).containsExactly(LocalDate.of(2026, 9, 30));
        }
    }

    @Test
    void eur_uses_its_own_series() {
        try (BcrpClient client = client()) {
            client.fetch(BCRP_EUR, LocalDate.of(2026, 9, 28), LocalDate.of(2026, 9, 30));

            assertThat(paths.getFirst()).contains("/PD04647PD-PD04648PD/json/");
        }
    }

    @Test
    void sbs_uses_the_banking_system_series_bcrp_republishes_and_says_sbs() {
        try (BcrpClient client = client()) {
            RateFetch fetch = client.fetch(RateSeries.of(Fuente.SBS, Moneda.USD), LocalDate.of(2026, 9, 28),
                    LocalDate.of(2026, 9, 30));

            assertThat(paths).containsExactly(
                    "/estadisticas/series/api/PD04639PD-PD04640PD/json/2026-09-28/2026-09-30/esp");
            assertThat(fetch.series()).isEqualTo(RateSeries.of(Fuente.SBS, Moneda.USD));
            assertThat(fetch.publications()).singleElement().satisfies(p -> {
                assertThat(p.fuente()).isEqualTo("sbs");
                assertThat(p.moneda()).isEqualTo(Moneda.USD);
            });
        }
    }

    @Test
    void sunat_is_not_asked_of_bcrp() {
        try (BcrpClient client = client()) {
            assertThatThrownBy(() -> client.fetch(RateSeries.of(Fuente.SUNAT, Moneda.USD), LocalDate.of(2026, 9, 28),
                    LocalDate.of(2026, 9, 30))).isInstanceOf(IllegalArgumentException.class);
            assertThat(paths).isEmpty();
        }
    }

    @Test
    void publications_outside_the_range_asked_for_are_ignored() {
        try (BcrpClient client = client()) {
            RateFetch fetch = client.fetch(BCRP_USD, LocalDate.of(2026, 9, 30), LocalDate.of(2026, 9, 30));

            assertThat(fetch.publications()).isEmpty();
            assertThat(fetch.listedWithoutValue()).containsExactly(LocalDate.of(2026, 9, 30));
        }
    }

    @Test
    void html_with_status_200_is_retried_then_succeeds() {
        replies = n -> n == 1 ? new Reply(200, "text/html", "<html>Request Rejected</html>", 0)
                : new Reply(200, "application/json", JSON, 0);
        try (BcrpClient client = client()) {
            RateFetch fetch = client.fetch(BCRP_USD, LocalDate.of(2026, 9, 28), LocalDate.of(2026, 9, 30));

            assertThat(calls).hasValue(2);
            assertThat(fetch.publications()).hasSize(1);
        }
    }

    @Test
    void html_on_every_attempt_fails_after_max_attempts() {
        replies = n -> new Reply(200, "text/html", "<html>Request Rejected</html>", 0);
        try (BcrpClient client = client()) {
            assertThatThrownBy(() -> client.fetch(BCRP_USD, LocalDate.of(2026, 9, 28), LocalDate.of(2026, 9, 30)))
                    .isInstanceOf(RatesUnavailableException.class);
            assertThat(calls).hasValue(3);
        }
    }

    @Test
    void non_2xx_is_retried() {
        replies = n -> n < 3 ? new Reply(503, "text/plain", "busy", 0) : new Reply(200, "application/json", JSON, 0);
        try (BcrpClient client = client()) {
            assertThat(client.fetch(BCRP_USD, LocalDate.of(2026, 9, 28), LocalDate.of(2026, 9, 30)).publications())
                    .hasSize(1);
            assertThat(calls).hasValue(3);
        }
    }

    @Test
    void slow_answers_are_cut_per_attempt_and_the_whole_fetch_stays_bounded() {
        replies = n -> new Reply(200, "application/json", JSON, 3_000);
        BcrpSettings settings = new BcrpSettings(baseUrl(), Duration.ofMillis(400), 3, Duration.ofMillis(100));
        try (BcrpClient client = new BcrpClient(settings, Clock.fixed(NOW, ZoneOffset.UTC))) {
            long started = System.nanoTime();
            assertThatThrownBy(() -> client.fetch(BCRP_USD, LocalDate.of(2026, 9, 28), LocalDate.of(2026, 9, 30)))
                    .isInstanceOf(RatesUnavailableException.class);
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(calls).hasValue(3);
            // 3 × 400 ms + 2 × 100 ms = 1.4 s, with room for scheduling; far below the stub's 3 s delay.
            assertThat(took).isLessThan(Duration.ofMillis(2_400));
        }
    }

    @Test
    void nothing_listening_is_a_failure() throws IOException {
        int port;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = free.getLocalPort();
        }
        BcrpSettings settings = new BcrpSettings("http://127.0.0.1:" + port + "/api/", Duration.ofMillis(400), 2,
                Duration.ofMillis(10));
        try (BcrpClient client = new BcrpClient(settings, Clock.fixed(NOW, ZoneOffset.UTC))) {
            assertThatThrownBy(() -> client.fetch(BCRP_USD, LocalDate.of(2026, 9, 28), LocalDate.of(2026, 9, 30)))
                    .isInstanceOf(RatesUnavailableException.class);
        }
    }

    @Test
    void worst_case_of_the_defaults_is_under_five_seconds() {
        BcrpSettings defaults = new BcrpSettings(BcrpSettings.DEFAULT_BASE_URL, Duration.ofMillis(1400), 3,
                Duration.ofMillis(200));
        assertThat(defaults.worstCase()).isEqualTo(Duration.ofMillis(4600));
    }

    private BcrpClient client() {
        BcrpSettings settings = new BcrpSettings(baseUrl() + "/", Duration.ofMillis(1400), 3, Duration.ofMillis(20));
        return new BcrpClient(settings, Clock.fixed(NOW, ZoneOffset.UTC));
    }

    private String baseUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/estadisticas/series/api";
    }

    private void handle(HttpExchange exchange) throws IOException {
        paths.add(exchange.getRequestURI().getRawPath());
        Reply reply = replies.apply(calls.incrementAndGet());
        try {
            if (reply.delayMillis() > 0) {
                Thread.sleep(reply.delayMillis());
            }
            byte[] body = reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", reply.contentType());
            exchange.sendResponseHeaders(reply.status(), body.length);
            exchange.getResponseBody().write(body);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // the client gave up, as timeout tests intend
        } finally {
            exchange.close();
        }
    }
}
