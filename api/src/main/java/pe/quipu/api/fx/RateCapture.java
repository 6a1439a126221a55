package pe.quipu.api.fx;

import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.core.fx.BcrpFetch;
import pe.quipu.core.fx.Moneda;

import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZonedDateTime;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The in-process capture (contract §5): every {@code interval} during Lima business hours (Mon–Fri
 * 08:00–20:00), and once shortly after start-up whatever the hour, stores the last 10 days of USD and EUR
 * rates, so that requests are answered from the database.
 */
public final class RateCapture implements Managed {

    /** Today and the nine days before: covers a long weekend plus a late correction by BCRP. */
    static final int DAYS = 10;
    private static final LocalTime OPENS = LocalTime.of(8, 0);
    private static final LocalTime CLOSES = LocalTime.of(20, 0);
    private static final Duration FIRST_DELAY = Duration.ofSeconds(5);
    private static final Logger LOG = LoggerFactory.getLogger(RateCapture.class);

    private final ExchangeRateService rates;
    private final Clock clock;
    private final Duration interval;
    private final boolean enabled;
    private ScheduledExecutorService scheduler;

    public RateCapture(ExchangeRateService rates, Clock clock, Duration interval, boolean enabled) {
        this.rates = rates;
        this.clock = clock;
        this.interval = interval;
        this.enabled = enabled;
    }

    @Override
    public void start() {
        if (!enabled) {
            LOG.info("Exchange-rate capture disabled (bcrp.captureEnabled: false)");
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("quipu-rate-capture").factory());
        // A restart outside business hours still fills in what was published meanwhile.
        scheduler.schedule(this::captureNow, FIRST_DELAY.toMillis(), TimeUnit.MILLISECONDS);
        scheduler.scheduleWithFixedDelay(() -> {
            if (shouldCapture(clock.instant())) {
                captureNow();
            }
        }, interval.toMillis(), interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void stop() throws InterruptedException {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    /** Mon–Fri, 08:00 (inclusive) to 20:00 (exclusive) in Lima. */
    public static boolean shouldCapture(Instant now) {
        ZonedDateTime lima = now.atZone(ExchangeRateService.LIMA);
        DayOfWeek day = lima.getDayOfWeek();
        LocalTime time = lima.toLocalTime();
        return day != DayOfWeek.SATURDAY && day != DayOfWeek.SUNDAY && !time.isBefore(OPENS) && time.isBefore(CLOSES);
    }

    /**
     * Captures the last {@value #DAYS} days of every currency now. Never throws: a failure is logged and
     * the next run tries again (an exception would cancel the schedule).
     *
     * @return the number of publications BCRP returned, per currency that succeeded
     */
    public Map<Moneda, Integer> captureNow() {
        Map<Moneda, Integer> captured = new EnumMap<>(Moneda.class);
        for (Moneda moneda : Moneda.values()) {
            try {
                LocalDate today = rates.today();
                BcrpFetch fetch = rates.refresh(moneda, today.minusDays(DAYS - 1L), today);
                captured.put(moneda, fetch.publications().size());
            } catch (RuntimeException e) {
                // The message names the currency, range and failure; no credentials are involved with BCRP.
                LOG.warn("Exchange-rate capture of {} failed: {}", moneda, e.getMessage());
            }
        }
        return captured;
    }
}
