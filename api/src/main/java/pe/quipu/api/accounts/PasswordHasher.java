package pe.quipu.api.accounts;

import com.password4j.Argon2Function;
import com.password4j.Password;
import com.password4j.types.Argon2;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.domain.DomainException.RateLimited;
import pe.quipu.api.domain.Text;
import pe.quipu.api.throttle.KeyedThrottle;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Argon2id password hashes in PHC string form ({@code $argon2id$v=19$m=…,t=…,p=…$salt$hash}), with OWASP's
 * minimum parameters (19 MiB, 2 passes, 1 lane). A stored hash carries its own parameters, so raising them later
 * leaves older hashes verifiable.
 *
 * <p>Each hash or verification allocates its 19 MiB on the heap (password4j copies a zeroed block array its
 * {@link Argon2Function} keeps, itself another 19 MiB held for the life of the process) and takes a core for tens of
 * milliseconds. Anyone can ask for one (login and signup need no credential), so how many run at once is bounded by
 * the heap, not by the cores alone: {@link #permitsFor}. A request waits at most {@link #WAIT} for its turn, then is
 * refused with {@link RateLimited} (429 with Retry-After) rather than queue without end.
 */
public final class PasswordHasher {

    private static final Logger LOG = LoggerFactory.getLogger(PasswordHasher.class);
    private static final Argon2Function ARGON2ID = Argon2Function.getInstance(19 * 1024, 2, 1, 32, Argon2.ID);
    private static final int SALT_BYTES = 16;
    /** What one hash takes on the heap: its 19 MiB of blocks, with room for the rest of the request. */
    static final long BYTES_PER_HASH = 20L << 20;
    /** The share of the heap that hashes may take at once (1/4): the rest serves everything else. */
    static final int HEAP_SHARE_DIVISOR = 4;
    /** How long a request waits for a hash to finish before it is refused. */
    static final Duration WAIT = Duration.ofSeconds(2);
    /** What a refused request is told to wait: by then the hashes running now are done. */
    static final long RETRY_AFTER_SECONDS = 1;

    private final Semaphore running;
    private final int permits;
    private final Duration wait;

    /**
     * Verified instead when the email is unknown (or the account has no password), so that a login costs the same
     * whether or not the account exists: a hash with today's parameters of a random password nobody kept. A constant
     * rather than one computed at start, which cost every start an Argon2 run of its own.
     */
    static final String DECOY = "$argon2id$v=19$m=19456,t=2,p=1$RgflgVD6dzPZDQU9ZGU8YA$"
            + "5yfrc4e0y8w5Imx77RXQrYZGBn9zf03xD84qLGA/Oq8";

    /** Sized for this JVM: its maximum heap ({@code -Xmx}) and the processors it sees. */
    public PasswordHasher() {
        this(permitsFor(Runtime.getRuntime().maxMemory(), Runtime.getRuntime().availableProcessors()), WAIT);
        LOG.info("Password hashing: at most {} at once ({} MB of heap, {} processors)", permits,
                Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors());
    }

    PasswordHasher(int permits, Duration wait) {
        if (permits < 1) {
            throw new IllegalArgumentException("at least one hash must be able to run");
        }
        this.permits = permits;
        this.wait = wait;
        this.running = new Semaphore(permits, true);
    }

    /**
     * How many hashes may run at once: a quarter of the heap divided by what one hash takes, at least one, and no
     * more than the processors (more would only queue on the CPU while holding their memory). A 256 MB heap runs 3 at
     * once however many cores the host has; the 128 MB heap ./quipu gives, 1; a 4 GB heap, one per processor up to
     * 51.
     */
    static int permitsFor(long maxHeapBytes, int processors) {
        long byHeap = maxHeapBytes / HEAP_SHARE_DIVISOR / BYTES_PER_HASH;
        return (int) Math.max(1, Math.min(processors, byHeap));
    }

    /** How many hashes this instance runs at once. */
    public int permits() {
        return permits;
    }

    /** A new hash of {@code password}; {@link RateLimited} when no hash could start within {@link #WAIT}. */
    public String hash(String password) {
        enter();
        try {
            return argon2(password);
        } finally {
            running.release();
        }
    }

    /**
     * Whether {@code password} matches {@code storedHash}; with a null hash, spends the same time and says no.
     * {@link RateLimited} when no verification could start within {@link #WAIT}.
     */
    public boolean matches(String password, String storedHash) {
        if (storedHash == null) {
            check(password, DECOY);
            return false;
        }
        return check(password, storedHash);
    }

    private boolean check(String password, String hash) {
        enter();
        try {
            return Password.check(password, hash).with(Argon2Function.getInstanceFromHash(hash));
        } finally {
            running.release();
        }
    }

    /** Waits for a turn, in arrival order, for at most {@link #wait}. */
    private void enter() {
        boolean entered;
        try {
            entered = running.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            entered = false;
        }
        if (!entered) {
            throw new RateLimited(Text.of("accounts.login.hashing_busy", KeyedThrottle.seconds(RETRY_AFTER_SECONDS)),
                    RETRY_AFTER_SECONDS);
        }
    }

    private static String argon2(String password) {
        return Password.hash(password).addRandomSalt(SALT_BYTES).with(ARGON2ID).getResult();
    }
}
