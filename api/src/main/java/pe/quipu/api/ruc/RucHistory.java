package pe.quipu.api.ruc;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.jdbi.v3.core.Jdbi;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.api.domain.Text;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A RUC's history (contract §11): its changes in the log, newest first ({@code at}, then {@code id}), within
 * retention, a page at a time. Not kept in memory: a page is one read of the log's {@code (ruc, at desc, id desc)}
 * index, and a RUC without changes one more (does the registry or the log know it).
 */
public final class RucHistory {

    /** A page of changes and where the next one starts (null on the last page). */
    record Page(List<RucChange> items, HistoryCursor next) {
    }

    private final Jdbi jdbi;
    private final ObjectMapper json;
    private final Supplier<Instant> cutoff;

    /** @param cutoff the retention's cut-off now ({@link ChangeRetention#cutoff()}) */
    RucHistory(Jdbi jdbi, ObjectMapper json, Supplier<Instant> cutoff) {
        this.jdbi = jdbi;
        this.json = json;
        this.cutoff = cutoff;
    }

    /**
     * Up to {@code limit} changes of {@code ruc}, after {@code after} when not null (a cursor of this RUC's history).
     * An empty page is an answer only for a RUC that the registry holds or that the log knows within retention.
     *
     * @throws NotFound when neither does
     */
    Page page(Ruc ruc, int limit, HistoryCursor after) {
        Instant from = cutoff.get();
        // No snapshot is needed across the two reads: a load between them only adds to what the second one sees
        // (a removal is logged too), so the worst it does is answer [] for a RUC whose first change it just
        // published; nothing makes a RUC unseen but the cut-off, which is fixed for the request.
        List<ChangeLogRows.Row> rows = jdbi.withHandle(handle -> {
            ChangeLogRows log = handle.attach(ChangeLogRows.class);
            List<ChangeLogRows.Row> found = after == null
                    ? log.newest(ruc.value(), from, limit + 1)
                    : log.after(ruc.value(), from, after.at(), after.id(), limit + 1);
            if (found.isEmpty() && !log.seen(ruc.value(), from)) {
                throw new NotFound(Text.of("ruc.history.not_found", ruc.value()));
            }
            return found;
        });
        boolean more = rows.size() > limit;
        List<ChangeLogRows.Row> shown = more ? rows.subList(0, limit) : rows;
        List<RucChange> items = new ArrayList<>(shown.size());
        for (ChangeLogRows.Row row : shown) {
            items.add(change(row));
        }
        ChangeLogRows.Row last = more ? shown.getLast() : null;
        return new Page(items, last == null ? null : new HistoryCursor(ruc.value(), last.at(), last.id()));
    }

    private RucChange change(ChangeLogRows.Row row) {
        return RucChange.fromLog(json, row.ruc(), row.kind(), row.changes(), row.padrones(), row.loadRunId(),
                row.at());
    }
}
