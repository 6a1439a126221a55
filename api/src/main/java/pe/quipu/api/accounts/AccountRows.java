package pe.quipu.api.accounts;

import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Define;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import pe.quipu.core.accounts.EmailIdentity;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** The SQL of {@code accounts}: signup, credentials, the profile and its rectification, admin rights. */
interface AccountRows {

    @SqlUpdate("""
            insert into accounts (id, email, email_identity, nombre, password_hash, created_at)
            values (:id, :email, :identity, :nombre, :passwordHash, :now)""")
    void insert(UUID id, String email, String identity, String nombre, String passwordHash, Instant now);

    /** What a login checks. */
    record Credentials(UUID id, String passwordHash) {
    }

    @SqlQuery("select id, password_hash from accounts where " + EmailIdentity.MATCHES + " and deleted_at is null"
            + EmailIdentity.EXACT_FIRST)
    @RegisterConstructorMapper(Credentials.class)
    Optional<Credentials> credentials(String email, String identity);

    /**
     * The client addresses the live account with this email logged in from since {@code since} (its {@code login}
     * audit rows), the latest first, at most 100.
     */
    @SqlQuery("select l.ip from audit_log l where l.account_id = (select id from accounts where " + EmailIdentity.MATCHES
            + " and deleted_at is null" + EmailIdentity.EXACT_FIRST + ")"
            + " and l.action = 'login' and l.at >= :since and l.ip is not null"
            + " group by l.ip order by max(l.at) desc limit 100")
    List<String> loginAddresses(String email, String identity, Instant since);

    /** The profile of a live account; {@code lock} is empty or {@code for update}. */
    @SqlQuery("""
            select id, email, nombre, usage_alert_percent, created_at
              from accounts where id = :id and deleted_at is null <lock>""")
    @RegisterConstructorMapper(Account.class)
    Optional<Account> profile(UUID id, @Define("lock") String lock);

    @SqlUpdate("""
            update accounts set nombre = :nombre, email = :email, email_identity = :identity,
                   usage_alert_percent = :percent
             where id = :id""")
    void rectify(UUID id, String nombre, String email, String identity, int percent);

    /** Whether the live account with this email is an administrator, locked while its rights change. */
    record Admin(UUID id, boolean isAdmin) {
    }

    @SqlQuery("select id, is_admin from accounts where " + EmailIdentity.MATCHES + " and deleted_at is null"
            + EmailIdentity.EXACT_FIRST + " for no key update")
    @RegisterConstructorMapper(Admin.class)
    Optional<Admin> lockAdmin(String email, String identity);

    @SqlUpdate("update accounts set is_admin = true where id = :id")
    void grantAdmin(UUID id);

    /** Delivered on commit to every instance, this one included: the account's limits changed. */
    @SqlQuery("select pg_notify(:channel, :payload)")
    String notify(String channel, String payload);
}
