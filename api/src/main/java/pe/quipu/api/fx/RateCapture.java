package pe.quipu.api.fx;

import io.dropwizard.lifecycle.Managed;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.core.fx.RateFetch;
import pe.quipu.core.fx.RateSeries;

import java.time.Clock;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZonedDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The in-process capture (contract §5, per source as §12 says): every {@code interval} during Lima business hours
 * (Mon–Fri 08:00–20:00), and once shortly after start-up whatever the hour, stores the last 10 days of its series'
 * rates, so that requests are answered from the database. One capture per source asked: BCRP's API (BCRP's USD and
 * EUR, SBS's USD) on {@code bcrp:}'s schedule, SUNAT on {@code sunatFx:}'s.
 */
public final class RateCapture implements Managed {

    /** Today and the nine days before: covers a long weekend plus a late correction by BCRP. */
    static final int DAYS = 10;
    private static final LocalTime OPENS = LocalTime.of(8, 0);
    private static final LocalTime CLOSES = LocalTime.of(20, 0);
    private static final Duration FIRST_DELAY = Duration.ofSeconds(5);
    private static final Logger LOG = LoggerFactory.getLogger(RateCapture.class);

    private final ExchangeRateService rates;
    private final List<RateSeries> series;
    private final Clock clock;
    private final Duration interval;
    private final boolean enabled;
    /** The setting that switches it off, for the log: {@code bcrp.captureEnabled}. */
    private final String setting;
    private ScheduledExecutorService scheduler;

    public RateCapture(ExchangeRateService rates, List<RateSeries> series, Clock clock, Duration interval,
                       boolean enabled, String setting) {
        this.rates = rates;
        this.series = List.copyOf(series);
        this.clock = clock;
        this.interval = interval;
        this.enabled = enabled;
        this.setting = setting;
    }

    @Override
    public void start() {
        if (!enabled) {
            LOG.info("Exchange-rate capture of {} disabled ({}: false)", series, setting);
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon()
                .name("quipu-rate-capture-" + series.getFirst().fuente().code()).factory());
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
     * Captures the last {@value #DAYS} days of every series now. Never throws: a failure is logged and
     * the next run tries again (an exception would cancel the schedule).
     *
     * @return the number of publications the source returned, per series that succeeded
     */
    public Map<RateSeries, Integer> captureNow() {
        Map<RateSeries, Integer> captured = new LinkedHashMap<>();
        for (RateSeries one : series) {
            try {
                LocalDate today = rates.today();
                RateFetch fetch = rates.refresh(one, today.minusDays(DAYS - 1L), today);
                captured.put(one, fetch.publications().size());
            } catch (RuntimeException e) {
                // The message names the series, range and failure; no credentials are involved with BCRP or SUNAT.
                LOG.warn("Exchange-rate capture of {} failed: {}", one, e.getMessage());
            }
        }
        return captured;
    }
}
