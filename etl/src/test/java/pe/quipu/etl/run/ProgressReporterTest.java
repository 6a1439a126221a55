package pe.quipu.etl.run;

import org.junit.jupiter.api.Test;
import org.springframework.batch.core.BatchStatus;
import org.springframework.batch.core.job.JobExecution;
import org.springframework.batch.core.job.JobInstance;
import org.springframework.batch.core.job.parameters.JobParameters;
import org.springframework.batch.core.step.StepExecution;
import pe.quipu.etl.run.Progress.Phase;
import pe.quipu.etl.run.ProgressReporter.Mode;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The reporter on a ticker the test moves by hand, each report asked for by the test ({@code tick}) rather than by a
 * timer: what a log line, a terminal's line and the end of a phase look like, and when there is none.
 */
class ProgressReporterTest {

    private static final long SECOND = 1_000_000_000L;

    private final AtomicLong now = new AtomicLong(1_000 * SECOND);
    private final Progress progress = new Progress("padron", now::get);
    private final List<String> logged = new ArrayList<>();
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final TerminalLine terminal = TerminalLine.over(new PrintStream(stderr, true, StandardCharsets.UTF_8));

    /** A reporter that logs a line every 10 s of a phase, into {@link #logged}. */
    private ProgressReporter reporter(Mode mode) {
        return new ProgressReporter(progress, mode, terminal, logged::add, Duration.ofSeconds(10));
    }

    private void seconds(double s) {
        now.addAndGet((long) (s * SECOND));
    }

    private String stderr() {
        return stderr.toString(StandardCharsets.UTF_8);
    }

    @Test
    void a_log_line_every_period_of_each_phase_from_its_start_and_one_at_its_end() {
        ProgressReporter reporter = reporter(Mode.LINE);
        reporter.tick();
        assertThat(logged).as("no phase yet, nothing to say").isEmpty();

        progress.enter(Phase.STAGE);
        progress.totalBytes(1_400_000_000);
        progress.bytes(412_000_000);
        progress.lines(2_310_000, 12);
        seconds(9.9);
        reporter.tick();
        assertThat(logged).as("a phase's first line comes a period into it").isEmpty();
        seconds(0.1);
        reporter.tick();
        seconds(5);
        reporter.tick();
        progress.bytes(1_400_000_000);
        progress.lines(7_000_000, 40);
        // A late look (a busy machine): one line, not one for each period missed.
        seconds(25);
        reporter.tick();
        reporter.tick();
        progress.enter(Phase.COMPARE);
        progress.items(6_999_960, ProgressLine.NONE, "records");
        seconds(4);
        reporter.tick();
        seconds(6);
        reporter.tick();
        progress.end(true);
        reporter.tick();

        assertThat(logged).containsExactly(
                "padron: stage 412.0 MB of 1.4 GB (29 %), 2,310,000 lines, 12 rejected, 231,000 lines/s, 41.2 MB/s,"
                        + " elapsed 0:10, ETA 0:24",
                "padron: stage 1.4 GB of 1.4 GB (100 %), 7,000,000 lines, 40 rejected, 175,000 lines/s, 35.0 MB/s,"
                        + " elapsed 0:40, ETA 0:00",
                "padron: stage done in 40.0 s, 1.4 GB, 7,000,000 lines, 40 rejected, 175,000 lines/s, 35.0 MB/s",
                "padron: compare 6,999,960 records, elapsed 0:10",
                "padron: compare done in 10.0 s, 6,999,960 records");
        assertThat(stderr()).as("a log line goes to the log, not straight to standard error").isEmpty();
        reporter.close();
        assertThat(logged).hasSize(5);
    }

    @Test
    void a_phase_of_the_same_kind_as_the_one_before_counts_its_periods_from_its_own_start() {
        Progress rates = new Progress("tipo-cambio", now::get);
        ProgressReporter reporter = new ProgressReporter(rates, Mode.LINE, terminal, logged::add,
                Duration.ofSeconds(10));
        rates.enter(Phase.DOWNLOAD);
        rates.items(1, 2, "requests to bcrp");
        seconds(10);
        reporter.tick();
        rates.enter(Phase.DOWNLOAD);
        rates.items(0, 1, "requests to sunat");
        seconds(5);
        reporter.tick();
        seconds(5);
        reporter.tick();

        assertThat(logged).containsExactly("tipo-cambio: download 1 of 2 requests to bcrp, elapsed 0:10",
                "tipo-cambio: download done in 10.0 s, 1 of 2 requests to bcrp",
                "tipo-cambio: download 0 of 1 requests to sunat, elapsed 0:10");
    }

    @Test
    void a_phase_still_under_way_when_the_run_ends_is_stopped() {
        ProgressReporter reporter = reporter(Mode.LINE);
        progress.enter(Phase.PUBLISH);
        seconds(2);
        reporter.close();

        assertThat(logged).containsExactly("padron: publish stopped after 2.0 s");
    }

    @Test
    void a_step_that_ends_ends_its_phase_done_or_stopped() {
        reporter(Mode.LINE);
        StepExecution step = new StepExecution(1, "stage",
                new JobExecution(1, new JobInstance(1, "padron"), new JobParameters()));
        progress.enter(Phase.STAGE);
        seconds(1);
        step.setStatus(BatchStatus.COMPLETED);
        progress.afterStep(step);
        progress.enter(Phase.PUBLISH);
        seconds(1);
        step.setStatus(BatchStatus.FAILED);
        progress.afterStep(step);
        progress.afterStep(step);

        assertThat(logged).containsExactly("padron: stage done in 1.0 s", "padron: publish stopped after 1.0 s");
    }

    @Test
    void on_a_terminal_one_line_is_redrawn_in_place_and_erased_before_anything_else_is_written() {
        ProgressReporter reporter = reporter(Mode.BAR);
        progress.enter(Phase.DOWNLOAD);
        progress.totalBytes(100_000_000);
        progress.bytes(25_000_000);
        seconds(5);
        reporter.tick();
        progress.bytes(50_000_000);
        seconds(5);
        reporter.tick();
        terminal.stream().print("WARN  a log line\n");
        seconds(1);
        reporter.tick();
        reporter.close();

        assertThat(logged).as("the end of a phase is logged on a terminal too")
                .containsExactly("padron: download stopped after 11.0 s, 50.0 MB of 100.0 MB (50 %), 4.5 MB/s");
        // 80 columns (as where the width is not known): room for the bar, not for MB/s and the elapsed time.
        String bar25 = "[#####               ] 25.0 MB of 100.0 MB (25 %)";
        String bar50 = "[##########          ] 50.0 MB of 100.0 MB (50 %)";
        assertThat(stderr()).isEqualTo(
                "\rpadron: download " + bar25 + ", ETA 0:15\u001b[K"
                + "\rpadron: download " + bar50 + ", ETA 0:10\u001b[K"
                + "\r\u001b[K" + "WARN  a log line\n"
                + "\rpadron: download " + bar50 + ", ETA 0:11\u001b[K"
                + "\r\u001b[K");
    }

    @Test
    void none_reports_nothing_at_all() {
        ProgressReporter reporter = reporter(Mode.NONE);
        progress.enter(Phase.STAGE);
        progress.lines(10, 0);
        seconds(10);
        reporter.tick();
        progress.enter(Phase.PUBLISH);
        reporter.close();

        assertThat(logged).isEmpty();
        assertThat(stderr()).isEmpty();
    }

    @Test
    void auto_logs_lines_where_standard_error_is_no_terminal() {
        try (ProgressReporter reporter = ProgressReporter.start(progress, Mode.AUTO, Duration.ofHours(1), terminal)) {
            assertThat(reporter.mode()).isEqualTo(Mode.LINE);
        }
        try (ProgressReporter reporter = ProgressReporter.start(progress, Mode.BAR, Duration.ofHours(1), terminal)) {
            assertThat(reporter.mode()).isEqualTo(Mode.BAR);
        }
        assertThat(Mode.of("none")).isEqualTo(Mode.NONE);
        assertThatThrownBy(() -> Mode.of("BAR")).hasMessage("--progress must be auto, line, bar or none, not BAR");
    }
}
