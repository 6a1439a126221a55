package pe.quipu.api.ubigeo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.RequiresScope;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.Text;
import pe.quipu.api.http.PageLimit;
import pe.quipu.api.http.StrictQueryString;
import pe.quipu.api.metering.CostsUnits;
import pe.quipu.core.ubigeo.Ubigeo;
import pe.quipu.core.ubigeo.UbigeoCatalogue;
import pe.quipu.core.ubigeo.UbigeoPage;
import pe.quipu.core.ubigeo.UbigeoQuery;

import java.util.List;
import java.util.Map;

/**
 * {@code GET /v1/ubigeos} and {@code GET /v1/ubigeos/{code}} (interface spec, Ubigeos; contract §4), answered
 * from the in-memory catalogue.
 *
 * <p>Query parameters are read strictly ({@link StrictQueryString}); the lookup takes none at all.
 */
@Timed
@Path("/v1/ubigeos")
@Produces(MediaType.APPLICATION_JSON)
@RequiresScope(Scope.UBIGEOS_READ)
@CostsUnits
public final class UbigeoResource {

    /** The catalogue changes at most yearly, and a code never changes meaning: 30 days (spec). */
    static final String CACHE_CONTROL = "public, max-age=2592000, immutable";

    private static final List<String> LIST_PARAMETERS = List.of("q", "departamento", "provincia", "limit", "cursor");
    private static final int DEFAULT_LIMIT = 50;
    private static final int MAX_LIMIT = 200;
    private static final int MIN_Q = 2;
    private static final int MAX_Q = 80;

    /** Serialised pages kept: a few hundred typical searches. */
    private static final long PAGES_BYTES = 4L << 20;

    private final UbigeoDirectory directory;
    private final ObjectMapper json;
    /**
     * Pages already written, by catalogue and query: a catalogue is never changed, only replaced, so a page of the
     * catalogue in service is exact; the pages of a replaced one are never asked for again and age out.
     */
    private final Cache<Page, byte[]> pages = Caffeine.newBuilder()
            .maximumWeight(PAGES_BYTES)
            .weigher((Page page, byte[] bytes) -> bytes.length + 200)
            .build();

    private record Page(UbigeoCatalogue catalogue, UbigeoQuery query) {
        // A catalogue is compared by identity: the same object, the same data.
        @Override
        public boolean equals(Object o) {
            return o instanceof Page other && other.catalogue == catalogue && other.query.equals(query);
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(catalogue) * 31 + query.hashCode();
        }
    }

    public UbigeoResource(UbigeoDirectory directory, ObjectMapper json) {
        this.directory = directory;
        this.json = json;
    }

    @GET
    public Response list(@Auth ApiKeyPrincipal key, @Context HttpServletRequest request) {
        Map<String, String> parameters = StrictQueryString.single(request, LIST_PARAMETERS);
        String q = parameters.get("q");
        if (q != null) {
            // Counted in Unicode code points of the value as received (an emoji is one character, not two
            // UTF-16 units); not stripped, since the text is matched as given. Blank text would match nothing useful.
            int length = q.codePointCount(0, q.length());
            if (q.isBlank()) {
                throw new InvalidInput("q", Text.of("ubigeo.q.blank", MIN_Q, MAX_Q));
            }
            if (length < MIN_Q || length > MAX_Q) {
                throw new InvalidInput("q", Text.of("ubigeo.q.length", MIN_Q, MAX_Q, length));
            }
        }
        String departamento = code(parameters, "departamento", 2);
        String provincia = code(parameters, "provincia", 4);
        String cursor = code(parameters, "cursor", 6);
        int limit = PageLimit.parse(parameters.get("limit"), DEFAULT_LIMIT, MAX_LIMIT);

        UbigeoCatalogue catalogue = directory.catalogue();
        UbigeoQuery query = new UbigeoQuery(q, departamento, provincia, cursor, limit);
        byte[] body = pages.get(new Page(catalogue, query), asked -> {
            UbigeoPage page = catalogue.search(query);
            List<UbigeoJson> items = page.items().stream().map(UbigeoJson::of).toList();
            return write(new UbigeoList(items, page.nextCursor()));
        });
        return Response.ok(body, MediaType.APPLICATION_JSON_TYPE).header(HttpHeaders.CACHE_CONTROL, CACHE_CONTROL)
                .build();
    }

    private byte[] write(UbigeoList list) {
        try {
            return json.writeValueAsBytes(list);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a page of ubigeos always serialises", e);
        }
    }

    @GET
    @Path("{code}")
    public Response lookup(@Auth ApiKeyPrincipal key, @PathParam("code") String code,
                           @Context HttpServletRequest request) {
        StrictQueryString.single(request, List.of());
        if (!Ubigeo.isCode(code, 6)) {
            throw new InvalidInput("code", Text.of("ubigeo.code.six_digits"));
        }
        Ubigeo ubigeo = directory.catalogue().find(code).orElseThrow(
                () -> new NotFound(Text.of("ubigeo.not_found", code)));
        return cacheable(UbigeoJson.of(ubigeo));
    }

    private static Response cacheable(Object body) {
        return Response.ok(body).header(HttpHeaders.CACHE_CONTROL, CACHE_CONTROL).build();
    }

    private static String code(Map<String, String> parameters, String name, int digits) {
        String value = parameters.get(name);
        if (value != null && !Ubigeo.isCode(value, digits)) {
            throw new InvalidInput(name, Text.of("ubigeo.code.digits", digits));
        }
        return value;
    }

    /** The wire shape of a ubigeo (interface spec, Ubigeo): field names exactly as the spec lists them. */
    public record UbigeoJson(String code, String departamento, String provincia, String distrito,
                             String departamentoCode, String provinciaCode) {

        static UbigeoJson of(Ubigeo ubigeo) {
            return new UbigeoJson(ubigeo.code(), ubigeo.departamento(), ubigeo.provincia(), ubigeo.distrito(),
                    ubigeo.departamentoCode(), ubigeo.provinciaCode());
        }
    }

    /** A page of the list: {@code nextCursor} is always present, {@code null} on the last page. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record UbigeoList(List<UbigeoJson> items, String nextCursor) {
    }
}
