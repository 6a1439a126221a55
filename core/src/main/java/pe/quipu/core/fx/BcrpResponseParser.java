package pe.quipu.core.fx;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads BCRP's statistics JSON (BCRP's and SBS's series alike) ({@code shared/data/bcrp/SOURCE.md}):
 * {@code {"config":{"series":[{"dec":"3"},…]},"periods":[{"name":"24.Set.26","values":["3.41…","3.41…"]},…]}}.
 * <ul>
 *   <li>A body that is not JSON, or JSON without a {@code periods} array, is a {@link BcrpFormatException}
 *       (BCRP answers an HTML interstitial with status 200 when it is unhappy).</li>
 *   <li>Period names are {@code DD.Mmm.YY} with Spanish month abbreviations ({@code Set} for September).</li>
 *   <li>Values are rounded half-up to the series' {@code dec} decimals (3 when absent).</li>
 *   <li>A day with {@code n.d.} (or nothing) on either side is not a publication.</li>
 * </ul>
 */
public final class BcrpResponseParser {

    private static final ZoneId LIMA = ZoneId.of("America/Lima");
    private static final int DEFAULT_DECIMALS = 3;
    private static final Pattern PERIOD = Pattern.compile("(\\d{1,2})\\.(\\p{Alpha}{3})\\.(\\d{2})");
    private static final Map<String, Integer> MONTHS = Map.ofEntries(
            Map.entry("ene", 1), Map.entry("feb", 2), Map.entry("mar", 3), Map.entry("abr", 4),
            Map.entry("may", 5), Map.entry("jun", 6), Map.entry("jul", 7), Map.entry("ago", 8),
            // "Set" is what BCRP writes; "Sep" is accepted too so a change of style does not break captures.
            Map.entry("set", 9), Map.entry("sep", 9), Map.entry("oct", 10), Map.entry("nov", 11),
            Map.entry("dic", 12));

    private final ObjectMapper json;

    public BcrpResponseParser(ObjectMapper json) {
        this.json = json;
    }

    public BcrpResponseParser() {
        this(new ObjectMapper());
    }

    /**
     * @param capturedAt stamped on every publication as {@code capturadoEn}, and the reference for the
     *                   two-digit years (see {@link #year})
     */
    public Result parse(String body, RateSeries series, Instant capturedAt) {
        JsonNode root;
        try {
            root = json.readTree(body == null ? "" : body);
        } catch (JsonProcessingException e) {
            throw new BcrpFormatException("BCRP answered something that is not JSON (" + preview(body) + ")", e);
        }
        if (root == null || !root.isObject() || !root.path("periods").isArray()) {
            throw new BcrpFormatException("BCRP answered JSON without a periods array (" + preview(body) + ")");
        }
        JsonNode config = root.path("config").path("series");
        int compraDecimals = decimals(config.path(0));
        int ventaDecimals = decimals(config.path(1));
        int currentYear = LocalDate.ofInstant(capturedAt, LIMA).getYear();

        List<ExchangeRate> publications = new ArrayList<>();
        Set<LocalDate> withoutValue = new TreeSet<>();
        for (JsonNode period : root.path("periods")) {
            LocalDate fecha = date(period.path("name").asText(""), currentYear);
            JsonNode values = period.path("values");
            BigDecimal compra = value(values.path(0), compraDecimals, fecha);
            BigDecimal venta = value(values.path(1), ventaDecimals, fecha);
            if (compra == null || venta == null) {
                withoutValue.add(fecha);
            } else {
                publications.add(new ExchangeRate(series.moneda(), fecha, compra, venta, series.fuente().code(),
                        capturedAt));
            }
        }
        publications.sort((a, b) -> a.fecha().compareTo(b.fecha()));
        return new Result(publications, withoutValue);
    }

    /** BCRP's {@code DD.Mmm.YY}, e.g. {@code 24.Set.26}. */
    static LocalDate date(String name, int currentYear) {
        Matcher m = PERIOD.matcher(name.strip());
        if (!m.matches()) {
            throw new BcrpFormatException("BCRP period name not in the DD.Mmm.YY form: " + preview(name));
        }
        Integer month = MONTHS.get(m.group(2).toLowerCase(Locale.ROOT));
        if (month == null) {
            throw new BcrpFormatException("BCRP period name with an unknown month: " + preview(name));
        }
        try {
            return LocalDate.of(year(Integer.parseInt(m.group(3)), currentYear), month, Integer.parseInt(m.group(1)));
        } catch (DateTimeException e) {
            throw new BcrpFormatException("BCRP period name is not a date: " + preview(name), e);
        }
    }

    /**
     * Two-digit years: 20YY, except years more than one year ahead of the current (Lima) year, which are
     * 19YY. BCRP's daily series start in the 1990s, and nothing it publishes is dated after next year,
     * so e.g. in 2026 "97" is 1997 and "27" is 2027.
     */
    static int year(int twoDigits, int currentYear) {
        int year = 2000 + twoDigits;
        return year > currentYear + 1 ? year - 100 : year;
    }

    private static int decimals(JsonNode seriesConfig) {
        String dec = seriesConfig.path("dec").asText("").strip();
        try {
            int decimals = Integer.parseInt(dec);
            return decimals >= 0 && decimals <= 10 ? decimals : DEFAULT_DECIMALS;
        } catch (NumberFormatException e) {
            return DEFAULT_DECIMALS;
        }
    }

    /** The rounded value, or null when BCRP shows none ({@code n.d.}, blank or missing). */
    private static BigDecimal value(JsonNode node, int decimals, LocalDate fecha) {
        if (node.isMissingNode() || node.isNull()) {
            return null;
        }
        String text = node.asText("").strip();
        if (text.isEmpty() || text.equalsIgnoreCase("n.d.")) {
            return null;
        }
        try {
            return new BigDecimal(text).setScale(decimals, RoundingMode.HALF_UP);
        } catch (NumberFormatException e) {
            // Anything but a number or n.d. means the format changed: better no data than wrong data.
            throw new BcrpFormatException("BCRP value for " + fecha + " is not a number: " + preview(text), e);
        }
    }

    /** A one-line beginning of an upstream's text, for a format error's message (SUNAT's parser uses it too). */
    static String preview(String text) {
        if (text == null) {
            return "empty body";
        }
        String oneLine = text.replaceAll("\\s+", " ").strip();
        return oneLine.length() <= 60 ? oneLine : oneLine.substring(0, 60) + "…";
    }

    /**
     * @param publications       days with both sides, in date order
     * @param listedWithoutValue days listed with no value on at least one side
     */
    public record Result(List<ExchangeRate> publications, Set<LocalDate> listedWithoutValue) {
        public Result {
            publications = List.copyOf(publications);
            listedWithoutValue = Set.copyOf(listedWithoutValue);
        }
    }
}
