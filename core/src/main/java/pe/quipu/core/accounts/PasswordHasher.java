package pe.quipu.core.accounts;

import com.password4j.Argon2Function;
import com.password4j.Password;
import com.password4j.types.Argon2;

/**
 * Argon2id password hashes in PHC string form ({@code $argon2id$v=19$m=…,t=…,p=…$salt$hash}), with OWASP's
 * minimum parameters (19 MiB, 2 passes, 1 lane). A stored hash carries its own parameters, so raising them later
 * leaves older hashes verifiable.
 */
public final class PasswordHasher {

    private static final Argon2Function ARGON2ID = Argon2Function.getInstance(19 * 1024, 2, 1, 32, Argon2.ID);
    private static final int SALT_BYTES = 16;

    /**
     * Verified instead when the email is unknown (or the account has no password), so that a login costs the same
     * whether or not the account exists.
     */
    private final String decoy = hash("decoy password that no account has");

    public String hash(String password) {
        return Password.hash(password).addRandomSalt(SALT_BYTES).with(ARGON2ID).getResult();
    }

    /** Whether {@code password} matches {@code storedHash}; with a null hash, spends the same time and says no. */
    public boolean matches(String password, String storedHash) {
        if (storedHash == null) {
            check(password, decoy);
            return false;
        }
        return check(password, storedHash);
    }

    private static boolean check(String password, String hash) {
        return Password.check(password, hash).with(Argon2Function.getInstanceFromHash(hash));
    }
}
