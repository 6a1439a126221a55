package pe.quipu.api.ruc;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.validation.MaxDataSize;
import jakarta.validation.constraints.NotNull;

/** The {@code ruc:} section of config.yml. */
public final class RucSettings {
    /**
     * Memory for the answers of recently looked-up RUCs, kept serialised with their ETag and always exact
     * ({@link RucAnswers}); 0 reads every lookup from the database. About 700 bytes per RUC: the default holds
     * some 24,000. RUCs that are not in the registry get an eighth of this on top, in a cache of their own
     * ({@link RucAnswers#unknownBytes}).
     */
    @NotNull
    @MaxDataSize(value = 4, unit = io.dropwizard.util.DataSizeUnit.GIBIBYTES)
    @JsonProperty
    private DataSize answerCache = DataSize.mebibytes(16);

    public DataSize getAnswerCache() {
        return answerCache;
    }
}
