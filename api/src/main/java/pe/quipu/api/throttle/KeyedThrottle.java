package pe.quipu.api.throttle;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import pe.quipu.api.domain.DomainException.RateLimited;
import pe.quipu.api.domain.Text;

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

    private final Text what;
    private final int limit;
    private final Duration period;
    private final TimeMeter time;
    private final Cache<String, Bucket> buckets;

    /**
     * {@code what} names the events in the refusal, a noun phrase from the caller's bundle ("key operations for this
     * account", "signups from this address"); the refusal's sentence is this package's {@code throttle.too_many}.
     */
    public KeyedThrottle(Text what, int limit, Duration period, Clock clock) {
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
            throw new RateLimited(Text.of("throttle.too_many", what, limit, per(period), seconds(seconds)), seconds);
        }
    }

    /** {@code n} seconds, said as a count of them: "1 second", "30 seconds". */
    public static Text seconds(long n) {
        return n == 1 ? Text.of("throttle.one_second") : Text.of("throttle.seconds", n);
    }

    /** The period, in the largest unit that measures it whole: "per day", "per 2 hours". */
    private static Text per(Duration period) {
        if (period.toSeconds() % 86_400 == 0) {
            return period.toDays() == 1 ? Text.of("throttle.per.day") : Text.of("throttle.per.days", period.toDays());
        }
        if (period.toSeconds() % 3_600 == 0) {
            return period.toHours() == 1 ? Text.of("throttle.per.hour")
                    : Text.of("throttle.per.hours", period.toHours());
        }
        if (period.toSeconds() % 60 == 0) {
            return period.toMinutes() == 1 ? Text.of("throttle.per.minute")
                    : Text.of("throttle.per.minutes", period.toMinutes());
        }
        return period.toSeconds() == 1 ? Text.of("throttle.per.second")
                : Text.of("throttle.per.seconds", period.toSeconds());
    }
}
