package pe.quipu.api.privacy;

import com.codahale.metrics.annotation.Timed;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import pe.quipu.api.auth.RequiresSession;
import pe.quipu.api.auth.SessionPrincipal;
import pe.quipu.api.http.Origins;

/**
 * {@code GET /v1/me/export}: the account holder's personal-data export (the spec's "Personal-data export document"),
 * with a session's access token; an API key gets 401. A download, streamed as it is written, never cached. One per
 * 24 hours: the next is 429 {@code rate_limited} with {@code Retry-After}.
 */
@Timed
@Path("/v1/me/export")
@RequiresSession
public final class ExportResource {

    static final String CONTENT_TYPE = MediaType.APPLICATION_JSON + "; charset=utf-8";

    private final PersonalDataExport exports;

    public ExportResource(PersonalDataExport exports) {
        this.exports = exports;
    }

    @GET
    @Produces(MediaType.APPLICATION_JSON)
    public Response export(@Auth SessionPrincipal caller, @Context HttpServletRequest request) {
        PersonalDataExport.Started export = exports.start(caller.accountId(), Origins.of(request));
        StreamingOutput document = out -> {
            try {
                export.writeTo(out);
            } catch (RuntimeException e) {
                abort(request, e);
                throw e;
            }
        };
        return Response.ok(document, CONTENT_TYPE)
                .header("Content-Disposition", "attachment; filename=\"quipu-export-" + export.date() + ".json\"")
                .header(HttpHeaders.CACHE_CONTROL, "no-store")
                .build();
    }

    /**
     * Jersey ends an answer it has begun normally whatever failed while writing it, so the client would see a 200
     * whose JSON merely stops: abort the connection instead, so the transfer itself fails (curl exits with 18).
     */
    private static void abort(HttpServletRequest request, Throwable failure) {
        ServletContextRequest jetty = ServletContextRequest.getServletContextRequest(request);
        if (jetty != null) {
            jetty.getServletChannel().abort(failure);
        }
    }
}
