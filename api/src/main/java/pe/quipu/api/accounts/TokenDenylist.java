package pe.quipu.api.accounts;

import io.dropwizard.lifecycle.Managed;
import org.jdbi.v3.core.Jdbi;

import java.time.Clock;
import java.util.HashSet;
import java.util.Set;

/**
 * Access tokens (by {@code jti}) and sessions (by {@code sid}) that must fail before their JWTs expire: a logout, a
 * session revoked for refresh-token reuse. The {@code token_denylist} table is the truth; every instance keeps the
 * unexpired rows in memory and rereads them when {@code quipu_token_denylist} announces a new one, so checking a
 * token costs no query. Entries past their expiry are dropped on the next reread: their JWTs fail on {@code exp}.
 */
public final class TokenDenylist implements Managed {

    public static final String CHANNEL = "quipu_token_denylist";

    private final Jdbi jdbi;
    private final Clock clock;
    private volatile Set<String> denied = Set.of();

    public TokenDenylist(Jdbi jdbi, Clock clock) {
        this.jdbi = jdbi;
        this.clock = clock;
    }

    public boolean deniesToken(String jti) {
        return denied.contains("jti:" + jti);
    }

    public boolean deniesSession(String sid) {
        return denied.contains("sid:" + sid);
    }

    /** Reads the rows once listening has started, so that no addition in between goes unnoticed. */
    @Override
    public void start() {
        reload();
    }

    /**
     * A notification names the new row ({@code jti:<value>} or {@code sid:<value>}): it is refused at once, even if
     * the reread that follows fails, and the reread drops what has expired.
     */
    public void onNotification(String payload) {
        if (payload.startsWith("jti:") || payload.startsWith("sid:")) {
            synchronized (this) {
                Set<String> more = new HashSet<>(denied);
                more.add(payload);
                denied = Set.copyOf(more);
            }
        }
        reload();
    }

    /**
     * Rereads every unexpired row: at start, on each notification, and when notifications may have been missed.
     * One reread at a time, so an older snapshot never replaces a newer one.
     */
    public synchronized void reload() {
        Set<String> rows = jdbi.withHandle(h -> h.attach(SessionRows.class).denied(clock.instant()));
        denied = Set.copyOf(rows);
    }
}
