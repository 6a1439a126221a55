package pe.quipu.api.accounts;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.TimeMeter;
import pe.quipu.api.throttle.ClockTimeMeter;
import pe.quipu.core.accounts.EmailIdentity;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Slows password guessing down before any password is verified, in memory on each instance, without letting anyone
 * lock an account's owner out:
 * <ul>
 *   <li>per email and client address: a few failed logins per period (refilled evenly, so a throttled pair gets one
 *       more try every period/failures). Someone failing from their own address throttles that address only;</li>
 *   <li>per client address: a bound on all login attempts, which also bounds the Argon2 work one client causes;</li>
 *   <li>per email, whatever the address: a ceiling on failures, higher than a pair's, which slows down an attacker who
 *       rotates addresses. When it is spent, an attempt from an address the account has logged in from before
 *       ({@link UsualAddresses}) still goes ahead, within its own pair's allowance: the owner, from their usual
 *       places, is not locked out; any other address waits for the ceiling to refill.</li>
 * </ul>
 * An IPv6 client is counted by its /64, as one host usually holds the whole /64.
 *
 * <p>Each attempt reserves one failure of its pair (and one of the email's ceiling, when it takes one) before its
 * password is checked; a success, or an attempt whose password could not be checked, gives them back
 * ({@link #giveBack}). So concurrent guesses cannot all pass a check made before any of them failed. Unknown emails
 * are counted exactly like known ones, and have no usual address: a 429 tells nothing about whether an account
 * exists.
 *
 * <p>Buckets follow the injected clock and live in bounded caches; a bucket idle for its whole period is full
 * again, so dropping it then loses nothing.
 */
public final class LoginThrottle {

    private static final int MAX_TRACKED = 100_000;

    private final Limit perPair;
    private final Limit perAddress;
    private final Limit perEmail;
    private final TimeMeter time;
    private final Cache<String, Bucket> pairs;
    private final Cache<String, Bucket> addresses;
    private final Cache<String, Bucket> emails;

    /** {@code tokens} events per {@code period}, refilled evenly. */
    public record Limit(int tokens, Duration period) {
        public Limit {
            if (tokens < 1 || period.isNegative() || period.isZero()) {
                throw new IllegalArgumentException("a limit needs at least one token and a positive period");
            }
        }
    }

    /**
     * Whether the account with this email (if there is one) has logged in successfully from this client address
     * (as {@link #addressKey} counts it) lately. Asked only when the email's ceiling is spent.
     */
    @FunctionalInterface
    public interface UsualAddresses {
        boolean isUsual(String email, String address);
    }

    /** The outcome of {@link #admit}: go ahead, or wait this many whole seconds. */
    public sealed interface Admission {
        /** {@code emailKey} is null when the attempt went ahead on a usual address, without the email's ceiling. */
        record Admitted(String pairKey, String emailKey) implements Admission {
        }

        record Throttled(long retryAfterSeconds) implements Admission {
        }
    }

    /**
     * @param failuresPerPair    failed logins per email and client address
     * @param attemptsPerAddress login attempts (and signups) per client address
     * @param failuresPerEmail   the ceiling: failed logins per email from all addresses
     */
    public LoginThrottle(Limit failuresPerPair, Limit attemptsPerAddress, Limit failuresPerEmail, Clock clock) {
        this.perPair = failuresPerPair;
        this.perAddress = attemptsPerAddress;
        this.perEmail = failuresPerEmail;
        this.time = new ClockTimeMeter(clock);
        // Idle expiry follows the same clock as the buckets.
        this.pairs = cache(failuresPerPair.period(), clock);
        this.addresses = cache(attemptsPerAddress.period(), clock);
        this.emails = cache(failuresPerEmail.period(), clock);
    }

    /**
     * Counts one login attempt from {@code address} and reserves one failure of the pair ({@code email},
     * {@code address}) and one of the email's ceiling. When the address's attempts or the pair's failures are spent,
     * or the ceiling is and the address is not a usual one, the attempt must be refused without checking its
     * password.
     */
    public Admission admit(String email, String address, UsualAddresses usual) {
        String addressKey = addressKey(address);
        ConsumptionProbe byAddress = bucket(addresses, addressKey, perAddress).tryConsumeAndReturnRemaining(1);
        if (!byAddress.isConsumed()) {
            return new Admission.Throttled(seconds(byAddress.getNanosToWaitForRefill()));
        }
        String emailKey = EmailIdentity.of(email);
        // An address key holds no space: the pair key cannot be read two ways.
        String pairKey = addressKey + " " + emailKey;
        Bucket pair = bucket(pairs, pairKey, perPair);
        ConsumptionProbe byPair = pair.tryConsumeAndReturnRemaining(1);
        if (!byPair.isConsumed()) {
            return new Admission.Throttled(seconds(byPair.getNanosToWaitForRefill()));
        }
        ConsumptionProbe byEmail = bucket(emails, emailKey, perEmail).tryConsumeAndReturnRemaining(1);
        if (byEmail.isConsumed()) {
            return new Admission.Admitted(pairKey, emailKey);
        }
        if (usual.isUsual(email, address)) {
            return new Admission.Admitted(pairKey, null);
        }
        // Refused before its password is looked at: not a failure of the pair.
        pair.addTokens(1);
        return new Admission.Throttled(seconds(byEmail.getNanosToWaitForRefill()));
    }

    /**
     * Counts one signup from {@code address} against the same per-address allowance as logins: a signup costs an
     * Argon2 hash too, and creates an account.
     */
    public Optional<Long> refuseSignup(String address) {
        ConsumptionProbe byAddress = bucket(addresses, addressKey(address), perAddress).tryConsumeAndReturnRemaining(1);
        return byAddress.isConsumed() ? Optional.empty() : Optional.of(seconds(byAddress.getNanosToWaitForRefill()));
    }

    /**
     * The password was right, or could not be checked (no hash could start): the failures reserved by
     * {@link #admit} are given back.
     */
    public void giveBack(Admission.Admitted admission) {
        Bucket pair = pairs.getIfPresent(admission.pairKey());
        if (pair != null) {
            pair.addTokens(1);
        }
        if (admission.emailKey() != null) {
            Bucket email = emails.getIfPresent(admission.emailKey());
            if (email != null) {
                email.addTokens(1);
            }
        }
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
