package pe.quipu.etl;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;
import pe.quipu.etl.testing.ProgressLog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The ETL command line and its run history, on the app's own database while the app runs. */
class QuipuEtlTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);

    @Test
    void a_run_prints_one_summary_line_exits_0_and_announces_itself_twice() throws Exception {
        EtlRun run = etl.run("ubigeo");

        assertThat(run.exitCode()).as(run.stderr()).isZero();
        assertThat(run.stdout()).matches("ubigeo succeeded: read 1891, written 1891, rejected 0, in \\d+\\.\\d s \\(run \\d+\\)\n");
        long runId = run.runId();

        List<JsonNode> events = etl.events(runId);
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.succeeded");
        JsonNode started = events.get(0).path("data");
        assertThat(started.path("job").asText()).isEqualTo("ubigeo");
        assertThat(started.path("finishedAt").isNull()).isTrue();
        assertThat(started.path("rowsRead").isNull()).isTrue();
        JsonNode succeeded = events.get(1).path("data");
        assertThat(succeeded.path("rowsRead").asLong()).isEqualTo(1891);
        assertThat(succeeded.path("rowsWritten").asLong()).isEqualTo(1891);
        assertThat(succeeded.path("rowsRejected").asLong()).isZero();
        assertThat(succeeded.path("error").isNull()).isTrue();
        assertThat(succeeded.path("finishedAt").asText()).isNotBlank();
        for (String field : List.of("runId", "job", "startedAt", "finishedAt", "rowsRead", "rowsWritten",
                "rowsRejected", "error")) {
            assertThat(succeeded.has(field)).as(field).isTrue();
        }

        try (Connection c = quipu.database.connection();
             PreparedStatement q = c.prepareStatement(
                     "select status from batch_job_execution where job_execution_id = ?")) {
            q.setLong(1, runId);
            try (ResultSet rs = q.executeQuery()) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("COMPLETED");
            }
        }
    }

    @Test
    void each_phase_of_a_run_ends_with_a_progress_line_on_the_log_and_none_turns_them_off() {
        try (ProgressLog progress = new ProgressLog()) {
            EtlRun run = etl.run("ubigeo");

            assertThat(run.exitCode()).as(run.stderr()).isZero();
            assertThat(progress.phaseEnds()).hasSize(2);
            assertThat(progress.phaseEnds().get(0))
                    .matches("ubigeo: stage done in \\d+\\.\\d s, 1,891 lines, 0 rejected.*");
            assertThat(progress.phaseEnds().get(1)).matches("ubigeo: publish done in \\d+\\.\\d s.*");
            // Standard output holds the summary alone; the progress is logged (to standard error).
            assertThat(run.stdout()).matches("ubigeo succeeded: [^\\n]*\\n");

            progress.clear();
            EtlRun quiet = etl.run("ubigeo", "--progress", "none");
            assertThat(quiet.exitCode()).as(quiet.stderr()).isZero();
            assertThat(quiet.stdout()).matches("ubigeo succeeded: [^\\n]*\\n");
            assertThat(progress.lines()).isEmpty();
        }
    }

    @Test
    void a_wrong_command_line_exits_2_with_the_usage_and_runs_nothing() {
        for (String[] args : List.of(new String[] {"nope"}, new String[] {"ubigeo", "--url", "http://x"},
                new String[] {"ubigeo", "--file"}, new String[] {"ubigeo", "--progress", "loud"})) {
            EtlRun run = etl.run(args);
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.stdout()).isEmpty();
            assertThat(run.stderr()).contains("usage:");
        }
    }

    @Test
    void a_failed_run_exits_1_and_announces_the_failure() throws Exception {
        java.nio.file.Path bad = java.nio.file.Files.createTempFile("ubigeo-", ".csv");
        java.nio.file.Files.writeString(bad, "\uFEFFdepartamento;provincia;distrito;ubigeo\n"
                + "Lima;Lima;Lima;150101\nLima;Lima;Ancón;150102\nLimaa;Lima;Ate;150103\n");
        EtlRun run = etl.run("ubigeo", "--file", bad.toString());

        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.stdout()).startsWith("ubigeo failed: ");
        long runId = run.runId();
        List<JsonNode> events = etl.events(runId);
        assertThat(events).extracting(e -> e.path("type").asText())
                .containsExactly("etl.run.started", "etl.run.failed");
        assertThat(events.get(1).path("data").path("error").asText()).contains("15");
        // The catalogue in service is untouched.
        assertThat(quipu.get("/v1/status", null).body()).contains("\"count\":1891");
        java.nio.file.Files.deleteIfExists(bad);
    }

}
