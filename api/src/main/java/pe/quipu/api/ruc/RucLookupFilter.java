package pe.quipu.api.ruc;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Timer;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.BearerHeaderAuthFilter;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.domain.DomainException;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.http.ETags;
import pe.quipu.api.http.ProblemResponses;
import pe.quipu.api.http.RequestMetrics;
import pe.quipu.api.metering.MeteringFeature;
import pe.quipu.api.metering.Ticket;
import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * {@code GET /v1/ruc/{ruc}}, the API's most frequent request, answered below Jersey when it is plain: a valid RUC, no
 * query string but {@code include} written plainly, no body, an {@code Accept} that takes JSON, one
 * {@code Authorization} header with a working API key that has {@code ruc:read}. Every other request goes on to Jersey
 * untouched, which answers it as before (a malformed RUC, a missing or wrong key, a scope refused, an unknown
 * {@code include} name, {@code HEAD}: each with its Problem), so that this filter answers only what it has decided
 * nothing else would answer differently.
 *
 * <p>One path, not two: the bearer credential is read by {@link BearerHeaderAuthFilter#credentials}, the key checked by
 * the API keys' authenticator, the request admitted and settled by {@link MeteringFeature}, the record read through
 * {@link RucLookups} with {@link ETags}, and the refusals it can meet after admission (a limit reached, an unknown RUC)
 * built by {@link ProblemResponses}: the same code Jersey's filters and {@link RucResource} run. What it leaves out is
 * Jersey's routing, its per-request injection and its response building, most of what a lookup cost
 * (docs/decisions.md, "RUC lookups below Jersey"). It counts in the resource's own timer and route.
 */
final class RucLookupFilter extends HttpFilter {

    static final String PREFIX = "/v1/ruc/";
    static final String ROUTE = "/v1/ruc/{ruc}";
    private static final Pattern PLAIN_NAMES = Pattern.compile("include=[a-z,]*");

    private final transient Function<String, Optional<ApiKeyPrincipal>> apiKeys;
    private final transient MeteringFeature metering;
    private final transient RucLookups lookups;
    private final transient ObjectMapper json;
    private final transient Timer timer;
    private final transient Counter answered;

    /**
     * @param apiKeys  the API key behind a bearer credential, if any (empty for anything that is not a working key)
     * @param metering how requests are metered; null when metering is switched off
     * @param timer    the resource's own timer ({@code RucResource.lookup}), which counts these answers too
     * @param answered how many lookups were answered here ({@code pe.quipu.api.ruc.RucLookupFilter.answered})
     */
    RucLookupFilter(Function<String, Optional<ApiKeyPrincipal>> apiKeys, MeteringFeature metering, RucLookups lookups,
                    ObjectMapper json, Timer timer, Counter answered) {
        this.apiKeys = apiKeys;
        this.metering = metering;
        this.lookups = lookups;
        this.json = json;
        this.timer = timer;
        this.answered = answered;
    }

    @Override
    protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        Ruc ruc = plainLookup(request);
        Include include = ruc == null ? null : plainInclude(request.getQueryString());
        ApiKeyPrincipal key = include == null ? null : key(request);
        if (key == null) {
            chain.doFilter(request, response);
            return;
        }
        RequestMetrics.routed(request, ROUTE);
        answered.inc();
        try (Timer.Context ignored = timer.time()) {
            answer(ruc, include, key, request, response);
        }
    }

    private void answer(Ruc ruc, Include include, ApiKeyPrincipal key, HttpServletRequest request,
                        HttpServletResponse response) throws IOException {
        Ticket ticket = null;
        if (metering != null) {
            try {
                ticket = metering.admit(key, 1);
            } catch (DomainException refused) {
                ProblemResponses.write(response, ProblemResponses.problem(refused), ProblemResponses.headers(refused),
                        json);
                return;
            }
        }
        int status = HttpServletResponse.SC_INTERNAL_SERVER_ERROR;
        try {
            Optional<RucAnswers.Answer> found = lookups.find(ruc, include);
            if (found.isEmpty()) {
                status = HttpServletResponse.SC_NOT_FOUND;
                ProblemResponses.write(response, ProblemResponses.problem(new NotFound(RucResource.notFound(ruc))),
                        allowance(ticket, status), json);
                return;
            }
            RucAnswers.Answer answer = found.get();
            String ifNoneMatch = joined(request.getHeaders(HttpHeaders.IF_NONE_MATCH));
            status = ifNoneMatch != null && ETags.matches(ifNoneMatch, answer.etag())
                    ? HttpServletResponse.SC_NOT_MODIFIED : HttpServletResponse.SC_OK;
            response.setStatus(status);
            if (status == HttpServletResponse.SC_OK) {
                response.setContentType(MediaType.APPLICATION_JSON);
            }
            response.setHeader(HttpHeaders.ETAG, answer.etag());
            response.setHeader(HttpHeaders.CACHE_CONTROL, RucResource.LOOKUP_CACHE_CONTROL);
            allowance(ticket, status).forEach(response::setHeader);
            if (status == HttpServletResponse.SC_OK) {
                response.setContentLength(answer.body().length);
                response.getOutputStream().write(answer.body());
            } else {
                response.setContentLength(0);
            }
        } catch (RuntimeException | IOException | Error e) {
            // Settled as failed: its unit goes back, as Jersey's answer of a failure would give it.
            allowance(ticket, HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
            throw e;
        }
    }

    private static Map<String, String> allowance(Ticket ticket, int status) {
        return ticket == null ? Map.of() : MeteringFeature.settle(ticket, status);
    }

    /** The RUC of a plain lookup; null for any request Jersey is to answer. */
    static Ruc plainLookup(HttpServletRequest request) {
        if (!"GET".equals(request.getMethod())) {
            return null;
        }
        String uri = request.getRequestURI();
        if (uri == null || uri.length() != PREFIX.length() + 11 || !uri.startsWith(PREFIX)) {
            return null;
        }
        if (request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null
                || !acceptsJson(request.getHeaders(HttpHeaders.ACCEPT))) {
            return null;
        }
        try {
            return Ruc.parse(uri.substring(PREFIX.length()));
        } catch (InvalidRucException e) {
            return null;
        }
    }

    /**
     * What a plain lookup's query string asks for beyond the record: nothing (no query string), or {@code include}
     * alone, once or repeated, its names as {@link Include#of} reads them, written plainly (lower-case letters and
     * commas, nothing percent-encoded); null for any other query string, which Jersey is to read.
     */
    static Include plainInclude(String query) {
        if (query == null) {
            return Include.NOTHING;
        }
        List<String> values = new ArrayList<>(2);
        for (String parameter : query.split("&", -1)) {
            if (!PLAIN_NAMES.matcher(parameter).matches()) {
                return null;
            }
            values.add(parameter.substring("include=".length()));
        }
        try {
            return Include.of(values, "include");
        } catch (DomainException.InvalidInput refused) {
            return null;
        }
    }

    /** The working API key with {@code ruc:read} the request's one Authorization header carries; else null. */
    private ApiKeyPrincipal key(HttpServletRequest request) {
        String credentials = BearerHeaderAuthFilter.credentials("Bearer",
                Collections.list(request.getHeaders(HttpHeaders.AUTHORIZATION)));
        if (credentials == null) {
            return null;
        }
        return apiKeys.apply(credentials).filter(key -> key.scopes().contains(Scope.RUC_READ)).orElse(null);
    }

    /**
     * Whether the request's {@code Accept} headers take {@code application/json}, read plainly: none at all, or a
     * range {@code application/json}, {@code application/*} or {@code *}{@code /*} whose {@code q} is not 0, and no
     * range refused ({@code q=0}). Anything less plain goes to Jersey's negotiation.
     */
    static boolean acceptsJson(Enumeration<String> accept) {
        if (accept == null || !accept.hasMoreElements()) {
            return true;
        }
        boolean takes = false;
        for (String header : Collections.list(accept)) {
            for (String range : header.split(",")) {
                List<String> parts = List.of(range.split(";"));
                String type = parts.getFirst().strip().toLowerCase(Locale.ROOT);
                if (type.isEmpty()) {
                    continue;
                }
                for (String parameter : parts.subList(1, parts.size())) {
                    String p = parameter.strip().toLowerCase(Locale.ROOT).replace(" ", "");
                    if (p.startsWith("q=") && p.substring(2).matches("0(\\.0*)?")) {
                        return false;
                    }
                }
                if (type.equals("application/json") || type.equals("application/*") || type.equals("*/*")) {
                    takes = true;
                }
            }
        }
        return takes;
    }

    /** The values of a header joined by commas, as Jersey reads a repeated one; null when absent. */
    private static String joined(Enumeration<String> values) {
        if (values == null || !values.hasMoreElements()) {
            return null;
        }
        String first = values.nextElement();
        if (!values.hasMoreElements()) {
            return first;
        }
        StringBuilder all = new StringBuilder(first);
        while (values.hasMoreElements()) {
            all.append(',').append(values.nextElement());
        }
        return all.toString();
    }
}
