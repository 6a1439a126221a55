package pe.quipu.api.openapi;

import com.codahale.metrics.annotation.Timed;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.EntityTag;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Request;
import jakarta.ws.rs.core.Response;

/**
 * {@code GET /v1/openapi.json} and {@code GET /v1/openapi.yaml}: the OpenAPI document, public (no credential, not
 * metered), from memory, with an ETag so that a client revalidating it gets a 304.
 */
@Timed
@Path("/v1")
public final class OpenApiResource {

    /** The document changes only with a deployment: a few minutes' staleness, then a cheap revalidation. */
    static final String CACHE_CONTROL = "public, max-age=300";
    /** RFC 9512's media type for YAML. */
    static final String YAML = "application/yaml";

    private final OpenApiDocument document;

    public OpenApiResource(OpenApiDocument document) {
        this.document = document;
    }

    @GET
    @Path("/openapi.json")
    @Produces(MediaType.APPLICATION_JSON)
    public Response json(@Context Request request) {
        return answer(request, document.json(), MediaType.APPLICATION_JSON_TYPE);
    }

    @GET
    @Path("/openapi.yaml")
    @Produces(YAML)
    public Response yaml(@Context Request request) {
        return answer(request, document.yaml(), MediaType.valueOf(YAML));
    }

    private static Response answer(Request request, OpenApiDocument.Representation representation, MediaType type) {
        String etag = representation.etag();
        EntityTag tag = new EntityTag(etag.substring(1, etag.length() - 1));
        Response.ResponseBuilder notModified = request.evaluatePreconditions(tag);
        Response.ResponseBuilder answer = notModified != null ? notModified
                : Response.ok(representation.bytes(), type).tag(tag);
        return answer.header(HttpHeaders.CACHE_CONTROL, CACHE_CONTROL).build();
    }
}
