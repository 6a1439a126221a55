package pe.quipu.api.ruc;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.util.RawValue;
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
import pe.quipu.api.http.ApiProblem;
import pe.quipu.api.http.PageLimit;
import pe.quipu.api.http.ProblemType;
import pe.quipu.api.http.StrictQueryString;
import pe.quipu.api.metering.CostsUnits;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.api.domain.Text;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code GET /v1/ruc?q=}: search by name (contract §10). One quota unit per page, metered like a lookup. Each item is
 * the very answer {@code GET /v1/ruc/{ruc}} gives, bytes and all ({@link RucAnswers}), so the two never disagree.
 */
@Timed
@Path("/v1/ruc")
@Produces(MediaType.APPLICATION_JSON)
@RequiresScope(Scope.RUC_READ)
@CostsUnits
public final class RucSearchResource {

    static final List<String> PARAMETERS = List.of("q", "ubigeo", "estado", "condicion", "limit", "cursor");
    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 50;
    static final int MIN_Q = 3;
    static final int MAX_Q = 100;
    /** estado and condicion are open lists (SUNAT's values are cut at 20 characters); this bounds the text only. */
    static final int MAX_FILTER = 40;
    private static final Pattern UBIGEO = Pattern.compile("\\d{2}|\\d{4}|\\d{6}");
    private static final Pattern LOOKS_LIKE_RUC = Pattern.compile("\\d{11}");

    private final RucSearch search;
    private final RucAnswers answers;
    private final boolean enabled;

    public RucSearchResource(RucSearch search, RucAnswers answers, boolean enabled) {
        this.search = search;
        this.answers = answers;
        this.enabled = enabled;
    }

    @GET
    public Response search(@Auth ApiKeyPrincipal caller, @Context HttpServletRequest request) {
        if (!enabled) {
            throw ApiProblem.of(ProblemType.SERVICE_UNAVAILABLE, Text.of("ruc.search.off"));
        }
        Map<String, String> parameters = StrictQueryString.single(request, PARAMETERS);
        String q = q(parameters.get("q"));
        String ubigeo = parameters.get("ubigeo");
        if (ubigeo != null && !UBIGEO.matcher(ubigeo).matches()) {
            throw new InvalidInput("ubigeo", Text.of("ruc.search.ubigeo_digits"));
        }
        String estado = filter(parameters, "estado");
        String condicion = filter(parameters, "condicion");
        int limit = PageLimit.parse(parameters.get("limit"), DEFAULT_LIMIT, MAX_LIMIT);
        RucSearch.Request asked = new RucSearch.Request(q, ubigeo, estado, condicion, limit);
        String fingerprint = SearchCursor.fingerprint(List.of(q, String.valueOf(ubigeo), String.valueOf(estado),
                String.valueOf(condicion), Integer.toString(limit)));
        SearchCursor after = null;
        String cursor = parameters.get("cursor");
        if (cursor != null) {
            after = SearchCursor.decode(cursor);
            if (!after.search().equals(fingerprint)) {
                throw new InvalidInput("cursor", Text.of("ruc.search.cursor_other_search"));
            }
        }

        RucSearch.Page page = search.page(asked, fingerprint, after);
        Map<String, RucAnswers.Answer> found = answers.findAll(page.rucs().stream().map(Ruc::parse).toList());
        List<RawValue> items = new ArrayList<>(page.rucs().size());
        for (String ruc : page.rucs()) {
            RucAnswers.Answer answer = found.get(ruc);
            if (answer != null) { // gone if a load swapped the registry between the two reads
                items.add(new RawValue(new String(answer.body(), StandardCharsets.UTF_8)));
            }
        }
        return Response.ok(new SearchPage(items, page.next() == null ? null : page.next().encode()))
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .build();
    }

    private static String q(String q) {
        if (q == null) {
            throw new InvalidInput("q", Text.of("ruc.search.q_required"));
        }
        String stripped = q.strip();
        if (LOOKS_LIKE_RUC.matcher(stripped).matches()) {
            throw new InvalidInput("q", Text.of("ruc.search.q_is_ruc", stripped));
        }
        // Counted in code points of the value as received, like the ubigeo search's q.
        int length = q.codePointCount(0, q.length());
        if (length < MIN_Q || length > MAX_Q) {
            throw new InvalidInput("q", Text.of("ruc.search.q_length", MIN_Q, MAX_Q, length));
        }
        return q;
    }

    /** estado and condicion as SUNAT publishes them (upper case); matched whatever the case sent. */
    private static String filter(Map<String, String> parameters, String name) {
        String value = parameters.get(name);
        if (value == null) {
            return null;
        }
        if (value.isBlank() || value.length() > MAX_FILTER) {
            throw new InvalidInput(name, Text.of("ruc.search.filter_length", MAX_FILTER));
        }
        return value.strip().toUpperCase(Locale.ROOT);
    }

    /** A page of results: {@code nextCursor} is always present, null on the last page. */
    @JsonInclude(JsonInclude.Include.ALWAYS)
    public record SearchPage(List<RawValue> items, String nextCursor) {
    }
}
