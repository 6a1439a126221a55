package pe.quipu.api.ruc;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.jdbi.v3.core.ConnectionException;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import pe.quipu.api.domain.Text;
import pe.quipu.api.platform.ExactCache;
import pe.quipu.api.domain.DomainException.PlanForbids;
import pe.quipu.api.domain.DomainException.QuotaExceeded;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.core.ruc.Ruc;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The batch rules of contract §3 below HTTP, without a database: the plan's cap is checked before any unit is spent
 * and before anything is looked up, and a batch of N RUCs costs N units. The registry here has no database behind
 * it: every attempt to read it is written down in {@link #happened} and fails, so a lookup that should not happen
 * shows. MeteringTest checks the same rules over HTTP (403 {@code forbidden_plan}, the quota headers).
 */
class RucLookupsTest {

    private static final Ruc RUC = Ruc.parse("20100227461");
    private static final Ruc OTHER = Ruc.parse("20600662458");

    private final List<String> happened = new ArrayList<>();
    private final ExactCache<String, RucAnswers.Answer> kept = RucAnswers.cache(() -> true, 1 << 20);
    private final RucLookups lookups;

    RucLookupsTest() {
        Jdbi noDatabase = Jdbi.create(() -> {
            happened.add("lookup");
            throw new SQLException("no database in this test");
        });
        ObjectMapper json = new ObjectMapper();
        RucAnswers registry = new RucAnswers(new RucRegistry(noDatabase), json, kept,
                RucAnswers.unknownCache(() -> true, 1 << 20), body -> "\"tag\"");
        lookups = new RucLookups(new IncludedAnswers(registry, new RucLists(noDatabase, code -> Optional.empty()), json,
                IncludedAnswers.cache(() -> true, 1 << 20)));
    }

    @ParameterizedTest(name = "{0} plan, cap {1}: a batch of {2} allowed? {3}")
    @CsvSource({
            "free, 10, 1, true",
            "free, 10, 10, true",
            "free, 10, 11, false",
            "starter, 50, 50, true",
            "starter, 50, 51, false",
            "custom, 1, 1, true",
            "custom, 1, 2, false",
    })
    void a_batch_may_hold_up_to_the_plans_cap(String plan, int cap, int size, boolean allowed) {
        AccountLimits account = account(plan, cap);

        if (allowed) {
            assertThatCode(() -> RucLookups.requireWithinCap(account, size)).doesNotThrowAnyException();
        } else {
            assertThatThrownBy(() -> RucLookups.requireWithinCap(account, size))
                    .isInstanceOf(PlanForbids.class)
                    .hasMessage("A batch of " + size + " RUCs is over the " + plan + " plan's cap of " + cap
                            + " RUCs per request");
        }
    }

    @Test
    void over_the_cap_nothing_is_spent_and_nothing_is_looked_up() {
        List<Long> spent = new ArrayList<>();

        assertThatThrownBy(() -> lookups.findBatch(account("free", 10), Collections.nCopies(11, RUC),
                Include.NOTHING, spent::add)).isInstanceOf(PlanForbids.class);

        assertThat(spent).isEmpty();
        assertThat(happened).isEmpty();
    }

    @Test
    void at_the_cap_a_batch_of_n_spends_n_units_and_is_answered() {
        keep(RUC);
        keep(OTHER);
        List<Long> spent = new ArrayList<>();

        Map<String, RucAnswers.Answer> found = lookups.findBatch(account("free", 3), List.of(RUC, OTHER, RUC),
                Include.NOTHING, spent::add);

        assertThat(spent).containsExactly(3L);
        assertThat(found).containsOnlyKeys(RUC.value(), OTHER.value());
        // Both were kept in memory: the database was not asked.
        assertThat(happened).isEmpty();
    }

    @Test
    void the_units_are_spent_before_the_registry_is_read() {
        assertThatThrownBy(() -> lookups.findBatch(account("free", 10), List.of(RUC, OTHER), Include.NOTHING,
                units -> happened.add("spend " + units))).isInstanceOf(ConnectionException.class);

        assertThat(happened).containsExactly("spend 2", "lookup");
    }

    @Test
    void a_refused_spend_looks_nothing_up() {
        assertThatThrownBy(() -> lookups.findBatch(account("free", 10), List.of(RUC), Include.NOTHING, units -> {
            throw new QuotaExceeded(Text.of("metering.quota_exceeded", 1000, "free", 60), 60, null);
        })).isInstanceOf(QuotaExceeded.class);

        assertThat(happened).isEmpty();
    }

    private void keep(Ruc ruc) {
        kept.read().keep(ruc.value(), new RucAnswers.Answer(ruc.value(),
                ("{\"ruc\":\"" + ruc.value() + "\"}").getBytes(StandardCharsets.UTF_8), "\"tag\""));
    }

    private static AccountLimits account(String plan, int batchCap) {
        return new AccountLimits(UUID.randomUUID(), "sub_test", plan, 1_000, 60, batchCap, 0, 0, 0, 80,
                Instant.parse("2026-11-01T05:00:00Z"));
    }
}
