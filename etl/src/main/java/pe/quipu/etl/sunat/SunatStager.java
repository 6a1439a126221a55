package pe.quipu.etl.sunat;

import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.PGConnection;
import org.postgresql.copy.CopyIn;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.batch.core.job.JobInterruptedException;
import pe.quipu.etl.source.SourceLines;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.Staged;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Streams one of SUNAT's files into its unlogged staging table with COPY, committing as it goes (the data in
 * service is untouched until the publication). The header names the columns ({@link SunatColumns}); a line with a
 * bad RUC, date or ubigeo is rejected, counted, and the first few kept as a sample, as the padrón's are. In a list,
 * a RUC met twice keeps its last line and each earlier one counts as rejected; premises repeat RUCs by nature.
 */
final class SunatStager {

    static final int SAMPLE_SIZE = 10;
    /** How often, in lines, the run checks whether it was asked to stop. */
    private static final int CHECK_EVERY = 10_000;
    private static final int CHUNK = 1 << 20;
    private static final Logger LOG = LoggerFactory.getLogger(SunatStager.class);

    private final Jdbi jdbi;
    private final SunatFile file;

    SunatStager(Jdbi jdbi, SunatFile file) {
        this.jdbi = jdbi;
        this.file = file;
    }

    /** Drops what a failed or killed run left behind; the data in service is never among it. */
    static void dropLeftovers(Jdbi jdbi, SunatFile file) {
        jdbi.useHandle(h -> {
            h.execute("drop table if exists " + file.stage());
            if (!file.isList()) {
                h.execute("drop table if exists " + AnexosPublisher.NEW + ", " + AnexosPublisher.OLD);
            }
        });
    }

    /** @param progress told of the lines read and rejected as they are */
    Staged stage(InputStream in, BooleanSupplier stopRequested, Progress progress) throws Exception {
        SourceLines lines = SourceLines.latin1(in);
        String header = lines.next();
        while (header != null && header.isBlank()) {
            header = lines.next();
        }
        if (header == null) {
            throw new IllegalStateException("the file is empty; the data in service is unchanged");
        }
        SunatColumns columns = SunatColumns.of(header, file.required());
        try (Handle handle = jdbi.open()) {
            handle.execute("create unlogged table " + file.stage() + " (" + file.stageColumns()
                    + ", line bigint not null)");
            // Plain JDBC: Jdbi has no COPY, and PgJDBC's CopyIn streams the rows without a statement per row.
            CopyIn copy = handle.getConnection().unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("copy " + file.stage() + " from stdin");
            try {
                Staged result = copy(lines, columns, copy, stopRequested, progress);
                copy.endCopy();
                return result;
            } finally {
                if (copy.isActive()) {
                    copy.cancelCopy();
                }
            }
        }
    }

    private Staged copy(SourceLines lines, SunatColumns columns, CopyIn copy, BooleanSupplier stopRequested,
                        Progress progress) throws Exception {
        ByteArrayOutputStream rows = new ByteArrayOutputStream(CHUNK + 4096);
        StringBuilder row = new StringBuilder(256);
        List<String> sample = new ArrayList<>();
        Set<String> seen = file.isList() ? new HashSet<>() : null;
        long read = 0;
        long malformed = 0;
        long duplicates = 0;
        long lineNumber = 1;
        progress.lines(0, 0);
        for (String line = lines.next(); line != null; line = lines.next()) {
            lineNumber++;
            if (lineNumber % CHECK_EVERY == 0 && stopRequested.getAsBoolean()) {
                throw new JobInterruptedException(file.jobName() + ": stopped on request while staging");
            }
            if (line.isBlank()) {
                continue;
            }
            read++;
            progress.lines(read, malformed + duplicates);
            String[] values;
            try {
                values = file.row(columns, SunatColumns.split(line));
            } catch (SunatFile.RejectedLine e) {
                malformed++;
                progress.lines(read, malformed + duplicates);
                reject(sample, lineNumber, e.getMessage(), line);
                continue;
            }
            if (seen != null && !seen.add(values[0])) {
                duplicates++;
                progress.lines(read, malformed + duplicates);
                reject(sample, lineNumber, "RUC " + values[0] + " already appeared on an earlier line, which this"
                        + " one replaces", line);
            }
            row.setLength(0);
            for (String value : values) {
                appendCopyText(row, value).append('\t');
            }
            row.append(lineNumber).append('\n');
            rows.writeBytes(row.toString().getBytes(StandardCharsets.UTF_8));
            if (rows.size() >= CHUNK) {
                copy.writeToCopy(rows.toByteArray(), 0, rows.size());
                rows.reset();
            }
        }
        if (rows.size() > 0) {
            copy.writeToCopy(rows.toByteArray(), 0, rows.size());
        }
        long staged = read - malformed - duplicates;
        return new Staged(read, staged, malformed, duplicates, List.copyOf(sample));
    }

    /** A value in COPY's text format: {@code \N} for null, backslash, tab and line ends escaped. */
    private static StringBuilder appendCopyText(StringBuilder out, String value) {
        if (value == null) {
            return out.append("\\N");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out;
    }

    private void reject(List<String> sample, long lineNumber, String reason, String line) {
        if (sample.size() < SAMPLE_SIZE) {
            String shown = line.length() > 200 ? line.substring(0, 200) + "…" : line;
            String entry = "line " + lineNumber + ": " + reason + ": " + shown;
            sample.add(entry);
            LOG.warn("rejected {}", entry);
        }
    }
}
