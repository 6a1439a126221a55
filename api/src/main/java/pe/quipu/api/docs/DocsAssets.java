package pe.quipu.api.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;

/**
 * The files of {@code /docs}, read once at start: Quipu's page and Swagger UI initializer (beside this class), and
 * Swagger UI's script, stylesheets and icons from the {@code org.webjars:swagger-ui} jar on the class path. A missing
 * file stops the start, rather than a broken page later.
 */
public final class DocsAssets {

    private static final String WEBJAR_PROPERTIES = "/META-INF/maven/org.webjars/swagger-ui/pom.properties";
    private static final String HTML = "text/html; charset=utf-8";
    private static final String JAVASCRIPT = "text/javascript; charset=utf-8";
    private static final String CSS = "text/css; charset=utf-8";
    private static final String PNG = "image/png";

    /** One file as served. */
    public record Asset(byte[] bytes, String contentType, String etag) {
    }

    private final String swaggerUiVersion;
    /** By path under /docs: "/" is the page. */
    private final Map<String, Asset> assets;

    private DocsAssets(String swaggerUiVersion, Map<String, Asset> assets) {
        this.swaggerUiVersion = swaggerUiVersion;
        this.assets = Map.copyOf(assets);
    }

    /** Reads every file from the class path. */
    public static DocsAssets load() {
        String version = webjarVersion();
        String webjar = "/META-INF/resources/webjars/swagger-ui/" + version + "/";
        Map<String, Asset> assets = new LinkedHashMap<>();
        Asset page = asset("index.html", HTML);
        assets.put("/", page);
        assets.put("/index.html", page);
        assets.put("/swagger-initializer.js", asset("swagger-initializer.js", JAVASCRIPT));
        assets.put("/swagger-ui-bundle.js", asset(webjar + "swagger-ui-bundle.js", JAVASCRIPT));
        assets.put("/swagger-ui.css", asset(webjar + "swagger-ui.css", CSS));
        assets.put("/index.css", asset(webjar + "index.css", CSS));
        assets.put("/favicon-32x32.png", asset(webjar + "favicon-32x32.png", PNG));
        assets.put("/favicon-16x16.png", asset(webjar + "favicon-16x16.png", PNG));
        return new DocsAssets(version, assets);
    }

    /** The Swagger UI release served. */
    public String swaggerUiVersion() {
        return swaggerUiVersion;
    }

    /** The file at this path under /docs ({@code null}, {@code /docs} itself, is the page). */
    public Optional<Asset> find(String pathInfo) {
        return Optional.ofNullable(assets.get(pathInfo == null ? "/" : pathInfo));
    }

    private static String webjarVersion() {
        Properties properties = new Properties();
        try (InputStream in = DocsAssets.class.getResourceAsStream(WEBJAR_PROPERTIES)) {
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

    /** A file beside this class (a relative name) or anywhere on the class path (an absolute one). */
    private static Asset asset(String name, String contentType) {
        try (InputStream in = DocsAssets.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("/docs needs " + name + ", which is not on the class path");
            }
            byte[] bytes = in.readAllBytes();
            return new Asset(bytes, contentType, etag(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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
