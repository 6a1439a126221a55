package pe.quipu.api.status;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code GET /v1/status} (contract §9): public, no key. Read from the database at most every few seconds,
 * so that monitors polling it cost nothing.
 */
@Timed
@Path("/v1/status")
@Produces(MediaType.APPLICATION_JSON)
public final class StatusResource {

    private static final Duration REFRESH = Duration.ofSeconds(5);

    private final DataFreshness freshness;
    private final Clock clock;
    private final String version;
    private volatile Cached cached;

    public StatusResource(DataFreshness freshness, Clock clock, String version) {
        this.freshness = freshness;
        this.clock = clock;
        this.version = version;
    }

    @GET
    public Response status() {
        Instant now = clock.instant();
        Cached current = cached;
        if (current == null || !now.isBefore(current.readAt.plus(REFRESH))) {
            current = new Cached(now, toStatus(freshness.read()));
            cached = current;
        }
        return Response.ok(current.status).header(HttpHeaders.CACHE_CONTROL, "no-cache").build();
    }

    private Status toStatus(DataFreshness.Snapshot snapshot) {
        Map<String, RateStatus> rates = new LinkedHashMap<>();
        for (String moneda : new String[] {"USD", "EUR"}) {
            rates.put(moneda, new RateStatus(snapshot.latestRates().get(moneda)));
        }
        return new Status(version, new RegistryStatus(snapshot.registryRows(), snapshot.registryLoadedAt()),
                new UbigeoStatus(snapshot.ubigeoCount()), rates);
    }

    private record Cached(Instant readAt, Status status) {
    }

    public record Status(String version, RegistryStatus registry, UbigeoStatus ubigeos,
                         Map<String, RateStatus> tipoCambio) {
    }

    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record RegistryStatus(long rows, Instant loadedAt) {
    }

    public record UbigeoStatus(int count) {
    }

    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record RateStatus(LocalDate fecha) {
    }
}
