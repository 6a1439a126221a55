package pe.quipu.api.accounts;

import com.password4j.Argon2Function;
import com.password4j.Password;
import com.password4j.types.Argon2;

import java.util.concurrent.Semaphore;

/**
 * Argon2id password hashes in PHC string form ({@code $argon2id$v=19$m=…,t=…,p=…$salt$hash}), with OWASP's
 * minimum parameters (19 MiB, 2 passes, 1 lane). A stored hash carries its own parameters, so raising them later
 * leaves older hashes verifiable.
 */
public final class PasswordHasher {

    private static final Argon2Function ARGON2ID = Argon2Function.getInstance(19 * 1024, 2, 1, 32, Argon2.ID);
    private static final int SALT_BYTES = 16;
    /**
     * Each hash or verification takes 19 MiB and a core for tens of milliseconds; at most one per core runs at once,
     * so a burst of signups or logins queues instead of exhausting the heap.
     */
    private final Semaphore running = new Semaphore(Runtime.getRuntime().availableProcessors(), true);

    /**
     * Verified instead when the email is unknown (or the account has no password), so that a login costs the same
     * whether or not the account exists.
     */
    private final String decoy = hash("decoy password that no account has");

    public String hash(String password) {
        running.acquireUninterruptibly();
        try {
            return Password.hash(password).addRandomSalt(SALT_BYTES).with(ARGON2ID).getResult();
        } finally {
            running.release();
        }
    }

    /** Whether {@code password} matches {@code storedHash}; with a null hash, spends the same time and says no. */
    public boolean matches(String password, String storedHash) {
        if (storedHash == null) {
            check(password, decoy);
            return false;
        }
        return check(password, storedHash);
    }

    private boolean check(String password, String hash) {
        running.acquireUninterruptibly();
        try {
            return Password.check(password, hash).with(Argon2Function.getInstanceFromHash(hash));
        } finally {
            running.release();
        }
    }
}
