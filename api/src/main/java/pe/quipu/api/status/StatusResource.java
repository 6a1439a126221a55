package pe.quipu.api.status;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.Moneda;
import pe.quipu.core.fx.RateSeries;
import pe.quipu.core.ruc.SunatLists;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.EnumMap;
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
    private final String environment;
    private volatile Cached cached;

    /** @param environment {@code development} or {@code production} (QUIPU_ENV), shown so nobody mistakes one for the other */
    public StatusResource(DataFreshness freshness, Clock clock, String version, String environment) {
        this.freshness = freshness;
        this.clock = clock;
        this.version = version;
        this.environment = environment;
    }

    @GET
    public Response status() {
        Instant now = clock.instant();
        Cached current = cached;
        // A clock set back (an operator's correction) reads again too, rather than keep an answer from its future.
        if (current == null || now.isBefore(current.readAt) || !now.isBefore(current.readAt.plus(REFRESH))) {
            current = new Cached(now, toStatus(freshness.read()));
            cached = current;
        }
        return Response.ok(current.status).header(HttpHeaders.CACHE_CONTROL, "no-cache").build();
    }

    private Status toStatus(DataFreshness.Snapshot snapshot) {
        TipoCambioStatus rates = TipoCambioStatus.of(snapshot.latestRates());
        // Every list is named, null until its first load, so a monitor tells "never loaded" from "loaded empty".
        Map<String, LoadStatus> padrones = new LinkedHashMap<>();
        for (String padron : SunatLists.PADRONES) {
            padrones.put(padron, loadStatus(snapshot.lists().get(padron.replace('_', '-'))));
        }
        RegistryStatus registry = new RegistryStatus(snapshot.registryRows(), snapshot.registryLoadedAt(),
                publication(snapshot.publication()));
        return new Status(version, environment, registry, new UbigeoStatus(snapshot.ubigeoCount()), rates, padrones,
                loadStatus(snapshot.lists().get("locales-anexos")));
    }

    private static PublicationStatus publication(DataFreshness.Publication publication) {
        return new PublicationStatus(publication.added(), publication.changed(), publication.removed());
    }

    private static LoadStatus loadStatus(DataFreshness.Load load) {
        return load == null ? null : new LoadStatus(load.rows(), load.loadedAt());
    }

    private record Cached(Instant readAt, Status status) {
    }

    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record Status(String version, String environment, RegistryStatus registry, UbigeoStatus ubigeos,
                         TipoCambioStatus tipoCambio,
                         @JsonInclude(value = JsonInclude.Include.ALWAYS, content = JsonInclude.Include.ALWAYS)
                         Map<String, LoadStatus> padrones,
                         LoadStatus anexos) {
    }

    /** SUNAT's lists and premises: what the last load put in service (contract §10). */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record LoadStatus(long rows, Instant loadedAt) {
    }

    /**
     * The registry: its size and when it was last published, with what that publication changed
     * ({@code lastPublication}, always present).
     */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record RegistryStatus(long rows, Instant loadedAt, PublicationStatus lastPublication) {
    }

    /** How many RUCs the last padrón load added, changed and removed; each null when it did not count them. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record PublicationStatus(Long added, Long changed, Long removed) {
    }

    public record UbigeoStatus(int count) {
    }

    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record RateStatus(LocalDate fecha) {
    }

    /**
     * Each source's latest publication per currency it serves (contract §12), and beside them, for readers of the
     * first shape, {@code USD} and {@code EUR}: BCRP's, as they always were.
     */
    @JsonPropertyOrder({"bcrp", "sbs", "sunat", "USD", "EUR"})
    public record TipoCambioStatus(Map<String, RateStatus> bcrp, Map<String, RateStatus> sbs,
                                   Map<String, RateStatus> sunat, @JsonProperty("USD") RateStatus usd,
                                   @JsonProperty("EUR") RateStatus eur) {

        /** @param latest the latest publication date per series, keyed "bcrp.USD" (DataFreshness.Snapshot) */
        static TipoCambioStatus of(Map<String, LocalDate> latest) {
            Map<Fuente, Map<String, RateStatus>> bySource = new EnumMap<>(Fuente.class);
            for (Fuente fuente : Fuente.values()) {
                Map<String, RateStatus> monedas = new LinkedHashMap<>();
                for (Moneda moneda : fuente.monedas()) {
                    monedas.put(moneda.name(), new RateStatus(latest.get(RateSeries.of(fuente, moneda).key())));
                }
                bySource.put(fuente, monedas);
            }
            Map<String, RateStatus> bcrp = bySource.get(Fuente.BCRP);
            return new TipoCambioStatus(bcrp, bySource.get(Fuente.SBS), bySource.get(Fuente.SUNAT), bcrp.get("USD"),
                    bcrp.get("EUR"));
        }
    }
}
