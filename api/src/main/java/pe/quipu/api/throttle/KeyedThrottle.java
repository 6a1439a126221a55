package pe.quipu.api.throttle;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import pe.quipu.api.domain.DomainException.RateLimited;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * At most {@code limit} events per {@code period} for each key (an account, a client address), in memory on each
 * instance, refilled evenly (a spent key gets one more event every period/limit). Buckets follow the injected clock
 * and live in a bounded cache; a bucket idle for a whole period is full again, so dropping it then loses nothing.
 */
public final class KeyedThrottle {

    private static final int MAX_TRACKED = 100_000;

    private final String what;
    private final int limit;
    private final Duration period;
    private final TimeMeter time;
    private final Cache<String, Bucket> buckets;

    /** {@code what} names the events in the refusal: "key operations", "signups from this address". */
    public KeyedThrottle(String what, int limit, Duration period, Clock clock) {
        if (limit < 1 || period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("a throttle needs a limit of at least 1 and a positive period");
        }
        this.what = what;
        this.limit = limit;
        this.period = period;
        this.time = new ClockTimeMeter(clock);
        this.buckets = Caffeine.newBuilder()
                .maximumSize(MAX_TRACKED)
                .expireAfterAccess(period)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .build();
    }

    /** Counts one event of {@code key}; {@link RateLimited} (429 with Retry-After) when its allowance is spent. */
    public void take(String key) {
        ConsumptionProbe probe = buckets.get(key, k -> Bucket.builder()
                        .addLimit(l -> l.capacity(limit).refillGreedy(limit, period))
                        .withCustomTimePrecision(time)
                        .build())
                .tryConsumeAndReturnRemaining(1);
        if (!probe.isConsumed()) {
            long seconds = Math.max(1, (probe.getNanosToWaitForRefill() + 999_999_999L) / 1_000_000_000L);
            throw new RateLimited("Too many " + what + "; at most " + limit + " per " + describe(period)
                    + ", try again in " + seconds + " seconds", seconds);
        }
    }

    private static String describe(Duration period) {
        if (period.toSeconds() % 86_400 == 0) {
            return period.toDays() == 1 ? "day" : period.toDays() + " days";
        }
        if (period.toSeconds() % 3_600 == 0) {
            return period.toHours() == 1 ? "hour" : period.toHours() + " hours";
        }
        if (period.toSeconds() % 60 == 0) {
            return period.toMinutes() == 1 ? "minute" : period.toMinutes() + " minutes";
        }
        return period.toSeconds() + " seconds";
    }
}
