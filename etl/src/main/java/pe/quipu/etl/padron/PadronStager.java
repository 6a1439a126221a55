package pe.quipu.etl.padron;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.sqlobject.customizer.Define;
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
import pe.quipu.etl.source.SourceLines;

import java.io.InputStream;
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
 */
final class PadronStager {

    static final String STAGE = "ruc_registry_stage";
    static final int SAMPLE_SIZE = 10;
    /** How often, in lines at most, the run checks whether it was asked to stop. */
    static final int CHECK_EVERY = 100_000;
    private static final int CHUNK = 1 << 20;
    /**
     * ruc, the fourteen published fields ({@link RegistryColumns}, ContentHash's order), the normalised name
     * ({@link RegistrySearch#COLUMN}), content_hash, line.
     */
    private static final int STAGE_COLUMNS = 1 + ContentHash.FIELDS + 3;
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

    /** @param progress told of the lines read and rejected as the parser goes */
    Staged stage(InputStream text, BooleanSupplier stopRequested, Progress progress) throws Exception {
        try (Handle handle = jdbi.open()) {
            StageRows rows = handle.attach(StageRows.class);
            // The padrón's published columns, as text; only the name is required of every record.
            rows.create(RegistryColumns.each(c -> c + (c.equals("razon_social") ? " text not null" : " text"), ", "));
            SearchNames names = SearchNames.read(handle);
            // Plain JDBC: Jdbi has no COPY, and PgJDBC's CopyIn streams the rows without a statement per row.
            CopyIn copy = handle.getConnection().unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("copy " + STAGE + " from stdin with (format binary)");
            copy.writeToCopy(CopyChunk.HEADER, 0, CopyChunk.HEADER.length);
            Parser parser = new Parser(text, names, progress);
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
            long staged = copied;
            if (!parser.duplicated.isEmpty()) {
                staged -= rows.keepLastOfEachDuplicate(parser.duplicated.toArray(String[]::new));
            }
            return new Staged(parser.read, staged, parser.malformed, parser.duplicates, List.copyOf(parser.sample));
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
        @SqlUpdate("drop table if exists " + STAGE + ", " + RegistryPublisher.NEW + ", " + RegistryPublisher.OLD + ", "
                + RegistryPublisher.NEW_WORDS + ", " + RegistryPublisher.DIFF_KEYS + ", " + RegistryPublisher.DIFF)
        void dropLeftovers();

        /** Unlogged: the staging rows need no crash safety, and skipping the WAL halves the write. */
        @SqlUpdate("create unlogged table " + STAGE + " (ruc char(11) not null, <published>,"
                + " " + RegistrySearch.COLUMN + " text, content_hash bigint not null, line bigint not null)")
        void create(@Define("published") String publishedColumns);

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
        private final Progress progress;
        volatile boolean stopped;
        volatile Throwable failure;
        long read;
        long malformed;
        long duplicates;

        Parser(InputStream text, SearchNames names, Progress progress) {
            this.text = text;
            this.names = names;
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
            SourceLines lines = SourceLines.latin1(text);
            ContentHash hash = new ContentHash();
            RucSet seen = new RucSet();
            CopyChunk rows = new CopyChunk(CHUNK + 4096);
            long lineNumber = 0;
            for (String line = lines.next(); line != null && !stopped; line = lines.next()) {
                lineNumber++;
                if (line.isEmpty() || (lineNumber == 1 && PadronLine.isHeader(line))) {
                    continue;
                }
                read++;
                progress.lines(read, malformed + duplicates);
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
                if (seen.addAndCheck(ruc)) {
                    duplicates++;
                    progress.lines(read, malformed + duplicates);
                    if (duplicated.size() >= MAX_DUPLICATED) {
                        throw new IllegalStateException("more than " + MAX_DUPLICATED
                                + " RUCs appear twice: this is not a padrón file");
                    }
                    duplicated.add(ruc);
                    reject(lineNumber, "RUC " + ruc + " already appeared on an earlier line, which this one replaces", line);
                }
                // The fingerprint encodes the fourteen fields to UTF-8 once; the row takes those same bytes.
                long fingerprint = hash.of(r);
                byte[] encoded = hash.buffer();
                rows.startRow(STAGE_COLUMNS).ascii(ruc);
                for (int i = 0; i < ContentHash.FIELDS; i++) {
                    rows.text(encoded, hash.fieldStart(i), hash.fieldLength(i));
                }
                // The name normalised here, as the database would (SearchNames); null for a name holding a character
                // outside U+0001-U+00FF, which SourceLines.latin1 never gives: the publication then asks the database.
                String searchName = names.of(r.razonSocial());
                if (searchName == null) {
                    rows.text(null, 0, -1);
                } else {
                    rows.ascii(searchName);
                }
                rows.int8(fingerprint).int8(lineNumber);
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
