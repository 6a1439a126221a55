package pe.quipu.api.training;

import pe.quipu.api.platform.Platform;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.keys.KeyIssuer;
import pe.quipu.api.plans.PlanSettings;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.ExchangeRateWriter;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateSeries;
import pe.quipu.core.ruc.PadronRecord;
import pe.quipu.core.ruc.PadronSample;
import pe.quipu.core.ruc.RegistryUpsert;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * What the training run serves, written straight into its throwaway database by the code the operator commands use:
 * the bundled padrón sample ({@code sample-padron}), {@link #RATE_DAYS} days of rates of every series (BCRP's USD and
 * EUR, SBS's and SUNAT's USD) up to today in Lima, one each day (as the captures store them, so that the latest rate,
 * every date and every range asked for are answered without BCRP or SUNAT), and an account with a key holding every
 * read scope ({@code create-key}). The ubigeo catalogue is seeded by the API itself.
 */
final class TrainingData {

    static final String EMAIL = "training@quipu.invalid";
    static final int RATE_DAYS = 14;

    private final Platform platform;
    private final Clock clock;

    TrainingData(Platform platform) {
        this.platform = platform;
        this.clock = platform.clock();
    }

    /** Writes the data and returns the key's secret. */
    String load() {
        Instant now = clock.instant();
        return platform.jdbi().inTransaction(handle -> {
            List<PadronRecord> records = PadronSample.records();
            RegistryUpsert.upsert(handle, records, now);
            for (RateSeries series : RateSeries.all()) {
                ExchangeRateWriter.save(handle, rates(series, today(), now), series, List.of(), now);
            }
            KeyIssuer issuer = new KeyIssuer(clock, platform.outbox());
            UUID account = issuer.accountFor(handle, EMAIL);
            KeyIssuer.IssuedKey key = issuer.issue(handle, account, "training",
                    EnumSet.of(Scope.RUC_READ, Scope.UBIGEOS_READ, Scope.TIPO_CAMBIO_READ));
            platform.audit().record(handle, account, "key.created", AuditLog.Origin.OPERATOR, key.auditDetails());
            return key.secret().reveal();
        });
    }

    LocalDate today() {
        return LocalDate.ofInstant(clock.instant(), ExchangeRateWriter.LIMA);
    }

    /** One publication a day, today included, with made-up numbers of the right size. */
    static List<ExchangeRate> rates(RateSeries series, LocalDate today, Instant capturedAt) {
        Moneda moneda = series.moneda();
        BigDecimal base = moneda == Moneda.USD ? new BigDecimal("3.700") : new BigDecimal("4.050");
        List<ExchangeRate> rates = new ArrayList<>();
        for (int i = 0; i < RATE_DAYS; i++) {
            BigDecimal compra = base.add(BigDecimal.valueOf(i % 5, 3));
            rates.add(new ExchangeRate(moneda, today.minusDays(i), compra, compra.add(new BigDecimal("0.004")),
                    series.fuente().code(), capturedAt));
        }
        return rates;
    }

    /** The plan to put the training account on: the one with the largest batch cap, so that batches are allowed. */
    static Plan largestBatchPlan(Map<String, PlanSettings> plans) {
        return plans.entrySet().stream()
                .max(Comparator.comparingInt(e -> e.getValue().getBatchCap()))
                .map(e -> new Plan(e.getKey(), e.getValue().getBatchCap()))
                .orElseThrow(() -> new IllegalStateException("train: config.yml defines no plans"));
    }

    record Plan(String name, int batchCap) {
    }
}
