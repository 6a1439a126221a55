package pe.quipu.api.ruc;

import org.junit.jupiter.api.Test;
import pe.quipu.api.platform.ExactCache;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RUCs known not to be in the registry are kept within a budget of their own, an eighth of {@code ruc.answerCache}:
 * a flood of them evicts only each other, never a real answer.
 */
class UnknownRucBudgetTest {

    private static final long ANSWER_BYTES = 1 << 20;

    @Test
    void unknown_rucs_get_an_eighth_of_the_answers_budget() {
        assertThat(RucAnswers.unknownBytes(16L << 20)).isEqualTo(2L << 20);
    }

    @Test
    void a_flood_of_unknown_rucs_stays_within_its_budget_and_leaves_the_answers_alone() {
        ExactCache<String, RucAnswers.Answer> answers = RucAnswers.cache(() -> true, ANSWER_BYTES);
        ExactCache<String, Boolean> unknown = RucAnswers.unknownCache(() -> true,
                RucAnswers.unknownBytes(ANSWER_BYTES));
        RucAnswers.Answer known = new RucAnswers.Answer("20100227461", new byte[700], "\"0123456789012345678901\"");
        answers.read().keep(known.ruc(), known);

        for (int i = 0; i < 10_000; i++) {
            unknown.read().keep(String.format("2099%07d", i), Boolean.TRUE);
        }

        assertThat(unknown.weight()).isLessThanOrEqualTo(RucAnswers.unknownBytes(ANSWER_BYTES));
        // About 200 bytes each: some 650 of the 10,000 fit in 128 KiB.
        assertThat(unknown.size()).isBetween(500L, 700L);
        assertThat(answers.read().kept(known.ruc())).isSameAs(known);
    }
}
