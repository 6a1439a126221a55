package pe.quipu.api.docs;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.http.StaticFilesServlet;
import pe.quipu.api.http.StaticFilesServlet.StaticFile;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * {@code /docs}: the interactive API docs, Swagger UI over {@code /v1/openapi.json}, served from Quipu's own origin
 * under a strict Content-Security-Policy: no script but these files, no inline script, nothing from another origin,
 * never framed (docs/decisions.md, Interactive docs). The page and its initializer are Quipu's (beside this class);
 * Swagger UI's script, stylesheets and icons come from the {@code org.webjars:swagger-ui} jar on the class path.
 */
public final class Docs {

    /**
     * {@code img-src data:} for the icons swagger-ui.css holds as data URIs; {@code connect-src 'self'} for the
     * document and "Try it out"; styles only from the stylesheets (Swagger UI's own style changes go through the DOM,
     * which style-src does not govern).
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
            + "form-action 'self'; frame-ancestors 'none'";
    private static final String WEBJAR_PROPERTIES = "/META-INF/maven/org.webjars/swagger-ui/pom.properties";

    private Docs() {
    }

    /** Serves {@code /docs}, with every file read from the class path now. */
    public static void serve(Environment environment) {
        environment.servlets().addServlet("docs", servlet()).addMapping("/docs/*");
    }

    /** The servlet of {@code /docs/*}, with every file read from the class path. */
    static StaticFilesServlet servlet() {
        String webjar = "/META-INF/resources/webjars/swagger-ui/" + swaggerUiVersion() + "/";
        Map<String, StaticFile> files = new LinkedHashMap<>();
        StaticFile page = StaticFile.read(Docs.class, "index.html");
        files.put("/", page);
        files.put("/index.html", page);
        files.put("/swagger-initializer.js", StaticFile.read(Docs.class, "swagger-initializer.js"));
        for (String name : new String[] {"swagger-ui-bundle.js", "swagger-ui.css", "index.css", "favicon-32x32.png",
                "favicon-16x16.png"}) {
            files.put("/" + name, StaticFile.read(Docs.class, webjar + name));
        }
        return new StaticFilesServlet(files, CONTENT_SECURITY_POLICY, Map.of());
    }

    /** The Swagger UI release on the class path. */
    static String swaggerUiVersion() {
        Properties properties = new Properties();
        try (InputStream in = Docs.class.getResourceAsStream(WEBJAR_PROPERTIES)) {
            if (in == null) {
                throw new IllegalStateException("The Swagger UI webjar (org.webjars:swagger-ui) is not on the class path");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String version = properties.getProperty("version");
        if (version == null || version.isBlank()) {
            throw new IllegalStateException(WEBJAR_PROPERTIES + " names no version");
        }
        return version;
    }
}
