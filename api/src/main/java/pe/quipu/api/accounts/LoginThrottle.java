package pe.quipu.api.accounts;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import pe.quipu.api.domain.ClockTimeMeter;
import pe.quipu.api.domain.EmailIdentity;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Slows password guessing down before any password is verified, in memory on each instance: per email, a few
 * failed logins per period (refilled evenly, so a throttled email gets one more try every period/failures); per
 * client address, a bound on all login attempts, which also bounds the Argon2 work one client can cause. An
 * IPv6 client is counted by its /64, as one host usually holds the whole /64.
 *
 * <p>Each attempt reserves one of the email's failures before its password is checked and a success gives it back,
 * so concurrent guesses cannot all pass a check made before any of them failed. Unknown emails are counted exactly
 * like known ones: a 429 tells nothing about whether an account exists.
 *
 * <p>Buckets follow the injected clock and live in bounded caches; a bucket idle for its whole period is full
 * again, so dropping it then loses nothing.
 */
public final class LoginThrottle {

    private static final int MAX_TRACKED = 100_000;

    private final Limit perEmail;
    private final Limit perAddress;
    private final TimeMeter time;
    private final Cache<String, Bucket> emails;
    private final Cache<String, Bucket> addresses;

    /** {@code tokens} events per {@code period}, refilled evenly. */
    public record Limit(int tokens, Duration period) {
        public Limit {
            if (tokens < 1 || period.isNegative() || period.isZero()) {
                throw new IllegalArgumentException("a limit needs at least one token and a positive period");
            }
        }
    }

    /** The outcome of {@link #admit}: go ahead, or wait this many whole seconds. */
    public sealed interface Admission {
        record Admitted(String emailKey) implements Admission {
        }

        record Throttled(long retryAfterSeconds) implements Admission {
        }
    }

    public LoginThrottle(Limit failuresPerEmail, Limit attemptsPerAddress, Clock clock) {
        this.perEmail = failuresPerEmail;
        this.perAddress = attemptsPerAddress;
        this.time = new ClockTimeMeter(clock);
        // Idle expiry follows the same clock as the buckets.
        this.emails = cache(failuresPerEmail.period(), clock);
        this.addresses = cache(attemptsPerAddress.period(), clock);
    }

    /**
     * Counts one login attempt from {@code address} and reserves one failure of {@code email}. When either is
     * spent, the attempt must be refused without checking its password.
     */
    public Admission admit(String email, String address) {
        ConsumptionProbe byAddress = bucket(addresses, addressKey(address), perAddress).tryConsumeAndReturnRemaining(1);
        if (!byAddress.isConsumed()) {
            return new Admission.Throttled(seconds(byAddress.getNanosToWaitForRefill()));
        }
        String emailKey = EmailIdentity.of(email);
        ConsumptionProbe byEmail = bucket(emails, emailKey, perEmail).tryConsumeAndReturnRemaining(1);
        if (!byEmail.isConsumed()) {
            return new Admission.Throttled(seconds(byEmail.getNanosToWaitForRefill()));
        }
        return new Admission.Admitted(emailKey);
    }

    /**
     * Counts one signup from {@code address} against the same per-address allowance as logins: a signup costs an
     * Argon2 hash too, and creates an account.
     */
    public Optional<Long> refuseSignup(String address) {
        ConsumptionProbe byAddress = bucket(addresses, addressKey(address), perAddress).tryConsumeAndReturnRemaining(1);
        return byAddress.isConsumed() ? Optional.empty() : Optional.of(seconds(byAddress.getNanosToWaitForRefill()));
    }

    /** The password was right: the failure reserved by {@link #admit} is given back. */
    public void succeeded(Admission.Admitted admission) {
        Bucket bucket = emails.getIfPresent(admission.emailKey());
        if (bucket != null) {
            bucket.addTokens(1);
        }
    }

    /** The password could not be checked (no hash could start): the failure reserved by {@link #admit} is given back. */
    public void unchecked(Admission.Admitted admission) {
        succeeded(admission);
    }

    private Bucket bucket(Cache<String, Bucket> cache, String key, Limit limit) {
        return cache.get(key, k -> Bucket.builder()
                .addLimit(l -> l.capacity(limit.tokens()).refillGreedy(limit.tokens(), limit.period()))
                .withCustomTimePrecision(time)
                .build());
    }

    /** The client's address as counted: IPv4 as is, IPv6 by its /64 prefix. */
    static String addressKey(String address) {
        if (address == null || address.indexOf(':') < 0) {
            return String.valueOf(address);
        }
        try {
            InetAddress parsed = InetAddress.ofLiteral(address);
            if (parsed instanceof Inet6Address) {
                byte[] prefix = Arrays.copyOf(parsed.getAddress(), 16);
                Arrays.fill(prefix, 8, 16, (byte) 0);
                return InetAddress.getByAddress(prefix).getHostAddress() + "/64";
            }
            return parsed.getHostAddress();
        } catch (IllegalArgumentException | java.net.UnknownHostException e) {
            return address;
        }
    }

    /** Whole seconds, rounded up, never 0: a client that waits exactly this long is admitted. */
    private static long seconds(long nanos) {
        return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
    }

    private static Cache<String, Bucket> cache(Duration idle, Clock clock) {
        return Caffeine.newBuilder()
                .maximumSize(MAX_TRACKED)
                .expireAfterAccess(idle)
                .ticker(() -> TimeUnit.MILLISECONDS.toNanos(clock.millis()))
                .build();
    }
}
