package pe.quipu.api.fx;

import pe.quipu.core.testing.BcrpStub.Answer;
import pe.quipu.core.testing.BcrpStub;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Builds BCRP answers in the real response shape ({@code shared/data/bcrp/SOURCE.md}) for the range in the
 * request path, as BCRP does: {@code …/{codes}/json/{from}/{to}/esp} lists the periods in that range.
 */
public final class BcrpAnswers {

    private static final String[] MONTHS = {"Ene", "Feb", "Mar", "Abr", "May", "Jun", "Jul", "Ago", "Set", "Oct", "Nov", "Dic"};

    private final Map<String, NavigableMap<LocalDate, List<String>>> bySeries = new TreeMap<>();

    /** Adds a day for the series pair {@code codes} (e.g. {@code PD04637PD-PD04638PD}); values may be "n.d.". */
    public BcrpAnswers day(String codes, LocalDate fecha, String compra, String venta) {
        bySeries.computeIfAbsent(codes, c -> new TreeMap<>()).put(fecha, List.of(compra, venta));
        return this;
    }

    public BcrpStub.Responder responder() {
        return path -> {
            String[] parts = path.split("/");
            int n = parts.length;
            if (n < 5 || !parts[n - 4].equals("json") || !parts[n - 1].equals("esp")) {
                return Answer.html("<html><body>Unknown request " + path + "</body></html>");
            }
            LocalDate from = LocalDate.parse(parts[n - 3]);
            LocalDate to = LocalDate.parse(parts[n - 2]);
            NavigableMap<LocalDate, List<String>> days = bySeries.getOrDefault(parts[n - 5], new TreeMap<>());
            return Answer.json(json(days.subMap(from, true, to, true)));
        };
    }

    public static String json(Map<LocalDate, List<String>> days) {
        String periods = days.entrySet().stream()
                .map(e -> "{\"name\":\"" + periodName(e.getKey()) + "\",\"values\":[\"" + e.getValue().get(0)
                        + "\",\"" + e.getValue().get(1) + "\"]}")
                .collect(Collectors.joining(","));
        return "{\"config\":{\"title\":\"Tipo de cambio\",\"series\":[{\"name\":\"Compra\",\"dec\":\"3\"},"
                + "{\"name\":\"Venta\",\"dec\":\"3\"}]},\"periods\":[" + periods + "]}";
    }

    /** BCRP's {@code DD.Mmm.YY}, e.g. 24.Set.26. */
    public static String periodName(LocalDate d) {
        return "%02d.%s.%02d".formatted(d.getDayOfMonth(), MONTHS[d.getMonthValue() - 1], d.getYear() % 100);
    }
}
