package pe.quipu.etl.padron;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.config.RegisterConstructorMapper;
import org.jdbi.v3.sqlobject.customizer.Define;
import org.jdbi.v3.sqlobject.statement.SqlQuery;
import org.jdbi.v3.sqlobject.statement.SqlUpdate;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.job.JobInterruptedException;
import pe.quipu.core.ruc.ContentHash;
import pe.quipu.core.ruc.MalformedPadronLineException;
import pe.quipu.core.ruc.PadronLine;
import pe.quipu.core.ruc.PadronRecord;
import pe.quipu.core.ruc.RegistryColumns;
import pe.quipu.core.ruc.RegistrySearch;
import pe.quipu.core.ruc.SearchNames;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.Staged;
import pe.quipu.etl.source.ReadAhead;
import pe.quipu.etl.source.SourceLines;

import java.io.InputStream;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Streams the padrón's lines into the unlogged staging table {@value #STAGE} with COPY: one thread reads,
 * parses, validates and fingerprints the lines into COPY text while the calling thread feeds PostgreSQL, so
 * that parsing and the server's COPY work side by side. Malformed lines are counted and the first few kept
 * as a sample; a RUC met twice keeps its last line (a later line supersedes an earlier one, as in any
 * upsert) and each earlier one counts as rejected.
 *
 * <p>Given the registry in service's lines ({@link RegistryLines}), it stages only the lines that are not byte for
 * byte the ones its records were loaded from (changed and added records, and every line of a RUC met twice), and
 * lists in {@value #GONE} the records no line named: a day's reload parses and sends about 1 % of the file. The
 * staged rows say whether their RUC is in service ({@code known}); RUCs met twice among the others are found in the
 * staging table afterwards.
 */
final class PadronStager {

    static final String STAGE = "ruc_registry_stage";
    /** The RUCs in service that no line of the file named, when only changed lines are staged. */
    static final String GONE = "ruc_registry_gone";
    static final int SAMPLE_SIZE = 10;
    /** How often, in lines at most, the run checks whether it was asked to stop. */
    static final int CHECK_EVERY = 100_000;
    private static final int CHUNK = 1 << 20;
    /**
     * ruc, the fourteen published fields ({@link RegistryColumns}, ContentHash's order), the normalised name
     * ({@link RegistrySearch#COLUMN}), content_hash, line, line_hash, known.
     */
    private static final int STAGE_COLUMNS = 1 + ContentHash.FIELDS + 5;
    /** ruc, the fourteen published fields, the normalised name, content_hash, line_hash, actualizado. */
    private static final int NEW_REGISTRY_FIELDS = 1 + ContentHash.FIELDS + 4;
    /** Where PostgreSQL's binary timestamps count from. */
    private static final Instant POSTGRES_EPOCH = Instant.parse("2000-01-01T00:00:00Z");
    /** Beyond this many distinct duplicated RUCs the file is not a padrón; stop rather than keep them all. */
    private static final int MAX_DUPLICATED = 1_000_000;
    private static final Logger LOG = LoggerFactory.getLogger(PadronStager.class);

    private final Jdbi jdbi;

    /** @param jdbi whose handles have a connection of their own: staging commits as it goes, outside the step */
    PadronStager(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** Drops what a failed or killed run left behind, at once; the registry in service is never among them. */
    static void dropLeftovers(Jdbi jdbi) {
        jdbi.useHandle(handle -> handle.attach(StageRows.class).dropLeftovers());
    }

    /** What staging found, and whether it staged every record or only the changed lines. */
    record Result(Staged staged, boolean changedLinesOnly, long unchangedLines) {
    }

    /** The columns a first load writes into {@value RegistryPublisher#NEW}, in {@link Parser}'s order. */
    private static final String NEW_REGISTRY_COLUMNS = "ruc, " + RegistryColumns.each(c -> c, ", ") + ", "
            + RegistrySearch.COLUMN + ", content_hash, line_hash, actualizado";

    /**
     * @param inService the registry in service's lines, to stage only the lines that differ from them; null to
     *                  stage every line (a first load, or a registry too large for the heap)
     * @param progress  told of the lines read and rejected as the parser goes
     */
    Result stage(InputStream text, RegistryLines inService, BooleanSupplier stopRequested, Progress progress)
            throws Exception {
        return stage(text, inService, null, stopRequested, progress);
    }

    /**
     * As {@link #stage(InputStream, RegistryLines, BooleanSupplier, Progress)}; with {@code firstLoadAt}, into an
     * empty registry, every record goes straight into {@value RegistryPublisher#NEW} instead of the staging table,
     * shaped as the registry, each record's {@code actualizado} that time, the table created in the COPY's
     * transaction (so its rows are written frozen: nothing to mark on them afterwards); the publication then only
     * indexes it and swaps it in. Nothing to compare, so no staging table to copy it from.
     */
    Result stage(InputStream text, RegistryLines inService, Instant firstLoadAt, BooleanSupplier stopRequested,
                 Progress progress) throws Exception {
        try (Handle handle = jdbi.open()) {
            StageRows rows = handle.attach(StageRows.class);
            String into;
            if (firstLoadAt == null) {
                // The padrón's published columns, as text; only the name is required of every record.
                rows.create(RegistryColumns.each(c -> c + (c.equals("razon_social") ? " text not null" : " text"),
                        ", "));
                into = STAGE + " from stdin with (format binary)";
            } else {
                handle.begin();
                RegistryPublisher.createNew(handle);
                into = RegistryPublisher.NEW + " (" + NEW_REGISTRY_COLUMNS + ") from stdin with (format binary, freeze)";
            }
            SearchNames names = SearchNames.read(handle);
            // Plain JDBC: Jdbi has no COPY, and PgJDBC's CopyIn streams the rows without a statement per row.
            CopyIn copy = handle.getConnection().unwrap(PGConnection.class).getCopyAPI().copyIn("copy " + into);
            copy.writeToCopy(CopyChunk.HEADER, 0, CopyChunk.HEADER.length);
            Parser parser = new Parser(text, names, inService, firstLoadAt, progress);
            progress.lines(0, 0);
            Thread thread = Thread.ofPlatform().name("padron-parser").daemon().start(parser);
            try {
                feed(copy, parser, stopRequested);
            } catch (Exception | Error e) {
                parser.stopped = true;
                thread.interrupt();
                if (copy.isActive()) {
                    copy.cancelCopy();
                }
                throw e;
            } finally {
                // Interrupting unblocks a parser stuck reading (file channels are interruptible); a parser that
                // still does not end is a daemon and must not hold the run's end.
                thread.join(java.time.Duration.ofSeconds(10));
            }
            long copied = copy.endCopy();
            List<String> sample = new ArrayList<>(parser.sample);
            long duplicates = parser.duplicates;
            if (inService != null) {
                copyGone(handle, inService);
                // RUCs met twice that are not in service: each earlier line gives way to the last, as above.
                for (StageRows.Superseded later : rows.keepLastOfEveryDuplicate()) {
                    if (!later.known()) {
                        duplicates++;
                        if (sample.size() < SAMPLE_SIZE) {
                            sample.add("line " + later.line() + ": RUC " + later.ruc() + " already appeared on an"
                                    + " earlier line, which this one replaces");
                        }
                    }
                }
            } else if (!parser.duplicated.isEmpty()) {
                String[] duplicated = parser.duplicated.toArray(String[]::new);
                copied -= firstLoadAt == null ? rows.keepLastOfEachDuplicate(duplicated)
                        : rows.keepLastOfEachDuplicateInNew(duplicated);
            }
            if (firstLoadAt != null) {
                if (parser.unnormalisedNames) {
                    rows.normaliseNamesInNew();
                }
                handle.commit();
            }
            long records = parser.read - parser.malformed - duplicates;
            if (inService == null && records != copied) {
                throw new IllegalStateException("staged " + copied + " rows for " + records + " records");
            }
            return new Result(new Staged(parser.read, records, parser.malformed, duplicates, List.copyOf(sample)),
                    inService != null, parser.unchanged);
        }
    }

    /** The RUCs in service that no line named, into {@value #GONE}. */
    private static void copyGone(Handle handle, RegistryLines inService) throws Exception {
        handle.attach(StageRows.class).createGone();
        CopyIn copy = handle.getConnection().unwrap(PGConnection.class).getCopyAPI()
                .copyIn("copy " + GONE + " from stdin with (format binary)");
        try {
            CopyChunk[] rows = {new CopyChunk(CHUNK + 4096)};
            rows[0].bytes(CopyChunk.HEADER);
            inService.forEachUnseen(ruc -> {
                rows[0].startRow(1).ascii(ruc);
                if (rows[0].length() >= CHUNK) {
                    write(copy, rows[0]);
                    rows[0] = new CopyChunk(CHUNK + 4096);
                }
            });
            rows[0].bytes(CopyChunk.TRAILER);
            write(copy, rows[0]);
            copy.endCopy();
        } finally {
            if (copy.isActive()) {
                copy.cancelCopy();
            }
        }
    }

    private static void write(CopyIn copy, CopyChunk chunk) {
        try {
            copy.writeToCopy(chunk.bytes(), 0, chunk.length());
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("could not list the records the file does not name", e);
        }
    }

    private static void feed(CopyIn copy, Parser parser, BooleanSupplier stopRequested) throws Exception {
        while (true) {
            // A chunk holds about 10,000 lines, so this checks well within every 100,000 lines, and at least
            // every half second while the input stalls (a slow disk or download).
            if (stopRequested.getAsBoolean()) {
                throw new JobInterruptedException("padron: stopped on request while staging");
            }
            CopyChunk chunk = parser.chunks.poll(500, TimeUnit.MILLISECONDS);
            if (chunk == null) {
                continue;
            }
            if (chunk == Parser.END) {
                break;
            }
            copy.writeToCopy(chunk.bytes(), 0, chunk.length());
        }
        if (parser.failure != null) {
            throw parser.failure instanceof Exception e ? e : new IllegalStateException(parser.failure);
        }
        copy.writeToCopy(CopyChunk.TRAILER, 0, CopyChunk.TRAILER.length);
    }

    /** The staging table's SQL; autocommit, each statement on its own. */
    interface StageRows {
        /** A staged line that a later line of its RUC replaced ({@code line}: the later one's number). */
        record Superseded(String ruc, boolean known, long line) {
        }

        @SqlUpdate("drop table if exists " + STAGE + ", " + GONE + ", " + RegistryPublisher.NEW + ", "
                + RegistryPublisher.OLD + ", " + RegistryPublisher.NEW_WORDS + ", " + RegistryPublisher.DIFF_KEYS + ", "
                + RegistryPublisher.DIFF)
        void dropLeftovers();

        /**
         * Unlogged: the staging rows need no crash safety, and skipping the WAL halves the write. {@code known}: the
         * RUC is in service (only when staging changed lines).
         */
        @SqlUpdate("create unlogged table " + STAGE + " (ruc char(11) not null, <published>,"
                + " " + RegistrySearch.COLUMN + " text, content_hash bigint not null, line bigint not null,"
                + " line_hash bigint not null, known boolean not null)")
        void create(@Define("published") String publishedColumns);

        @SqlUpdate("create unlogged table " + GONE + " (ruc char(11) not null)")
        void createGone();

        /**
         * As {@link #keepLastOfEachDuplicate}, in a first load's new registry, which has no line numbers: one COPY
         * into a table created in its transaction writes the rows in the file's order, so the last line of a RUC is
         * its row at the highest position.
         */
        @SqlUpdate("delete from " + RegistryPublisher.NEW + " n using"
                + " (select ruc, max(ctid) as keep from " + RegistryPublisher.NEW
                + " where ruc = any(cast(:rucs as bpchar[])) group by ruc) k where n.ruc = k.ruc and n.ctid < k.keep")
        int keepLastOfEachDuplicateInNew(String[] rucs);

        /** Names the parser could not normalise (a character outside Latin-1), normalised by the database. */
        @SqlUpdate("update " + RegistryPublisher.NEW + " set " + RegistrySearch.COLUMN + " = quipu_search_name(razon_social)"
                + " where " + RegistrySearch.COLUMN + " = ''")
        int normaliseNamesInNew();

        /** Keeps the last line of every RUC staged more than once; the later line of each one dropped. */
        @SqlQuery("delete from " + STAGE + " s using"
                + " (select ruc, max(line) as keep from " + STAGE + " group by ruc having count(*) > 1) k"
                + " where s.ruc = k.ruc and s.line < k.keep returning s.ruc, s.known, k.keep as line")
        @RegisterConstructorMapper(Superseded.class)
        List<Superseded> keepLastOfEveryDuplicate();

        @SqlUpdate("delete from " + STAGE + " s using"
                + " (select ruc, max(line) as keep from " + STAGE + " where ruc = any(cast(:rucs as bpchar[]))"
                + " group by ruc) k where s.ruc = k.ruc and s.line < k.keep")
        int keepLastOfEachDuplicate(String[] rucs);
    }

    /** Reads, parses and encodes on its own thread, handing COPY text over in chunks. */
    private static final class Parser implements Runnable {
        static final CopyChunk END = new CopyChunk(1);

        final BlockingQueue<CopyChunk> chunks = new ArrayBlockingQueue<>(8);
        final List<String> sample = new ArrayList<>();
        final Set<String> duplicated = new HashSet<>();
        private final InputStream text;
        private final SearchNames names;
        private final RegistryLines inService;
        private final Progress progress;
        volatile boolean stopped;
        volatile Throwable failure;
        long read;
        long malformed;
        long duplicates;
        /** Lines that are the ones their records were loaded from, not staged. */
        long unchanged;
        /** A first load's time, as PostgreSQL's binary timestamp (microseconds since 2000), or null. */
        private final Long actualizado;
        /** A first load's row left a name for the database to normalise. */
        boolean unnormalisedNames;

        Parser(InputStream text, SearchNames names, RegistryLines inService, Instant firstLoadAt, Progress progress) {
            this.text = text;
            this.names = names;
            this.inService = inService;
            this.actualizado = firstLoadAt == null ? null
                    : ChronoUnit.MICROS.between(POSTGRES_EPOCH, firstLoadAt);
            this.progress = progress;
        }

        @Override
        public void run() {
            try {
                parse();
            } catch (Throwable t) {
                failure = t;
            } finally {
                hand(END);
            }
        }

        private void parse() throws Exception {
            // The file is decompressed, hashed and counted on a thread of its own, beside this one's parsing.
            try (ReadAhead ahead = new ReadAhead(text, "padron-reader")) {
                parse(SourceLines.latin1(ahead));
            }
        }

        private void parse(SourceLines lines) throws Exception {
            ContentHash hash = new ContentHash();
            LineHash lineHash = new LineHash();
            RucSet seen = inService == null ? new RucSet() : null;
            byte[] rucBytes = new byte[11];
            CopyChunk rows = new CopyChunk(CHUNK + 4096);
            while (!stopped && lines.advance()) {
                long lineNumber = lines.lineNumber();
                byte[] bytes = lines.bytes();
                int start = lines.start();
                int length = lines.length();
                if (length == 0 || (lineNumber == 1 && PadronLine.isHeader(lines.line()))) {
                    continue;
                }
                read++;
                progress.lines(read, malformed + duplicates);
                long fingerprint = lineHash.of(bytes, start, length);
                if (inService != null) {
                    int at = inService.find(bytes, start);
                    if (at >= 0 && !inService.seen(at) && inService.sameLine(fingerprint)) {
                        // The line its record was loaded from: nothing of it can have changed.
                        inService.see(at);
                        unchanged++;
                        continue;
                    }
                }
                String line = lines.line();
                PadronRecord r;
                try {
                    r = PadronLine.parse(line);
                } catch (MalformedPadronLineException e) {
                    malformed++;
                    progress.lines(read, malformed + duplicates);
                    reject(lineNumber, e.getMessage(), line);
                    continue;
                }
                String ruc = r.ruc().value();
                boolean known = false;
                boolean again;
                if (inService == null) {
                    again = seen.addAndCheck(ruc);
                } else {
                    // By the parsed RUC: the line's first bytes need not be it (a space before it, say).
                    ruc.getBytes(0, rucBytes.length, rucBytes, 0);
                    int at = inService.find(rucBytes, 0);
                    known = at >= 0;
                    again = known && inService.seen(at);
                    if (known) {
                        inService.see(at);
                    }
                }
                if (again) {
                    duplicates++;
                    progress.lines(read, malformed + duplicates);
                    if (inService == null) {
                        if (duplicated.size() >= MAX_DUPLICATED) {
                            throw new IllegalStateException("more than " + MAX_DUPLICATED
                                    + " RUCs appear twice: this is not a padrón file");
                        }
                        duplicated.add(ruc);
                    } else if (duplicates > MAX_DUPLICATED) {
                        throw new IllegalStateException("more than " + MAX_DUPLICATED
                                + " lines repeat a RUC: this is not a padrón file");
                    }
                    reject(lineNumber, "RUC " + ruc + " already appeared on an earlier line, which this one replaces", line);
                }
                // The fingerprint encodes the fourteen fields to UTF-8 once; the row takes those same bytes.
                long contentHash = hash.of(r);
                byte[] encoded = hash.buffer();
                rows.startRow(actualizado == null ? STAGE_COLUMNS : NEW_REGISTRY_FIELDS).ascii(ruc);
                for (int i = 0; i < ContentHash.FIELDS; i++) {
                    rows.text(encoded, hash.fieldStart(i), hash.fieldLength(i));
                }
                // The name normalised here, as the database would (SearchNames); null for a name holding a character
                // outside U+0001-U+00FF, which SourceLines.latin1 never gives: the publication then asks the database.
                String searchName = names.of(r.razonSocial());
                if (searchName == null && actualizado != null) {
                    // The new registry's column is NOT NULL: left empty for the database to fill in.
                    unnormalisedNames = true;
                    rows.ascii("");
                } else if (searchName == null) {
                    rows.text(null, 0, -1);
                } else {
                    rows.ascii(searchName);
                }
                if (actualizado == null) {
                    rows.int8(contentHash).int8(lineNumber).int8(fingerprint).bool(known);
                } else {
                    rows.int8(contentHash).int8(fingerprint).int8(actualizado);
                }
                if (rows.length() >= CHUNK) {
                    hand(rows);
                    rows = new CopyChunk(CHUNK + 4096);
                }
            }
            if (rows.length() > 0 && !stopped) {
                hand(rows);
            }
        }

        private void reject(long lineNumber, String reason, String line) {
            if (sample.size() < SAMPLE_SIZE) {
                String shown = line.length() > 200 ? line.substring(0, 200) + "…" : line;
                String entry = "line " + lineNumber + ": " + reason + ": " + shown;
                sample.add(entry);
                LOG.warn("rejected {}", entry);
            }
        }

        /** Waits for room, unless the feeding side gave up (then nobody will ever take). */
        private void hand(CopyChunk chunk) {
            try {
                while (!chunks.offer(chunk, 100, TimeUnit.MILLISECONDS)) {
                    if (stopped) {
                        return;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
