package pe.quipu.api.dashboard;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import pe.quipu.api.http.ETags;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /app}: the developer dashboard, plain HTML, CSS and JavaScript modules beside this class, served from Quipu's
 * own origin. It calls the public API only ({@code /v1/...}), with the session's access token held in the page's
 * memory. A fixed list of files, read once at start (a missing one stops the start), served from memory with their
 * content type and an ETag; every answer carries a strict Content-Security-Policy: scripts and styles only from these
 * files, no inline script or style, nothing from another origin, never framed (docs/decisions.md, Dashboard).
 */
public final class DashboardServlet extends HttpServlet {

    /**
     * Nothing by default; scripts, styles, images and fonts from this origin; the SVG chart is built through the DOM;
     * {@code connect-src 'self'} for the API. {@code form-action 'self'}: the forms post nowhere (scripts send them).
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; object-src 'none'; "
            + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
    private static final Map<String, String> HEADERS = Map.of(
            "Content-Security-Policy", CONTENT_SECURITY_POLICY,
            "X-Frame-Options", "DENY",
            "Referrer-Policy", "no-referrer",
            "X-Content-Type-Options", "nosniff",
            "Cross-Origin-Opener-Policy", "same-origin",
            "Cross-Origin-Resource-Policy", "same-origin",
            "Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()");

    /** The files under /app, beside this class. */
    static final List<String> FILES = List.of("index.html", "app.css", "favicon.svg", "js/main.js", "js/api.js",
            "js/dom.js", "js/format.js", "js/chart.js", "js/pages/auth.js", "js/pages/overview.js",
            "js/pages/keys.js", "js/pages/webhooks.js", "js/pages/account.js", "js/pages/plans.js");

    private record Asset(byte[] bytes, String contentType, String etag) {
    }

    /** By path under /app: "/" is the page. */
    private final transient Map<String, Asset> assets;

    private DashboardServlet(Map<String, Asset> assets) {
        this.assets = Map.copyOf(assets);
    }

    /** Reads every file of the dashboard from the class path. */
    public static DashboardServlet load() {
        Map<String, Asset> assets = new LinkedHashMap<>();
        for (String name : FILES) {
            assets.put("/" + name, asset(name));
        }
        assets.put("/", assets.get("/index.html"));
        return new DashboardServlet(assets);
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
        String path = request.getPathInfo();
        Asset asset = assets.get(path == null ? "/" : path);
        if (asset == null) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        // Revalidated on every use, so a new release's files are taken at once; 304 while unchanged.
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

    private static Asset asset(String name) {
        try (InputStream in = DashboardServlet.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("/app needs " + name + ", which is not on the class path");
            }
            byte[] bytes = in.readAllBytes();
            return new Asset(bytes, contentType(name), etag(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String contentType(String name) {
        if (name.endsWith(".html")) {
            return "text/html; charset=utf-8";
        }
        if (name.endsWith(".js")) {
            return "text/javascript; charset=utf-8";
        }
        if (name.endsWith(".css")) {
            return "text/css; charset=utf-8";
        }
        if (name.endsWith(".svg")) {
            return "image/svg+xml";
        }
        throw new IllegalArgumentException("no content type for " + name);
    }

    private static String etag(byte[] bytes) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return "\"" + HexFormat.of().formatHex(digest, 0, 16) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
