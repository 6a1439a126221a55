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
import pe.quipu.api.http.StrictQueryString;
import pe.quipu.api.metering.CostsUnits;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.Moneda;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/** {@code GET /v1/tipo-cambio} (interface spec, Exchange rate; contract §5). */
@Timed
@Path("/v1/tipo-cambio")
@Produces(MediaType.APPLICATION_JSON)
@CostsUnits
public final class TipoCambioResource {

    static final String CACHE_CONTROL = "public, max-age=1800, must-revalidate";
    private static final List<String> PARAMETERS = List.of("moneda", "fecha");
    private static final Pattern ISO_DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

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
        Optional<LocalDate> fecha = fecha(query.get("fecha"));
        ExchangeRate rate = rates.rate(moneda, fecha);
        return Response.ok(written.get(rate, this::write), MediaType.APPLICATION_JSON_TYPE)
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

    /** Exactly "USD" or "EUR", as the spec spells them: "usd" is refused rather than guessed at. */
    private static Moneda moneda(String value) {
        if (value == null) {
            return Moneda.USD;
        }
        return Moneda.fromCode(value).orElseThrow(() -> new InvalidInput("moneda", "must be USD or EUR"));
    }

    private static Optional<LocalDate> fecha(String value) {
        if (value == null) {
            return Optional.empty();
        }
        if (!ISO_DATE.matcher(value).matches()) {
            throw new InvalidInput("fecha", "must be a date in the form YYYY-MM-DD");
        }
        try {
            return Optional.of(LocalDate.parse(value));
        } catch (DateTimeParseException e) {
            throw new InvalidInput("fecha", "must be a valid calendar date (YYYY-MM-DD)");
        }
    }

    /** The exchange-rate resource, fields in the spec's order. */
    @JsonPropertyOrder({"fecha", "compra", "venta", "fuente", "moneda", "capturadoEn"})
    public record TipoCambio(LocalDate fecha, BigDecimal compra, BigDecimal venta, String fuente, String moneda,
                             Instant capturadoEn) {
    }
}
