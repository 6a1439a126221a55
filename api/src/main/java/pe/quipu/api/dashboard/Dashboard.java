package pe.quipu.api.dashboard;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.http.StaticFilesServlet;
import pe.quipu.api.http.StaticFilesServlet.StaticFile;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /app}: the developer dashboard, plain HTML, CSS and JavaScript modules beside this class, served from Quipu's
 * own origin. It calls the public API only ({@code /v1/...}), with the session's access token held in the page's
 * memory. Its Content-Security-Policy allows scripts and styles only from these files, no inline script or style,
 * nothing from another origin, never framed (docs/decisions.md, Dashboard).
 */
public final class Dashboard {

    /**
     * Nothing by default; scripts, styles, images and fonts from this origin; the SVG chart is built through the DOM;
     * {@code connect-src 'self'} for the API. {@code form-action 'self'}: the forms post nowhere (scripts send them).
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; font-src 'self'; manifest-src 'self'; object-src 'none'; "
            + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

    /** The files under /app, beside this class. */
    static final List<String> FILES = List.of("index.html", "app.css", "favicon.svg", "js/main.js", "js/api.js",
            "js/dom.js", "js/format.js", "js/chart.js", "js/pages/auth.js", "js/pages/overview.js",
            "js/pages/keys.js", "js/pages/webhooks.js", "js/pages/account.js", "js/pages/plans.js",
            "js/pages/watchlists.js");

    private Dashboard() {
    }

    /** Serves {@code /app}, with every file of the dashboard read from the class path now. */
    public static void serve(Environment environment) {
        environment.servlets().addServlet("dashboard", servlet()).addMapping("/app/*");
    }

    /** The servlet of {@code /app/*}, with every file of the dashboard read from the class path. */
    static StaticFilesServlet servlet() {
        Map<String, StaticFile> files = new LinkedHashMap<>();
        for (String name : FILES) {
            files.put("/" + name, StaticFile.read(Dashboard.class, name));
        }
        files.put("/", files.get("/index.html"));
        return new StaticFilesServlet(files, CONTENT_SECURITY_POLICY,
                Map.of("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()"));
    }
}
