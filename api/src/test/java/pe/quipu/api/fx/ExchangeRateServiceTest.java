package pe.quipu.api.fx;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.fx.BcrpClient;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateFetch;
import pe.quipu.core.fx.RateSeries;
import pe.quipu.core.testing.BcrpStub.Answer;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The service below HTTP. Dates used: USD 2019-07, where BCRP (the stub) answers an empty range, so only
 * gap days are stored and no other test's answer changes.
 */
class ExchangeRateServiceTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void simultaneous_refreshes_of_one_range_ask_bcrp_once() throws Exception {
        quipu.bcrp.respond(path -> new Answer(200, "application/json", BcrpAnswers.json(Map.of()), 300));
        quipu.bcrp.clearRequests();
        LocalDate from = LocalDate.of(2019, 7, 1);
        LocalDate to = LocalDate.of(2019, 7, 14);
        try (BcrpClient client = new BcrpClient(new BcrpSettings(quipu.bcrp.baseUrl(), Duration.ofMillis(1400), 3,
                Duration.ofMillis(50)), quipu.clock);
             ExecutorService threads = Executors.newFixedThreadPool(4)) {
            ExchangeRateService.Upstream bcrp = new ExchangeRateService.Upstream(client, Duration.ofMinutes(30),
                    Duration.ofHours(24));
            ExchangeRateService service = new ExchangeRateService(new ExchangeRateStore(quipu.database.jdbi()),
                    Map.of(Fuente.BCRP, bcrp), quipu.clock);
            CountDownLatch go = new CountDownLatch(1);
            List<Future<RateFetch>> results = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                results.add(threads.submit(() -> {
                    go.await();
                    return service.refresh(RateSeries.of(Fuente.BCRP, Moneda.USD), from, to);
                }));
            }
            go.countDown();
            for (Future<RateFetch> result : results) {
                assertThat(result.get().publications()).isEmpty();
            }
        }
        // The stub holds each answer 300 ms, far longer than it takes the four threads to start.
        assertThat(quipu.bcrp.requests()).hasSize(1);
    }
}
