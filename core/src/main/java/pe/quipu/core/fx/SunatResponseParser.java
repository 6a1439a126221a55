package pe.quipu.core.fx;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.YearMonth;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads SUNAT's answer to {@code listarTipoCambio} for one month (contract §12):
 * {@code [{"fecPublica":"29/09/2026","valTipo":"3.432","codTipo":"C"},{"fecPublica":"29/09/2026","valTipo":"3.440",
 * "codTipo":"V"},…]}, {@code C} the compra and {@code V} the venta of that day. Defensively: anything else is a
 * {@link SunatFormatException}, and nothing of that answer is stored.
 * <ul>
 *   <li>The body must be a JSON array of objects with these three members as strings (other members are
 *       ignored).</li>
 *   <li>{@code fecPublica} is {@code DD/MM/YYYY}, a real date within the month asked for.</li>
 *   <li>{@code codTipo} is {@code C} or {@code V}; a day and side listed twice must say the same value.</li>
 *   <li>{@code valTipo} is a positive decimal number with at most 3 decimals, kept as published (never rounded:
 *       SUNAT publishes 3 decimals, and a rate it did not publish must not be served as its).</li>
 *   <li>A day with one side only is not a publication.</li>
 *   <li>An empty array for a month that should have rates ({@link #shouldHaveRates}) is a failure, not a month
 *       without publications.</li>
 * </ul>
 */
public final class SunatResponseParser {

    /** Decimals SUNAT publishes, and the most a value may have. */
    static final int DECIMALS = 3;
    /**
     * Settled weekdays a month needs before an empty answer for it is a failure: more than the longest run of weekday
     * holidays at the start of a month in Peru (Holy Thursday and Good Friday on the 1st and 2nd of April).
     */
    static final int SETTLED_WEEKDAYS_FOR_RATES = 3;
    private static final Pattern DATE = Pattern.compile("(\\d{2})/(\\d{2})/(\\d{4})");
    private static final Pattern VALUE = Pattern.compile("-?\\d{1,6}(\\.\\d{1,6})?");
    private static final Set<String> MEMBERS = Set.of("fecPublica", "valTipo", "codTipo");

    private final ObjectMapper json;

    public SunatResponseParser(ObjectMapper json) {
        this.json = json;
    }

    public SunatResponseParser() {
        this(new ObjectMapper());
    }

    /**
     * @param month       the month asked for ({@code anio}, {@code mes})
     * @param capturedAt  stamped on every publication as {@code capturadoEn}; its date in Lima is "today" for
     *                    {@link #shouldHaveRates}
     * @param seriesStart the first day SUNAT is known to publish; null for no bound
     */
    public Result parse(String body, YearMonth month, Instant capturedAt, LocalDate seriesStart) {
        JsonNode root;
        try {
            root = json.readTree(body == null ? "" : body);
        } catch (JsonProcessingException e) {
            throw new SunatFormatException("SUNAT answered something that is not JSON (" + preview(body) + ")", e);
        }
        if (root == null || !root.isArray()) {
            throw new SunatFormatException("SUNAT answered JSON that is not an array (" + preview(body) + ")");
        }
        if (root.isEmpty()) {
            LocalDate today = LocalDate.ofInstant(capturedAt, ExchangeRateWriter.LIMA);
            if (shouldHaveRates(month, today, seriesStart)) {
                throw new SunatFormatException("SUNAT answered no rate at all for " + month
                        + ", a month that should have rates");
            }
            return new Result(List.of(), Set.of());
        }
        Map<LocalDate, BigDecimal> compras = new TreeMap<>();
        Map<LocalDate, BigDecimal> ventas = new TreeMap<>();
        for (JsonNode entry : root) {
            if (!entry.isObject()) {
                throw new SunatFormatException("SUNAT listed an entry of another shape: " + preview(entry.toString()));
            }
            for (String member : MEMBERS) {
                if (!entry.path(member).isTextual()) {
                    throw new SunatFormatException("SUNAT listed an entry without " + member + " as a string: "
                            + preview(entry.toString()));
                }
            }
            LocalDate fecha = date(entry.get("fecPublica").asText(), month);
            BigDecimal value = value(entry.get("valTipo").asText(), fecha);
            Map<LocalDate, BigDecimal> side = switch (entry.get("codTipo").asText()) {
                case "C" -> compras;
                case "V" -> ventas;
                default -> throw new SunatFormatException("SUNAT listed a codTipo other than C or V for " + fecha
                        + ": " + preview(entry.get("codTipo").asText()));
            };
            BigDecimal before = side.putIfAbsent(fecha, value);
            if (before != null && before.compareTo(value) != 0) {
                throw new SunatFormatException("SUNAT listed two values of one side for " + fecha + ": " + before
                        + " and " + value);
            }
        }
        List<ExchangeRate> publications = new ArrayList<>();
        Set<LocalDate> withoutValue = new TreeSet<>();
        Set<LocalDate> days = new TreeSet<>(compras.keySet());
        days.addAll(ventas.keySet());
        for (LocalDate fecha : days) {
            BigDecimal compra = compras.get(fecha);
            BigDecimal venta = ventas.get(fecha);
            if (compra == null || venta == null) {
                withoutValue.add(fecha);
            } else {
                publications.add(new ExchangeRate(Moneda.USD, fecha, compra, venta, Fuente.SUNAT.code(), capturedAt));
            }
        }
        return new Result(publications, withoutValue);
    }

    /**
     * Whether SUNAT must have published something in {@code month}: it has at least
     * {@value #SETTLED_WEEKDAYS_FOR_RATES} weekdays on or after {@code seriesStart} that are settled on {@code today}
     * (before yesterday in Lima, as for gaps). The current month's first days, and months before SUNAT's series,
     * may be empty.
     */
    public static boolean shouldHaveRates(YearMonth month, LocalDate today, LocalDate seriesStart) {
        LocalDate firstRecent = today.minusDays(1);
        int weekdays = 0;
        for (LocalDate d = month.atDay(1); !d.isAfter(month.atEndOfMonth()) && d.isBefore(firstRecent);
             d = d.plusDays(1)) {
            if ((seriesStart == null || !d.isBefore(seriesStart))
                    && d.getDayOfWeek() != DayOfWeek.SATURDAY && d.getDayOfWeek() != DayOfWeek.SUNDAY) {
                weekdays++;
            }
        }
        return weekdays >= SETTLED_WEEKDAYS_FOR_RATES;
    }

    /** {@code DD/MM/YYYY}, within the month asked for. */
    static LocalDate date(String text, YearMonth month) {
        Matcher m = DATE.matcher(text);
        if (!m.matches()) {
            throw new SunatFormatException("SUNAT fecPublica not in the DD/MM/YYYY form: " + preview(text));
        }
        LocalDate fecha;
        try {
            fecha = LocalDate.of(Integer.parseInt(m.group(3)), Integer.parseInt(m.group(2)),
                    Integer.parseInt(m.group(1)));
        } catch (DateTimeException e) {
            throw new SunatFormatException("SUNAT fecPublica is not a date: " + preview(text), e);
        }
        if (!YearMonth.from(fecha).equals(month)) {
            throw new SunatFormatException("SUNAT listed " + text + " in its answer for " + month);
        }
        return fecha;
    }

    /** A positive number with at most {@value #DECIMALS} decimals, at that scale (3.44 is 3.440, exactly). */
    static BigDecimal value(String text, LocalDate fecha) {
        if (!VALUE.matcher(text).matches()) {
            throw new SunatFormatException("SUNAT valTipo for " + fecha + " is not a decimal number: " + preview(text));
        }
        BigDecimal value = new BigDecimal(text);
        if (value.scale() > DECIMALS) {
            throw new SunatFormatException("SUNAT valTipo for " + fecha + " has more than " + DECIMALS
                    + " decimals: " + text);
        }
        if (value.signum() <= 0) {
            throw new SunatFormatException("SUNAT valTipo for " + fecha + " is not positive: " + text);
        }
        return value.setScale(DECIMALS);
    }

    private static String preview(String text) {
        return BcrpResponseParser.preview(text);
    }

    /**
     * @param publications       days with both sides, in date order
     * @param listedWithoutValue days listed with one side only
     */
    public record Result(List<ExchangeRate> publications, Set<LocalDate> listedWithoutValue) {
        public Result {
            publications = List.copyOf(publications);
            listedWithoutValue = Set.copyOf(listedWithoutValue);
        }
    }
}
