package pe.quipu.api.ruc;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.util.RawValue;
import io.dropwizard.auth.Auth;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.RequiresScope;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.api.http.ApiProblem;
import pe.quipu.api.http.ETags;
import pe.quipu.api.http.ProblemResponses;
import pe.quipu.api.http.ProblemType;
import pe.quipu.api.http.RequestBody;
import pe.quipu.api.metering.CostsUnits;
import pe.quipu.api.metering.MeteringFeature;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.api.domain.Text;
import pe.quipu.api.domain.RucFaults;
import pe.quipu.api.http.RequestLanguage;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code GET /v1/ruc/{ruc}} and {@code POST /v1/ruc/batch} (interface spec, RUC; contract §3), each with SUNAT's lists
 * and premises when asked ({@code include}, contract §10).
 */
@Timed
@Path("/v1/ruc")
@Produces(MediaType.APPLICATION_JSON)
@RequiresScope(Scope.RUC_READ)
@CostsUnits
public final class RucResource {

    static final String LOOKUP_CACHE_CONTROL = "public, max-age=3600, must-revalidate";

    /** 100 RUCs take under 2 KB; the rest is room for whitespace, not for arbitrary payloads held in memory. */
    static final int MAX_BATCH_BODY_BYTES = 64 * 1024;

    private final RucLookups lookups;
    private final BatchRequest batchRequest;
    private final AccountLimitsCache limits;

    public RucResource(IncludedAnswers answers, ObjectMapper json, AccountLimitsCache limits) {
        this.lookups = new RucLookups(answers);
        this.batchRequest = new BatchRequest(json);
        this.limits = limits;
    }

    @GET
    // "batch" is the batch endpoint's path, not a RUC: a GET there is a wrong method (405), not a bad RUC.
    @Path("/{ruc: (?!batch$)[^/]+}")
    public Response lookup(@Auth ApiKeyPrincipal caller, @PathParam("ruc") String text,
                           @QueryParam("include") List<String> include, @Context HttpHeaders headers) {
        Ruc ruc;
        try {
            ruc = Ruc.parse(text);
        } catch (InvalidRucException e) {
            throw new InvalidInput("ruc", RucFaults.of(text, e));
        }
        Include asked = Include.of(include, "include");
        Optional<RucAnswers.Answer> found = lookups.find(ruc, asked);
        if (found.isEmpty()) {
            // Returned, not thrown: the Problem the mapper gives a NotFound, without Jersey's exception handling, which
            // made an unknown RUC (a typo, a taxpayer newer than the load) cost more than a known one.
            return ProblemResponses.of(new NotFound(notFound(ruc)));
        }
        RucAnswers.Answer answer = found.get();
        String etag = answer.etag();
        List<String> ifNoneMatch = headers.getRequestHeader(HttpHeaders.IF_NONE_MATCH);
        if (ifNoneMatch != null && ETags.matches(String.join(",", ifNoneMatch), etag)) {
            return Response.notModified()
                    .header(HttpHeaders.ETAG, etag)
                    .header(HttpHeaders.CACHE_CONTROL, LOOKUP_CACHE_CONTROL)
                    .build();
        }
        return Response.ok(answer.body(), MediaType.APPLICATION_JSON_TYPE)
                .header(HttpHeaders.ETAG, etag)
                .header(HttpHeaders.CACHE_CONTROL, LOOKUP_CACHE_CONTROL)
                .build();
    }

    @POST
    @Path("/batch")
    @Consumes(MediaType.APPLICATION_JSON)
    public Response batch(@Auth ApiKeyPrincipal caller, @HeaderParam(HttpHeaders.CONTENT_TYPE) String contentType,
                          @Context ContainerRequestContext request, InputStream body) {
        if (contentType == null || contentType.isBlank()) {
            // Jersey lets a body without a Content-Type through; the spec asks for application/json.
            throw ApiProblem.of(ProblemType.UNSUPPORTED_MEDIA_TYPE, Text.of("http.send_json"));
        }
        BatchRequest.Batch batch = batchRequest.readBatch(RequestBody.readAtMost(body, MAX_BATCH_BODY_BYTES,
                Text.of("ruc.batch.body_too_large", MAX_BATCH_BODY_BYTES, BatchRequest.MAX_RUCS)));
        List<Ruc> rucs = batch.rucs();
        // Once the request is known to be well formed: the plan's cap, then the quota's N units, then the lookups.
        AccountLimits account = limits.get(caller.accountId())
                .orElseThrow(() -> new Unauthenticated(Text.of("domain.account.key_gone")));
        Map<String, RucAnswers.Answer> found = lookups.findBatch(account, rucs, batch.include(),
                units -> MeteringFeature.ticket(request).ifPresent(ticket -> ticket.reserve(units)));
        List<BatchEntry> results = new ArrayList<>(rucs.size());
        for (Ruc ruc : rucs) {
            RucAnswers.Answer answer = found.get(ruc.value());
            results.add(answer != null
                    ? new BatchEntry.Ok(ruc.value(), new RawValue(new String(answer.body(), StandardCharsets.UTF_8)))
                    : new BatchEntry.Failed(ruc.value(), new BatchEntry.Error(ProblemType.NOT_FOUND.wireName(),
                            ProblemType.NOT_FOUND.status(), notFound(ruc).in(RequestLanguage.current()))));
        }
        return Response.ok(BatchResult.of(results))
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .build();
    }

    static Text notFound(Ruc ruc) {
        return Text.of("ruc.not_found", ruc.value());
    }

}
