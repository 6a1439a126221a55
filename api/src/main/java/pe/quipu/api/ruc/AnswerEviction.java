package pe.quipu.api.ruc;

import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.platform.ExactCache;
import pe.quipu.core.ruc.RegistryChanges;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongFunction;

/**
 * What an instance drops from the answers it keeps when the registry or SUNAT's lists change. A notification that
 * names a load's run ({@code run:<id>}, changeset 031) drops the answers of the RUCs that run changed, read from the
 * change log, and keeps the rest: a day's publication touches a small share of the registry, and the answers in
 * memory are mostly of RUCs it did not touch. Any other notification, a run that changed more than
 * {@link #AT_MOST} RUCs, or a change log that cannot be read drops everything, as before.
 *
 * <p>From the notification until the run's RUCs are dropped, the caches are paused ({@link ExactCache#pause}): the
 * commit is already visible, so nothing they hold may be served until the stale answers are out.
 */
final class AnswerEviction {

    /**
     * Above this many change-log rows in a run, everything is dropped instead: reading and dropping them would take
     * longer than the pause should last, and a run that large has touched much of what is kept anyway
     * (docs/decisions.md, "Start-up and miss speed").
     */
    static final int AT_MOST = 50_000;

    private static final Logger LOG = LoggerFactory.getLogger(AnswerEviction.class);

    private final LongFunction<List<String>> rucsOfRun;
    private final ExactCache<String, RucAnswers.Answer> answers;
    private final ExactCache<String, Boolean> unknown;
    private final ExactCache<String, RucAnswers.Answer> included;

    /** @param rucsOfRun the RUCs of a run in the change log, at most {@link #AT_MOST} + 1 rows of them */
    AnswerEviction(LongFunction<List<String>> rucsOfRun, ExactCache<String, RucAnswers.Answer> answers,
                   ExactCache<String, Boolean> unknown, ExactCache<String, RucAnswers.Answer> included) {
        this.rucsOfRun = rucsOfRun;
        this.answers = answers;
        this.unknown = unknown;
        this.included = included;
    }

    /** Reads a run's RUCs from the change log of this database. */
    static LongFunction<List<String>> changeLog(Jdbi jdbi) {
        return run -> jdbi.withExtension(ChangeLogRows.class, rows -> rows.rucsOf(run, AT_MOST + 1));
    }

    /** A notification on the registry's channel: every answer of its RUCs, known or unknown, with or without lists. */
    void registryChanged(String payload) {
        long run = RegistryChanges.runOf(payload);
        if (run < 0) {
            dropAll();
            return;
        }
        try (ExactCache.Pause a = answers.pause(); ExactCache.Pause u = unknown.pause();
             ExactCache.Pause i = included.pause()) {
            Set<String> rucs = rucsOf(run);
            if (rucs == null) {
                dropAll();
            } else {
                answers.changed(rucs);
                unknown.changed(rucs);
                included.changed(IncludedAnswers.keysOf(rucs));
            }
        }
    }

    /** A notification on the lists' channel: only answers that include lists or premises. */
    void listsChanged(String payload) {
        long run = RegistryChanges.runOf(payload);
        if (run < 0) {
            included.changed();
            return;
        }
        try (ExactCache.Pause i = included.pause()) {
            Set<String> rucs = rucsOf(run);
            if (rucs == null) {
                included.changed();
            } else {
                included.changed(IncludedAnswers.keysOf(rucs));
            }
        }
    }

    /** Changes may have gone unheard, or touched anything. */
    void dropAll() {
        answers.changed();
        unknown.changed();
        included.changed();
    }

    /** The run's RUCs; null when there are too many to drop one by one, or they cannot be read. */
    private Set<String> rucsOf(long run) {
        try {
            List<String> rucs = rucsOfRun.apply(run);
            if (rucs.size() > AT_MOST) {
                LOG.info("Run {} changed more than {} RUCs: dropping every answer kept", run, AT_MOST);
                return null;
            }
            return new HashSet<>(rucs);
        } catch (RuntimeException e) {
            LOG.warn("Could not read the RUCs of run {} from the change log; dropping every answer kept: {}", run,
                    e.getMessage());
            return null;
        }
    }
}
