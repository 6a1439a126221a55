package pe.quipu.api.ruc;

import pe.quipu.api.domain.DomainException.PlanForbids;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.api.domain.Text;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongConsumer;

/**
 * The lookups the RUC endpoints make for a caller: one RUC, or a batch within the caller's plan (contract §3: the
 * plan's cap is checked before any lookup, and a batch of N RUCs costs N quota units).
 */
public final class RucLookups {

    private final IncludedAnswers answers;

    public RucLookups(IncludedAnswers answers) {
        this.answers = answers;
    }

    /** The answer of {@code ruc} with what {@code include} asks; empty when the registry does not hold it. */
    public Optional<RucAnswers.Answer> find(Ruc ruc, Include include) {
        return answers.find(ruc, include);
    }

    /**
     * The answers of a batch that the registry holds, keyed by RUC. In this order: the account's plan must allow a
     * batch this size ({@link PlanForbids} otherwise); {@code spend} is given the batch's cost, one unit per RUC,
     * and may refuse it by throwing; only then is anything looked up.
     */
    public Map<String, RucAnswers.Answer> findBatch(AccountLimits account, List<Ruc> rucs, Include include,
                                                    LongConsumer spend) {
        requireWithinCap(account, rucs.size());
        spend.accept(rucs.size());
        return answers.findAll(rucs, include);
    }

    /** A batch of more RUCs than the account's plan allows per request is refused whole. */
    static void requireWithinCap(AccountLimits account, int rucs) {
        if (rucs > account.batchCap()) {
            throw new PlanForbids(Text.of("ruc.batch.over_cap", rucs, account.plan(), account.batchCap()));
        }
    }
}
