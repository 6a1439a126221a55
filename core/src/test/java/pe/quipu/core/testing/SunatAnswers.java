package pe.quipu.core.testing;

import pe.quipu.core.testing.BcrpStub.Answer;

import java.time.LocalDate;
import java.time.YearMonth;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Builds SUNAT's {@code listarTipoCambio} answers in their real shape (contract §12) for the month asked, as SUNAT
 * does: every day of that month it has, compra ({@code C}) then venta ({@code V}).
 */
public final class SunatAnswers {

    private static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("dd/MM/yyyy");

    /** Per day, compra and venta as published; null for a side not published. */
    private final NavigableMap<LocalDate, String[]> days = new TreeMap<>();

    /** Adds a day; a null side is left out of the answer (a one-sided day). */
    public SunatAnswers day(LocalDate fecha, String compra, String venta) {
        days.put(fecha, new String[] {compra, venta});
        return this;
    }

    public SunatStub.Responder responder() {
        return month -> Answer.json(json(month));
    }

    /** The answer for {@code month}: its days, in date order. */
    public String json(YearMonth month) {
        return json(days.subMap(month.atDay(1), true, month.atEndOfMonth(), true));
    }

    public static String json(Map<LocalDate, String[]> days) {
        List<String> entries = new ArrayList<>();
        days.forEach((fecha, sides) -> {
            if (sides[0] != null) {
                entries.add(entry(fecha, sides[0], "C"));
            }
            if (sides[1] != null) {
                entries.add(entry(fecha, sides[1], "V"));
            }
        });
        return entries.stream().collect(Collectors.joining(",", "[", "]"));
    }

    private static String entry(LocalDate fecha, String value, String codTipo) {
        return "{\"fecPublica\":\"" + DATE.format(fecha) + "\",\"valTipo\":\"" + value + "\",\"codTipo\":\"" + codTipo
                + "\"}";
    }
}
