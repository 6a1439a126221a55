package pe.quipu.etl.generate;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A generated padrón and its next day through {@code quipu-etl padron}, one after the other: the padron job reads
 * every line of both as a padrón line. What the second load records as changes is the change log's tests' concern.
 * The registry is shared with other test classes, so the test leaves the 61 sample records in it, as PadronFixtures
 * puts them.
 */
class NextDayLoadTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);
    private static Path dir;

    @BeforeAll
    static void setUp() throws IOException {
        dir = Files.createTempDirectory("quipu-next-day-load-");
    }

    @AfterAll
    static void putTheSampleBack() throws Exception {
        PadronFixtures.restore(quipu.database, dir);
    }

    @Test
    void the_padron_job_loads_a_day_then_its_next_day_and_rejects_no_line_of_either() throws Exception {
        Path day1 = dir.resolve("day1.zip");
        Path day2 = dir.resolve("day2.zip");
        PadronGenerator.write(day1, 5_000, 17);
        NextDayPadron.Summary summary = NextDayPadron.write(day1, day2, 0.02, 18);
        assertThat(summary.total()).isEqualTo(100);
        execute("delete from ruc_registry");

        EtlRun first = etl.run("padron", "--file", day1.toString());
        assertThat(first.exitCode()).as(first.stderr()).isZero();
        assertThat(first.stdout()).startsWith("padron succeeded: read 5000, ").contains(", rejected 0, ");

        EtlRun second = etl.run("padron", "--file", day2.toString());
        assertThat(second.exitCode()).as(second.stderr()).isZero();
        assertThat(second.stdout()).startsWith("padron succeeded: read " + summary.records() + ", ")
                .contains(", rejected 0, ");
        assertThat(count("select count(*) from ruc_registry")).isEqualTo(summary.records());
    }

    private static void execute(String sql) throws Exception {
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long count(String sql) throws Exception {
        try (Connection c = quipu.database.connection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
