package pe.quipu.core.fx;

import java.util.Arrays;
import java.util.Optional;

/** The currencies Quipu quotes against PEN, with the BCRP interbank series behind each (contract §5). */
public enum Moneda {
    USD("PD04637PD", "PD04638PD"),
    EUR("PD04647PD", "PD04648PD");

    private final String compraSeries;
    private final String ventaSeries;

    Moneda(String compraSeries, String ventaSeries) {
        this.compraSeries = compraSeries;
        this.ventaSeries = ventaSeries;
    }

    public String compraSeries() {
        return compraSeries;
    }

    public String ventaSeries() {
        return ventaSeries;
    }

    /** The codes as BCRP's URL takes them; the response's {@code values} come in this order (compra, venta). */
    public String seriesPath() {
        return compraSeries + "-" + ventaSeries;
    }

    /** Exact, case-sensitive: the interface spec names the values "USD" or "EUR". */
    public static Optional<Moneda> fromCode(String code) {
        return Arrays.stream(values()).filter(m -> m.name().equals(code)).findFirst();
    }
}
