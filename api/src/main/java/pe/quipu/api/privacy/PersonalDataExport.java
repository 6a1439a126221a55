package pe.quipu.api.privacy;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.transaction.TransactionIsolationLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.domain.LimaCalendar;
import pe.quipu.api.accounts.Profiles;
import pe.quipu.api.audit.AuditLog;
import pe.quipu.api.domain.DomainException.RateLimited;
import pe.quipu.api.domain.Text;
import pe.quipu.api.metering.UsageMeter;
import pe.quipu.api.metering.Usage;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.plans.PlanTable;
import pe.quipu.api.throttle.KeyedThrottle;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The account holder's copy of everything Quipu keeps about them ({@code GET /v1/me/export}, the spec's
 * "Personal-data export document", contract §8). One export per {@link #THROTTLE} per account, on every instance
 * alike: the time of the last one is a column of the account, checked and set under the account row's lock, and
 * the export's audit row commits with it. The document is then written as the rows are read ({@link ExportWriter}),
 * from one snapshot of the database.
 */
public final class PersonalDataExport {

    public static final Duration THROTTLE = Duration.ofHours(24);
    private static final Logger LOG = LoggerFactory.getLogger(PersonalDataExport.class);

    private final Jdbi jdbi;
    private final Clock clock;
    private final ObjectMapper json;
    private final AuditLog audit;
    private final PrivacySettings.Compliance compliance;
    private final PlanTable plans;
    private final AccountLimitsCache limits;
    private final UsageMeter meter;

    public PersonalDataExport(Jdbi jdbi, Clock clock, ObjectMapper json, AuditLog audit, PrivacySettings privacy,
                              PlanTable plans, AccountLimitsCache limits, UsageMeter meter) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.json = json;
        this.audit = audit;
        this.compliance = privacy.compliance();
        this.plans = plans;
        this.limits = limits;
        this.meter = meter;
    }

    /**
     * Starts an export: notes it (so the next one waits {@link #THROTTLE}) and audits it ({@code export}). Refused
     * with {@link RateLimited} (how long until 24 h after the previous export) when the account exported less than
     * 24 h ago; with {@link Profiles#accountGone()} when the account no longer exists.
     */
    public Started start(UUID accountId, AuditLog.Origin origin) {
        // PostgreSQL keeps microseconds: the instant noted is the one compared with later.
        Instant now = clock.instant().truncatedTo(ChronoUnit.MICROS);
        Instant previous = jdbi.inTransaction(h -> {
            ExportRows rows = h.attach(ExportRows.class);
            ExportRows.ExportState state = rows.lockExportState(accountId)
                    .filter(s -> s.deletedAt() == null)
                    .orElseThrow(Profiles::accountGone);
            Instant last = state.lastExportedAt();
            if (last != null && now.isBefore(last.plus(THROTTLE))) {
                long wait = secondsUntil(now, last.plus(THROTTLE));
                throw new RateLimited(Text.of("privacy.export.throttled", last, KeyedThrottle.seconds(wait)), wait);
            }
            rows.noteExport(accountId, now);
            audit.record(h, accountId, "export", origin, Map.of("format", ExportWriter.FORMAT));
            return last;
        });
        return new Started(accountId, now, previous);
    }

    /** Whole seconds from {@code now} until {@code then}, rounded up, at least 1. */
    private static long secondsUntil(Instant now, Instant then) {
        Duration left = Duration.between(now, then);
        long seconds = left.toSeconds() + (left.toNanosPart() > 0 ? 1 : 0);
        return Math.max(1, seconds);
    }

    /** An export that was noted and audited, ready to be written. */
    public final class Started {
        private final UUID accountId;
        private final Instant exportedAt;
        private final Instant previous;

        private Started(UUID accountId, Instant exportedAt, Instant previous) {
            this.accountId = accountId;
            this.exportedAt = exportedAt;
            this.previous = previous;
        }

        public Instant exportedAt() {
            return exportedAt;
        }

        /** The export's date on the account holder's calendar (Lima), for the file's name. */
        public LocalDate date() {
            return LimaCalendar.date(exportedAt);
        }

        /**
         * Writes the document to {@code out} as its rows are read, in one REPEATABLE READ transaction so that every
         * section shows the same moment. A failure on Quipu's side (the database) gives the export back, so the
         * holder may try again at once; a client that hangs up has had its export.
         */
        public void writeTo(OutputStream out) throws IOException {
            // Read from the instance's own view, as GET /v1/usage answers it: the counts not yet synced included.
            Optional<Usage> usage = limits.get(accountId)
                    .map((AccountLimits account) -> Usage.of(account, meter.monthUsed(account), exportedAt));
            // A failure must not close the open arrays and objects: a cut document has to look cut.
            JsonGenerator generator = json.getFactory().createGenerator(out, JsonEncoding.UTF8)
                    .disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                    .disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
            try {
                jdbi.useTransaction(TransactionIsolationLevel.REPEATABLE_READ, h ->
                        new ExportWriter(h.attach(ExportRows.class), generator, plans)
                                .write(accountId, exportedAt, compliance, usage));
            } catch (RuntimeException e) {
                LOG.error("The export of account {} failed; it does not count against the throttle", accountId, e);
                jdbi.useHandle(h -> h.attach(ExportRows.class).restoreExport(accountId, exportedAt, previous));
                throw e;
            } finally {
                generator.close();
            }
        }
    }
}
