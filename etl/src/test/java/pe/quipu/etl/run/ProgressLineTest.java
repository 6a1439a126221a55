package pe.quipu.etl.run;

import org.junit.jupiter.api.Test;
import pe.quipu.etl.run.Progress.Phase;
import pe.quipu.etl.run.ProgressLine.Snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.etl.run.ProgressLine.NONE;

/** The words of a progress line and the ETA rule, from snapshots made by hand: no clock, no run. */
class ProgressLineTest {

    private static final long SECOND = 1_000_000_000L;

    private static Snapshot bytes(Phase phase, double seconds, long bytes, long total, long lines, long rejected) {
        return new Snapshot("padron", phase, 1, (long) (seconds * SECOND), bytes, total, lines, rejected, NONE, NONE,
                "");
    }

    private static Snapshot items(String job, Phase phase, double seconds, long items, long total, String noun) {
        return new Snapshot(job, phase, 1, (long) (seconds * SECOND), NONE, NONE, NONE, NONE, items, total, noun);
    }

    @Test
    void a_stage_under_way_shows_its_share_of_the_file_its_lines_rates_and_eta() {
        Snapshot stage = bytes(Phase.STAGE, 10, 412_000_000, 1_400_000_000, 2_310_000, 12);

        assertThat(ProgressLine.running(stage)).isEqualTo("padron: stage 412.0 MB of 1.4 GB (29 %), 2,310,000 lines,"
                + " 12 rejected, 231,000 lines/s, 41.2 MB/s, elapsed 0:10, ETA 0:24");
    }

    @Test
    void a_download_without_a_length_shows_what_came_and_its_rate_but_no_eta() {
        Snapshot download = bytes(Phase.DOWNLOAD, 10, 35_200_000, NONE, NONE, NONE);

        assertThat(ProgressLine.running(download)).isEqualTo("padron: download 35.2 MB, 3.5 MB/s, elapsed 0:10");
        assertThat(ProgressLine.etaSeconds(download)).isEmpty();
    }

    @Test
    void a_phase_inside_postgresql_shows_its_time_and_the_count_it_works_on() {
        assertThat(ProgressLine.running(items("padron", Phase.INDEX, 31.9, NONE, NONE, "")))
                .isEqualTo("padron: index, elapsed 0:31");
        assertThat(ProgressLine.running(items("padron", Phase.COMPARE, 4, 2_000_000, NONE, "records")))
                .isEqualTo("padron: compare 2,000,000 records, elapsed 0:04");
        assertThat(ProgressLine.running(items("tipo-cambio", Phase.DOWNLOAD, 4, 3, 12, "requests to bcrp")))
                .isEqualTo("tipo-cambio: download 3 of 12 requests to bcrp, elapsed 0:04");
    }

    @Test
    void eta_is_the_rest_at_the_mean_rate_so_far_rounded_up() {
        // 700 bytes left at 300 bytes a second: 2.33 s, shown as 3.
        assertThat(ProgressLine.etaSeconds(bytes(Phase.STAGE, 1, 300, 1000, 0, 0))).hasValue(3);
        // 1 % in 38 s: 99 × 38 = 3,762 s, an hour and more.
        Snapshot slow = bytes(Phase.STAGE, 38, 1_000_000, 100_000_000, 0, 0);
        assertThat(ProgressLine.etaSeconds(slow)).hasValue(3762);
        assertThat(ProgressLine.running(slow)).endsWith("ETA 1:02:42");
        // All read (a zip's directory still to come, say): nothing left.
        assertThat(ProgressLine.etaSeconds(bytes(Phase.STAGE, 5, 1000, 1000, 0, 0))).hasValue(0);
    }

    @Test
    void no_eta_without_a_total_without_bytes_read_or_before_a_second() {
        assertThat(ProgressLine.etaSeconds(bytes(Phase.STAGE, 10, 5000, NONE, 10, 0))).isEmpty();
        assertThat(ProgressLine.etaSeconds(bytes(Phase.STAGE, 10, 0, 5000, 0, 0))).isEmpty();
        Snapshot early = bytes(Phase.STAGE, 0.5, 100, 5000, 10, 0);
        assertThat(ProgressLine.etaSeconds(early)).isEmpty();
        // Nor rates: half a second says little of the pace.
        assertThat(ProgressLine.running(early)).isEqualTo("padron: stage 100 B of 5.0 kB (2 %), 10 lines, 0 rejected,"
                + " elapsed 0:00");
    }

    @Test
    void a_phase_that_ends_says_how_long_it_took_and_what_it_did() {
        assertThat(ProgressLine.ended(bytes(Phase.STAGE, 41.2, 480_300_000, 480_300_000, 2_000_000, 0), true))
                .isEqualTo("padron: stage done in 41.2 s, 480.3 MB, 2,000,000 lines, 0 rejected, 48,544 lines/s,"
                        + " 11.7 MB/s");
        assertThat(ProgressLine.ended(items("padron", Phase.INDEX, 72.4, 2_000_000, NONE, "records"), true))
                .isEqualTo("padron: index done in 1:12, 2,000,000 records");
        assertThat(ProgressLine.ended(items("padron", Phase.PUBLISH, 0.25, NONE, NONE, ""), true))
                .isEqualTo("padron: publish done in 0.3 s");
        // Stopped part way: the share it got to, and no ETA.
        assertThat(ProgressLine.ended(bytes(Phase.STAGE, 3.1, 10_000_000, 480_300_000, 40_000, 3), false))
                .isEqualTo("padron: stage stopped after 3.1 s, 10.0 MB of 480.3 MB (2 %), 40,000 lines, 3 rejected,"
                        + " 12,903 lines/s, 3.2 MB/s");
    }

    @Test
    void sizes_are_decimal_with_one_decimal_and_never_1000_of_a_unit() {
        assertThat(ProgressLine.size(0)).isEqualTo("0 B");
        assertThat(ProgressLine.size(999)).isEqualTo("999 B");
        assertThat(ProgressLine.size(1000)).isEqualTo("1.0 kB");
        assertThat(ProgressLine.size(999_900)).isEqualTo("999.9 kB");
        assertThat(ProgressLine.size(999_960)).isEqualTo("1.0 MB");
        assertThat(ProgressLine.size(1_400_000_000)).isEqualTo("1.4 GB");
        assertThat(ProgressLine.clock(59)).isEqualTo("0:59");
        assertThat(ProgressLine.clock(3600)).isEqualTo("1:00:00");
    }

    @Test
    void the_share_is_floored_and_kept_within_0_and_100() {
        assertThat(ProgressLine.running(bytes(Phase.STAGE, 2, 999, 1000, 1, 0))).contains("(99 %)");
        assertThat(ProgressLine.running(bytes(Phase.STAGE, 2, 1200, 1000, 1, 0))).contains("(100 %)");
    }

    @Test
    void a_terminal_line_has_a_bar_where_it_fits_and_drops_the_least_useful_parts_where_it_does_not() {
        Snapshot stage = bytes(Phase.STAGE, 10, 412_000_000, 1_400_000_000, 2_310_000, 12);

        assertThat(ProgressLine.terminal(stage, 200)).isEqualTo("padron: stage [#####               ] 412.0 MB of"
                + " 1.4 GB (29 %), 2,310,000 lines, 12 rejected, 231,000 lines/s, 41.2 MB/s, elapsed 0:10, ETA 0:24");
        // Narrower: MB/s, the elapsed time and lines/s give way, then the bar; the share and the ETA stay.
        assertThat(ProgressLine.terminal(stage, 119)).isEqualTo("padron: stage [#####               ] 412.0 MB of"
                + " 1.4 GB (29 %), 2,310,000 lines, 12 rejected, 231,000 lines/s, ETA 0:24");
        assertThat(ProgressLine.terminal(stage, 102)).isEqualTo("padron: stage [#####               ] 412.0 MB of"
                + " 1.4 GB (29 %), 2,310,000 lines, 12 rejected, ETA 0:24");
        assertThat(ProgressLine.terminal(stage, 79))
                .isEqualTo("padron: stage 412.0 MB of 1.4 GB (29 %), 2,310,000 lines, 12 rejected, ETA 0:24");
        // Narrower still: only the head, the share and the ETA, then cut.
        assertThat(ProgressLine.terminal(stage, 60))
                .isEqualTo("padron: stage 412.0 MB of 1.4 GB (29 %), ETA 0:24");
        assertThat(ProgressLine.terminal(stage, 30)).isEqualTo("padron: stage 412.0 MB of 1.4 ");
        // Without a total, no bar.
        assertThat(ProgressLine.terminal(items("padron", Phase.INDEX, 31, NONE, NONE, ""), 200))
                .isEqualTo("padron: index, elapsed 0:31");
    }
}
