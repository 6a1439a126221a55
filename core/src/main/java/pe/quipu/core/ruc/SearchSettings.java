package pe.quipu.core.ruc;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The {@code search:} section of config.yml, read by the API and the ETL alike. With {@code enabled: false} the
 * padrón load leaves the trigram index out (a faster load) and {@code GET /v1/ruc?q=} answers 503.
 */
public final class SearchSettings {

    @JsonProperty
    private boolean enabled = true;

    public boolean enabled() {
        return enabled;
    }
}
