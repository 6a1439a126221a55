package pe.quipu.api.watchlists;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.jdbi.v3.core.Jdbi;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.DomainException.PlanForbids;
import pe.quipu.api.domain.Text;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.ruc.RucChange;
import pe.quipu.core.ruc.Ruc;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * An account's watchlists (contract §11): named sets of RUCs, written as sets (a {@code PUT} replaces, a
 * {@code POST} adds), capped by the account's plan, and read with the changes the log recorded for their RUCs while
 * they were on the list. Every write runs in one transaction with the account's row locked, checks both caps on
 * what it would leave, and stores nothing when it goes over either.
 */
public final class AccountWatchlists {

    /** A list's name: 1 to 64 of {@code a-z}, {@code 0-9}, {@code -} and {@code _}. */
    static final Pattern NAME = Pattern.compile("[a-z0-9_-]{1,64}");
    /** How far back a list's changes start when {@code since} is not given. */
    static final Duration DEFAULT_SINCE = Duration.ofDays(30);

    private final Jdbi jdbi;
    private final Clock clock;
    private final ObjectMapper json;
    private final AccountLimitsCache limits;
    private final Duration retention;

    AccountWatchlists(Jdbi jdbi, Clock clock, ObjectMapper json, AccountLimitsCache limits, Duration retention) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.json = json;
        this.limits = limits;
        this.retention = retention;
    }

    /** A list as {@code GET /v1/watchlists} shows it. */
    @JsonPropertyOrder({"name", "count", "createdAt", "updatedAt"})
    public record View(String name, int count, Instant createdAt, Instant updatedAt) {
        static View of(WatchlistRows.ListRow row) {
            return new View(row.name(), row.rucs(), row.createdAt(), row.updatedAt());
        }
    }

    /** The answer of a write: the list as it now is, and the elements left out of it. */
    @JsonPropertyOrder({"name", "count", "createdAt", "updatedAt", "rejected"})
    public record Written(String name, int count, Instant createdAt, Instant updatedAt,
                          List<WatchlistBody.Rejected> rejected) {
    }

    /** A write's answer, and whether it created the list. */
    record Outcome(Written written, boolean created) {
    }

    /** A page of a list's RUCs, or of its changes; {@code nextCursor} null on the last page. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    @JsonPropertyOrder({"items", "nextCursor"})
    public record Page<T>(List<T> items, String nextCursor) {
    }

    /** Creates the list with these RUCs, or makes an existing list hold exactly these (201 or 200). */
    Outcome replace(UUID account, String name, WatchlistBody.Entries entries) {
        checkName(name);
        String[] rucs = entries.array();
        return jdbi.inTransaction(h -> {
            WatchlistRows rows = h.attach(WatchlistRows.class);
            AccountLimits plan = lock(rows, account);
            Instant now = now();
            WatchlistRows.ListRow existing = rows.find(account, name).orElse(null);
            long before = rows.distinctRucs(account);
            long id;
            int removed = 0;
            if (existing == null) {
                int lists = rows.lists(account);
                if (lists >= plan.watchlists()) {
                    throw new PlanForbids(Text.of(plan.watchlists() == 1 ? "watchlists.plan.lists_one"
                            : "watchlists.plan.lists_many", plan.plan(), plan.watchlists(), lists));
                }
                id = rows.create(account, name, now);
            } else {
                id = existing.id();
                removed = rows.keepOnly(id, rucs);
            }
            int added = rows.add(id, account, rucs, now);
            rows.counted(id, added - removed, now);
            checkRucCap(rows, account, plan, before);
            WatchlistRows.ListRow row = rows.find(account, name).orElseThrow();
            return new Outcome(new Written(row.name(), row.rucs(), row.createdAt(), row.updatedAt(),
                    entries.rejected()), existing == null);
        });
    }

    /** Adds these RUCs to an existing list. */
    Written add(UUID account, String name, WatchlistBody.Entries entries) {
        checkName(name);
        String[] rucs = entries.array();
        return jdbi.inTransaction(h -> {
            WatchlistRows rows = h.attach(WatchlistRows.class);
            AccountLimits plan = lock(rows, account);
            WatchlistRows.ListRow list = rows.find(account, name).orElseThrow(() -> noList(name));
            long before = rows.distinctRucs(account);
            int added = rows.add(list.id(), account, rucs, now());
            rows.counted(list.id(), added, now());
            checkRucCap(rows, account, plan, before);
            WatchlistRows.ListRow row = rows.find(account, name).orElseThrow();
            return new Written(row.name(), row.rucs(), row.createdAt(), row.updatedAt(), entries.rejected());
        });
    }

    /** Takes one RUC off a list; a RUC not on it is 404 as a list that does not exist is. */
    void remove(UUID account, String name, Ruc ruc) {
        checkName(name);
        jdbi.useTransaction(h -> {
            WatchlistRows rows = h.attach(WatchlistRows.class);
            lock(rows, account);
            WatchlistRows.ListRow list = rows.find(account, name).orElseThrow(() -> noList(name));
            if (rows.remove(list.id(), ruc.value()) == 0) {
                throw new NotFound(Text.of("watchlists.ruc_not_on_list", name, ruc.value()));
            }
            rows.counted(list.id(), -1, now());
        });
    }

    void delete(UUID account, String name) {
        checkName(name);
        jdbi.useTransaction(h -> {
            WatchlistRows rows = h.attach(WatchlistRows.class);
            lock(rows, account);
            rows.delete(rows.find(account, name).orElseThrow(() -> noList(name)).id());
        });
    }

    List<View> all(UUID account) {
        return jdbi.withExtension(WatchlistRows.class, rows -> rows.all(account)).stream().map(View::of).toList();
    }

    View get(UUID account, String name) {
        checkName(name);
        return View.of(jdbi.withExtension(WatchlistRows.class, rows -> rows.find(account, name))
                .orElseThrow(() -> noList(name)));
    }

    /** Up to {@code limit} RUCs of the list, in RUC order, after the cursor's when one is given. */
    Page<String> rucs(UUID account, String name, int limit, String cursor) {
        checkName(name);
        String after = cursor == null ? "" : WatchlistCursors.rucsAfter(cursor, name);
        List<String> found = jdbi.withExtension(WatchlistRows.class, rows -> {
            WatchlistRows.ListRow list = rows.find(account, name).orElseThrow(() -> noList(name));
            return rows.rucs(list.id(), after, limit + 1);
        });
        boolean more = found.size() > limit;
        List<String> items = more ? found.subList(0, limit) : found;
        return new Page<>(List.copyOf(items), more ? WatchlistCursors.rucs(name, items.getLast()) : null);
    }

    /**
     * Up to {@code limit} changes to the list's RUCs, oldest first, each recorded while its RUC was on the list,
     * from {@code since} (by default {@link #DEFAULT_SINCE} ago; with a cursor and no {@code since}, from the
     * retention's cut-off: the cursor says where the pages are) and after the cursor's change when one is given.
     *
     * @throws InvalidInput when {@code since} is older than the log's retention
     */
    Page<RucChange> changes(UUID account, String name, Instant since, int limit, String cursor) {
        checkName(name);
        Instant now = now();
        Instant cutoff = retention.compareTo(Duration.between(Instant.EPOCH, now)) >= 0 ? Instant.EPOCH
                : now.minus(retention);
        if (since != null && since.isBefore(cutoff)) {
            throw new InvalidInput("since", Text.of("watchlists.since.before_retention", retention.toDays(), cutoff));
        }
        WatchlistCursors.ChangesAfter after = cursor == null ? null : WatchlistCursors.changesAfter(cursor, name);
        Instant from = since != null ? since : after != null ? cutoff : latest(cutoff, now.minus(DEFAULT_SINCE));
        List<WatchlistRows.ChangeRow> found = jdbi.withExtension(WatchlistRows.class, rows -> {
            WatchlistRows.ListRow list = rows.find(account, name).orElseThrow(() -> noList(name));
            Instant afterAt = after == null ? Instant.EPOCH : after.at();
            long afterId = after == null ? 0 : after.id();
            return rows.changes(list.id(), from, afterAt, afterId, limit + 1);
        });
        boolean more = found.size() > limit;
        List<WatchlistRows.ChangeRow> shown = more ? found.subList(0, limit) : found;
        List<RucChange> items = new ArrayList<>(shown.size());
        for (WatchlistRows.ChangeRow row : shown) {
            items.add(RucChange.fromLog(json, row.ruc(), row.kind(), row.changes(), row.padrones(), row.loadRunId(),
                    row.at()));
        }
        WatchlistRows.ChangeRow last = more ? shown.getLast() : null;
        return new Page<>(items, last == null ? null : WatchlistCursors.changes(name, last.at(), last.id()));
    }

    /** The account's limits, its row locked for the transaction: its lists change one write at a time. */
    private AccountLimits lock(WatchlistRows rows, UUID account) {
        if (rows.lockAccount(account).isEmpty()) {
            throw new NotFound(Text.of("watchlists.no_account"));
        }
        return limits.get(account).orElseThrow(() -> new NotFound(Text.of("watchlists.no_account")));
    }

    /**
     * Over the plan's distinct RUCs after the write, and more than before it: refused, and the transaction with it.
     * An account above its cap (after a downgrade) may still remove, and write what it already watches.
     */
    private static void checkRucCap(WatchlistRows rows, UUID account, AccountLimits plan, long before) {
        long after = rows.distinctRucs(account);
        if (after > plan.watchlistRucs() && after > before) {
            throw new PlanForbids(Text.of("watchlists.plan.rucs", plan.plan(), plan.watchlistRucs(), after));
        }
    }

    private static void checkName(String name) {
        if (!NAME.matcher(name).matches()) {
            throw new InvalidInput("name", Text.of("watchlists.name.malformed"));
        }
    }

    private static NotFound noList(String name) {
        return new NotFound(Text.of("watchlists.not_found", name));
    }

    private Instant now() {
        // PostgreSQL keeps microseconds: the instant written is the one answers show.
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    private static Instant latest(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }
}
