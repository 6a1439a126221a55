package pe.quipu.api.docs;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import pe.quipu.api.http.ETags;

import java.io.IOException;
import java.util.Map;

/**
 * {@code /docs}: the interactive API docs, Swagger UI over {@code /v1/openapi.json}, served from Quipu's own origin.
 * The page and its initializer are Quipu's ({@link DocsAssets}); the rest comes from the {@code org.webjars:swagger-ui}
 * jar. Only those few files are served, from memory, each with its content type and an ETag, and every answer under
 * {@code /docs} carries a strict Content-Security-Policy: no script but these files, no inline script, nothing from
 * another origin, never framed (docs/decisions.md, Interactive docs).
 */
public final class DocsServlet extends HttpServlet {

    /**
     * {@code img-src data:} for the icons swagger-ui.css holds as data URIs; {@code connect-src 'self'} for the
     * document and "Try it out"; styles only from the stylesheets (Swagger UI's own style changes go through the DOM,
     * which style-src does not govern).
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
            + "form-action 'self'; frame-ancestors 'none'";
    private static final Map<String, String> HEADERS = Map.of(
            "Content-Security-Policy", CONTENT_SECURITY_POLICY,
            "X-Frame-Options", "DENY",
            "Referrer-Policy", "no-referrer",
            "X-Content-Type-Options", "nosniff",
            "Cross-Origin-Opener-Policy", "same-origin",
            "Cross-Origin-Resource-Policy", "same-origin");

    private final transient DocsAssets assets;

    public DocsServlet(DocsAssets assets) {
        this.assets = assets;
    }

    /** GET and HEAD only: anything else (TRACE, which would echo the request's headers, included) is 405. */
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        HEADERS.forEach(response::setHeader);
        String method = request.getMethod();
        if (!"GET".equals(method) && !"HEAD".equals(method)) {
            response.setHeader("Allow", "GET, HEAD");
            response.sendError(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
            return;
        }
        super.service(request, response);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        DocsAssets.Asset asset = assets.find(request.getPathInfo()).orElse(null);
        if (asset == null) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        // Revalidated on every use (the names do not change with Swagger UI's version), answered 304 when unchanged.
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("ETag", asset.etag());
        if (ETags.matches(request.getHeader("If-None-Match"), asset.etag())) {
            response.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            return;
        }
        response.setContentType(asset.contentType());
        response.setContentLength(asset.bytes().length);
        response.getOutputStream().write(asset.bytes());
    }
}
