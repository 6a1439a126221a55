package pe.quipu.api.fx;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.RequiresScope;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.Text;
import pe.quipu.api.http.StrictQueryString;
import pe.quipu.api.metering.CostsUnits;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateSeries;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code GET /v1/tipo-cambio} (interface spec, Exchange rate; contract §5 and §12): one rate, or with {@code desde}
 * and {@code hasta} every publication of a range, of {@code fuente} ({@code bcrp} by default, so that every answer
 * without it is what it always was).
 */
@Timed
@Path("/v1/tipo-cambio")
@Produces(MediaType.APPLICATION_JSON)
@CostsUnits
public final class TipoCambioResource {

    static final String CACHE_CONTROL = "public, max-age=1800, must-revalidate";
    private static final List<String> PARAMETERS = List.of("moneda", "fecha", "fuente", "desde", "hasta");
    private static final Pattern ISO_DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");
    private static final byte[] ITEMS = "{\"items\":[".getBytes(StandardCharsets.UTF_8);

    private final ExchangeRateService rates;
    private final ObjectMapper json;
    /** Answers already written, by the rate they say: a rate's fields are its value, so a changed rate is a new key. */
    private final Cache<ExchangeRate, byte[]> written = Caffeine.newBuilder().maximumSize(2_000).build();

    public TipoCambioResource(ExchangeRateService rates, ObjectMapper json) {
        this.rates = rates;
        this.json = json;
    }

    @GET
    @RequiresScope(Scope.TIPO_CAMBIO_READ)
    public Response tipoCambio(@Auth ApiKeyPrincipal key, @Context HttpServletRequest request) {
        Map<String, String> query = StrictQueryString.single(request, PARAMETERS);
        Moneda moneda = moneda(query.get("moneda"));
        Fuente fuente = fuente(query.get("fuente"));
        if (!fuente.serves(moneda)) {
            throw new InvalidInput("moneda", Text.of("fx.moneda.usd_only", fuente.code(), moneda));
        }
        RateSeries series = RateSeries.of(fuente, moneda);
        Optional<LocalDate> fecha = date("fecha", query.get("fecha"));
        Optional<LocalDate> desde = date("desde", query.get("desde"));
        Optional<LocalDate> hasta = date("hasta", query.get("hasta"));
        byte[] body;
        if (desde.isPresent() || hasta.isPresent()) {
            if (fecha.isPresent()) {
                throw new InvalidInput("fecha", Text.of("fx.fecha_or_range"));
            }
            if (desde.isEmpty() || hasta.isEmpty()) {
                String missing = desde.isEmpty() ? "desde" : "hasta";
                throw new InvalidInput(missing, Text.of("fx.range_needs_both"));
            }
            body = range(series, rates.range(series, desde.get(), hasta.get()));
        } else {
            body = written.get(rates.rate(series, fecha), this::write);
        }
        return Response.ok(body, MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.CACHE_CONTROL, CACHE_CONTROL)
                .build();
    }

    private byte[] write(ExchangeRate rate) {
        try {
            return json.writeValueAsBytes(new TipoCambio(rate.fecha(), rate.compra(), rate.venta(), rate.fuente(),
                    rate.moneda().name(), rate.capturadoEn()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an exchange rate always serialises", e);
        }
    }

    /**
     * {@code {"items":[…],"moneda":"USD","fuente":"sunat"}}: each item the bytes a single rate is answered with (kept
     * in {@link #written}), as Jackson would write the {@link TipoCambioRange}.
     */
    byte[] range(RateSeries series, List<ExchangeRate> items) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64 + 110 * items.size());
        out.writeBytes(ITEMS);
        for (int i = 0; i < items.size(); i++) {
            if (i > 0) {
                out.write(',');
            }
            out.writeBytes(written.get(items.get(i), this::write));
        }
        out.writeBytes(("],\"moneda\":\"" + series.moneda().name() + "\",\"fuente\":\"" + series.fuente().code()
                + "\"}").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** Exactly "USD" or "EUR", as the spec spells them: "usd" is refused rather than guessed at. */
    private static Moneda moneda(String value) {
        if (value == null) {
            return Moneda.USD;
        }
        return Moneda.fromCode(value).orElseThrow(() -> new InvalidInput("moneda", Text.of("fx.moneda.unknown")));
    }

    /** Exactly "bcrp", "sbs" or "sunat", as the spec spells them; BCRP's when absent. */
    private static Fuente fuente(String value) {
        if (value == null) {
            return Fuente.BCRP;
        }
        return Fuente.fromCode(value).orElseThrow(() -> new InvalidInput("fuente", Text.of("fx.fuente.unknown")));
    }

    private static Optional<LocalDate> date(String name, String value) {
        if (value == null) {
            return Optional.empty();
        }
        if (!ISO_DATE.matcher(value).matches()) {
            throw new InvalidInput(name, Text.of("domain.date.form"));
        }
        try {
            return Optional.of(LocalDate.parse(value));
        } catch (DateTimeParseException e) {
            throw new InvalidInput(name, Text.of("domain.date.calendar"));
        }
    }

    /** The exchange-rate resource, fields in the spec's order. */
    @JsonPropertyOrder({"fecha", "compra", "venta", "fuente", "moneda", "capturadoEn"})
    public record TipoCambio(LocalDate fecha, BigDecimal compra, BigDecimal venta, String fuente, String moneda,
                             Instant capturadoEn) {
    }

    /** A range's answer (contract §12), as {@link #range} writes it. */
    @JsonPropertyOrder({"items", "moneda", "fuente"})
    public record TipoCambioRange(List<TipoCambio> items, String moneda, String fuente) {
    }
}
