package pe.quipu.core.fx;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Where a rate comes from (the interface spec's {@code fuente}; contract §12), with the currencies each source
 * publishes and who answers Quipu's requests for it.
 */
public enum Fuente {
    /** BCRP's interbank rates, USD and EUR, from its statistics API. */
    BCRP("bcrp", "BCRP", "BCRP", List.of(Moneda.USD, Moneda.EUR)),
    /** The banking system's average published by SBS, which BCRP republishes as two series of its API. USD only. */
    SBS("sbs", "SBS", "BCRP", List.of(Moneda.USD)),
    /** SUNAT's own publication, the rate of invoices and of the IGV on them. USD only. */
    SUNAT("sunat", "SUNAT", "SUNAT", List.of(Moneda.USD));

    private final String code;
    private final String publisher;
    private final String upstream;
    private final List<Moneda> monedas;

    Fuente(String code, String publisher, String upstream, List<Moneda> monedas) {
        this.code = code;
        this.publisher = publisher;
        this.upstream = upstream;
        this.monedas = monedas;
    }

    /** As the API writes it ({@code fuente}) and the database stores it. */
    public String code() {
        return code;
    }

    /** Who publishes the rate, for messages: "SBS published no USD rate on or before …". */
    public String publisher() {
        return publisher;
    }

    /** Who Quipu asks for it, for messages: SBS's rates come from BCRP's API. */
    public String upstream() {
        return upstream;
    }

    /** The currencies this source publishes, in the order the status lists them. */
    public List<Moneda> monedas() {
        return monedas;
    }

    public boolean serves(Moneda moneda) {
        return monedas.contains(moneda);
    }

    /** Exact, case-sensitive, as {@link Moneda#fromCode} is: {@code bcrp}, {@code sbs}, {@code sunat}. */
    public static Optional<Fuente> fromCode(String code) {
        return Arrays.stream(values()).filter(f -> f.code.equals(code)).findFirst();
    }
}
