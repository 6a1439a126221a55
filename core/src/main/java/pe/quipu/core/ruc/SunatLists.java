package pe.quipu.core.ruc;

import java.util.List;

/**
 * SUNAT's lists beyond the padrón (contract §10), as the ETL writes them and the API answers them: their names in
 * {@code sunat_padrones} and in answers, in answer order, and how the API instances learn that a list or the
 * premises changed: a NOTIFY on {@link #CHANNEL}, delivered at commit, from the tables' triggers (changeset 015).
 */
public final class SunatLists {

    /** The four lists, in the order an answer gives them (alphabetical, as contract §10 orders by padron). */
    public static final List<String> PADRONES = List.of("agentes_percepcion", "agentes_percepcion_combustibles",
            "agentes_retencion", "buenos_contribuyentes");

    /** The NOTIFY channel; the payload is empty: any change may touch any RUC. */
    public static final String CHANNEL = "quipu_sunat_lists";

    private SunatLists() {
    }
}
