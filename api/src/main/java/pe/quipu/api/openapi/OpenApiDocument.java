package pe.quipu.api.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * Quipu's OpenAPI 3.1 document, {@value #RESOURCE}, written by hand and read once: the YAML as written and the same
 * document as JSON, each with a strong ETag of its bytes. The tests hold the document to the code (docs/decisions.md,
 * OpenAPI).
 */
public final class OpenApiDocument {

    /** The class-path resource of the document. */
    public static final String RESOURCE = "quipu/openapi.yaml";

    private final Representation yaml;
    private final Representation json;

    private OpenApiDocument(byte[] yaml, byte[] json) {
        this.yaml = new Representation(yaml, etag("y", yaml));
        this.json = new Representation(json, etag("j", json));
    }

    /** Reads the document from the class path; a missing or unreadable one stops the start. */
    public static OpenApiDocument load() {
        byte[] yaml;
        try (InputStream in = OpenApiDocument.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            yaml = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("could not read " + RESOURCE, e);
        }
        try {
            JsonNode document = new ObjectMapper(new YAMLFactory()).readTree(yaml);
            return new OpenApiDocument(yaml, new ObjectMapper().writeValueAsBytes(document));
        } catch (IOException e) {
            throw new UncheckedIOException(RESOURCE + " is not valid YAML", e);
        }
    }

    public Representation yaml() {
        return yaml;
    }

    public Representation json() {
        return json;
    }

    /** One representation's bytes and its quoted, strong ETag. */
    public record Representation(byte[] bytes, String etag) {
    }

    /** The two representations get distinct tags: each changes exactly when its bytes do. */
    private static String etag(String kind, byte[] bytes) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return "\"" + kind + HexFormat.of().formatHex(digest, 0, 16) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }
}
