package pe.quipu.api.ruc;

import org.junit.jupiter.api.Test;
import pe.quipu.api.platform.ExactCache;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.LongFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a notification drops, without a database: a run's RUCs (its answers, unknown entries and included answers),
 * nothing else; everything on an empty payload, a run too large, or a change log that cannot be read. And the race of
 * a lookup that read the old registry before the notification: it keeps nothing after the eviction, and nothing is
 * served while the run's RUCs are being read.
 */
class AnswerEvictionTest {

    private static final String CHANGED = "20100227461";
    private static final String UNCHANGED = "20330791412";
    private static final String ADDED = "20960000014";

    private final ExactCache<String, RucAnswers.Answer> answers = RucAnswers.cache(() -> true, 1 << 20);
    private final ExactCache<String, Boolean> unknown = RucAnswers.unknownCache(() -> true, 1 << 20);
    private final ExactCache<String, RucAnswers.Answer> included = IncludedAnswers.cache(() -> true, 1 << 20);
    private final List<Long> runsRead = new ArrayList<>();

    AnswerEvictionTest() {
        keep(answers, CHANGED);
        keep(answers, UNCHANGED);
        unknown.read().keep(ADDED, Boolean.TRUE);
        for (String key : IncludedAnswers.keysOf(List.of(CHANGED, UNCHANGED))) {
            keep(included, key);
        }
    }

    private static void keep(ExactCache<String, RucAnswers.Answer> cache, String key) {
        cache.read().keep(key, answer(key, "old"));
    }

    private static RucAnswers.Answer answer(String ruc, String body) {
        return new RucAnswers.Answer(ruc, body.getBytes(), "\"" + body + "\"");
    }

    private AnswerEviction eviction(LongFunction<List<String>> rucsOfRun) {
        return new AnswerEviction(run -> {
            runsRead.add(run);
            return rucsOfRun.apply(run);
        }, answers, unknown, included);
    }

    @Test
    void a_run_drops_the_answers_of_its_rucs_and_keeps_the_others() {
        eviction(run -> List.of(CHANGED, ADDED)).registryChanged("run:7");

        assertThat(runsRead).containsExactly(7L);
        assertThat(answers.read().kept(CHANGED)).isNull();
        assertThat(unknown.read().kept(ADDED)).as("added: no longer unknown").isNull();
        assertThat(answers.read().kept(UNCHANGED)).isNotNull();
        for (String key : IncludedAnswers.keysOf(List.of(CHANGED))) {
            assertThat(included.read().kept(key)).as(key).isNull();
        }
        for (String key : IncludedAnswers.keysOf(List.of(UNCHANGED))) {
            assertThat(included.read().kept(key)).as(key).isNotNull();
        }
    }

    @Test
    void a_lookup_that_read_the_old_registry_keeps_nothing_and_nothing_is_served_meanwhile() {
        // A lookup begins before the notification and reads the old record...
        ExactCache<String, RucAnswers.Answer>.Read lookup = answers.read();
        List<Object> servedMeanwhile = new ArrayList<>();
        eviction(run -> {
            // ...while the instance reads the run's RUCs, nothing is served, not even an untouched answer...
            servedMeanwhile.add(String.valueOf(answers.read().kept(UNCHANGED)));
            return List.of(CHANGED);
        }).registryChanged("run:8");
        // ...and what it read goes to the cache only after the eviction ran.
        lookup.keep(CHANGED, answer(CHANGED, "old"));

        assertThat(servedMeanwhile).containsExactly("null");
        assertThat(answers.read().kept(CHANGED)).isNull();
        assertThat(answers.read().kept(UNCHANGED)).as("served again once dropped").isNotNull();
    }

    @Test
    void a_list_run_drops_only_included_answers_of_its_rucs() {
        eviction(run -> List.of(CHANGED)).listsChanged("run:9");

        assertThat(answers.read().kept(CHANGED)).isNotNull();
        assertThat(included.read().kept(IncludedAnswers.keysOf(List.of(CHANGED)).getFirst())).isNull();
        assertThat(included.read().kept(IncludedAnswers.keysOf(List.of(UNCHANGED)).getFirst())).isNotNull();
    }

    @Test
    void an_empty_payload_drops_everything_without_reading_the_log() {
        eviction(run -> List.of()).registryChanged("");

        assertThat(runsRead).isEmpty();
        assertEverythingDropped();
    }

    @Test
    void a_run_over_the_threshold_drops_everything() {
        eviction(run -> Collections.nCopies(AnswerEviction.AT_MOST + 1, CHANGED)).registryChanged("run:10");

        assertEverythingDropped();
    }

    @Test
    void a_change_log_that_cannot_be_read_drops_everything() {
        eviction(run -> {
            throw new IllegalStateException("connection refused");
        }).registryChanged("run:11");

        assertEverythingDropped();
    }

    private void assertEverythingDropped() {
        assertThat(answers.read().kept(CHANGED)).isNull();
        assertThat(answers.read().kept(UNCHANGED)).isNull();
        assertThat(unknown.read().kept(ADDED)).isNull();
        assertThat(included.read().kept(IncludedAnswers.keysOf(List.of(UNCHANGED)).getFirst())).isNull();
    }
}
