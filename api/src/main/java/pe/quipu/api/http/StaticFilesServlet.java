package pe.quipu.api.http;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A fixed set of files served from memory under one path ({@code /docs}, {@code /app}): read once at start (a missing
 * one stops the start rather than break a page later), each with its content type and a strong ETag, revalidated on
 * every use ({@code Cache-Control: no-cache}, 304 while unchanged). Every answer, errors included, carries the area's
 * Content-Security-Policy and the same hardening headers: never framed, no referrer, no sniffing, same-origin only.
 * GET and HEAD only; anything else (TRACE, which would echo the request's headers, included) is 405.
 */
public final class StaticFilesServlet extends HttpServlet {

    /** One file as served. */
    public record StaticFile(byte[] bytes, String contentType, String etag) {

        /** {@code name} from the class path, relative to {@code anchor}'s package unless it starts with {@code /}. */
        public static StaticFile read(Class<?> anchor, String name, String contentType) {
            try (InputStream in = anchor.getResourceAsStream(name)) {
                if (in == null) {
                    throw new IllegalStateException(name + " is not on the class path");
                }
                byte[] bytes = in.readAllBytes();
                return new StaticFile(bytes, contentType, ETags.strong(bytes));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        /** As {@link #read(Class, String, String)}, with the content type its name's ending says. */
        public static StaticFile read(Class<?> anchor, String name) {
            return read(anchor, name, StaticFilesServlet.contentType(name));
        }
    }

    private final transient Map<String, StaticFile> files;
    private final transient Map<String, String> headers;

    /**
     * @param files                 by path under the servlet's mapping; {@code "/"} is what the bare path serves
     * @param contentSecurityPolicy the area's policy
     * @param moreHeaders           headers of this area beyond the common ones
     */
    public StaticFilesServlet(Map<String, StaticFile> files, String contentSecurityPolicy,
                              Map<String, String> moreHeaders) {
        this.files = Map.copyOf(files);
        Map<String, String> all = new LinkedHashMap<>();
        all.put("Content-Security-Policy", contentSecurityPolicy);
        all.put("X-Frame-Options", "DENY");
        all.put("Referrer-Policy", "no-referrer");
        all.put("X-Content-Type-Options", "nosniff");
        all.put("Cross-Origin-Opener-Policy", "same-origin");
        all.put("Cross-Origin-Resource-Policy", "same-origin");
        all.putAll(moreHeaders);
        this.headers = Map.copyOf(all);
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
            throws ServletException, IOException {
        headers.forEach(response::setHeader);
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
        StaticFile file = files.get(path == null ? "/" : path);
        if (file == null) {
            response.sendError(HttpServletResponse.SC_NOT_FOUND);
            return;
        }
        // Revalidated on every use, so a new release's files are taken at once; 304 while unchanged.
        response.setHeader("Cache-Control", "no-cache");
        response.setHeader("ETag", file.etag());
        if (ETags.matches(request.getHeader("If-None-Match"), file.etag())) {
            response.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            return;
        }
        response.setContentType(file.contentType());
        response.setContentLength(file.bytes().length);
        response.getOutputStream().write(file.bytes());
    }

    /** The content type of a file of the pages, by its name's ending. */
    static String contentType(String name) {
        int dot = name.lastIndexOf('.');
        String type = switch (dot < 0 ? "" : name.substring(dot + 1)) {
            case "html" -> "text/html; charset=utf-8";
            case "js" -> "text/javascript; charset=utf-8";
            case "css" -> "text/css; charset=utf-8";
            case "svg" -> "image/svg+xml";
            case "png" -> "image/png";
            default -> null;
        };
        if (type == null) {
            throw new IllegalArgumentException("no content type for " + name);
        }
        return type;
    }
}
