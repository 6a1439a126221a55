package pe.quipu.api.platform;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The cache's rules without a database: what a notification naming keys drops and keeps, that a read begun before an
 * eviction never keeps what it read (it may be the old row), and that nothing is served while the keys are being
 * found out.
 */
class ExactCacheTest {

    private final ExactCache<String, String> cache = new ExactCache<>(() -> true, 1 << 20, String::length);

    private void keep(String key, String value) {
        cache.read().keep(key, value);
    }

    private String kept(String key) {
        return cache.read().kept(key);
    }

    @Test
    void a_change_of_some_keys_drops_theirs_and_keeps_the_others() {
        keep("a", "1");
        keep("b", "2");

        cache.changed(List.of("a"));

        assertThat(kept("a")).isNull();
        assertThat(kept("b")).isEqualTo("2");
    }

    @Test
    void a_change_of_everything_drops_everything() {
        keep("a", "1");
        keep("b", "2");

        cache.changed();

        assertThat(kept("a")).isNull();
        assertThat(kept("b")).isNull();
    }

    @Test
    void a_read_begun_before_an_eviction_of_its_key_does_not_keep_what_it_read_after_it() {
        // The read starts, reads the old row; the change commits and its eviction runs; then the read keeps.
        ExactCache<String, String>.Read read = cache.read();
        cache.changed(List.of("a"));
        read.keep("a", "old");

        assertThat(kept("a")).isNull();
        // A read begun after the eviction keeps as usual.
        keep("a", "new");
        assertThat(kept("a")).isEqualTo("new");
    }

    @Test
    void a_read_begun_before_a_drop_of_everything_keeps_nothing() {
        ExactCache<String, String>.Read read = cache.read();
        cache.changed();
        read.keep("a", "old");

        assertThat(kept("a")).isNull();
    }

    @Test
    void while_paused_nothing_is_served_or_kept_and_reads_begun_before_keep_nothing_after() {
        keep("a", "1");
        keep("b", "2");
        ExactCache<String, String>.Read before = cache.read();

        try (ExactCache.Pause pause = cache.pause()) {
            assertThat(kept("b")).as("served while the changed keys are being read").isNull();
            keep("c", "3");
            cache.changed(List.of("a"));
        }
        before.keep("d", "old");

        assertThat(kept("a")).isNull();
        assertThat(kept("b")).as("untouched by the change").isEqualTo("2");
        assertThat(kept("c")).as("kept while paused").isNull();
        assertThat(kept("d")).as("kept by a read begun before the pause").isNull();
    }

    @Test
    void while_changes_cannot_be_heard_nothing_is_kept() {
        boolean[] listening = {false};
        ExactCache<String, String> deaf = new ExactCache<>(() -> listening[0], 1 << 20, String::length);
        deaf.read().keep("a", "1");
        listening[0] = true;

        assertThat(deaf.read().kept("a")).isNull();
    }

    @Test
    void values_are_weighed_with_the_overhead_of_an_entry_and_hits_are_counted() {
        keep("a", "12345");
        kept("a");
        kept("zz");

        assertThat(cache.weight()).isEqualTo(ExactCache.OVERHEAD_BYTES + 5);
        assertThat(cache.stats().hitCount()).isEqualTo(1);
        assertThat(cache.stats().missCount()).isEqualTo(1);
    }
}
