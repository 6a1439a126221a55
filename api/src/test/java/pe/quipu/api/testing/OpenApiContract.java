package pe.quipu.api.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import pe.quipu.api.openapi.OpenApiDocument;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Quipu's OpenAPI document ({@link OpenApiDocument#RESOURCE}) as the tests hold the API to it: every answer a test
 * receives through {@link QuipuClient} is {@link #check checked} against the operation it answers (its status
 * documented, its media type, its required headers and their values, its JSON body against the schema, $refs
 * resolved, JSON Schema 2020-12 with OpenAPI 3.1's dialect and formats asserted). An answer that breaks the document
 * fails the test that received it.
 *
 * <p>Answers of paths or methods the document does not have (an unknown route, a method the API does not serve) must
 * be errors, and their Problem Details valid. With {@code -Dquipu.openapi.answers=DIR}, the first answers of each
 * operation and status are written to {@code DIR} (where the document's examples come from).
 */
public final class OpenApiContract {

    private static final OpenApiContract INSTANCE = new OpenApiContract();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "options", "head", "patch",
            "trace");
    /** The document's answers that any request may get before routing, whatever its operation. */
    private static final String ANY_OPERATION = "x-quipu-any-operation-responses";
    private static final Set<String> METERING_HEADERS = Set.of("ratelimit-limit", "ratelimit-remaining",
            "ratelimit-reset", "x-quota-limit", "x-quota-remaining", "ratelimit-policy", "ratelimit");

    private final JsonNode document;
    private final List<Route> routes = new ArrayList<>();
    private final SchemaRegistry schemas;
    private final Map<String, Schema> compiled = new ConcurrentHashMap<>();
    private final Path answers = Optional.ofNullable(System.getProperty("quipu.openapi.answers")).map(Path::of)
            .orElse(null);

    /** A path of the document: its template, as a pattern, and its operations by lower-case method. */
    public record Route(String template, Pattern pattern, int parameters, JsonNode item) {
    }

    /** A documented operation: its method (upper case), its path template and its node. */
    public record Operation(String method, String template, JsonNode node) {
        public String id() {
            return node.path("operationId").asText(method + " " + template);
        }

        String pointer() {
            return "/paths/" + escape(template) + "/" + method.toLowerCase(Locale.ROOT);
        }
    }

    private OpenApiContract() {
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(OpenApiDocument.RESOURCE)) {
            document = new ObjectMapper(new YAMLFactory()).readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = document.path("paths").properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> path = it.next();
            String template = path.getKey();
            StringBuilder regex = new StringBuilder();
            int parameters = 0;
            for (String part : template.split("(?=\\{)|(?<=\\})")) {
                if (part.startsWith("{")) {
                    regex.append("[^/]+");
                    parameters++;
                } else {
                    regex.append(Pattern.quote(part));
                }
            }
            routes.add(new Route(template, Pattern.compile(regex.toString()), parameters, path.getValue()));
        }
        // The most literal template first, as OpenAPI matches (/v1/ruc/batch before /v1/ruc/{ruc}).
        routes.sort(Comparator.comparingInt(Route::parameters));
        schemas = SchemaRegistry.withDialect(Dialects.getOpenApi31(), builder -> builder
                .schemaIdResolvers(resolvers -> resolvers.mapPrefix("https://spec.openapis.org/oas/3.1",
                        "classpath:oas/3.1")));
    }

    public static OpenApiContract get() {
        return INSTANCE;
    }

    /** The document, as read from the class path. */
    public JsonNode document() {
        return document;
    }

    /** Every documented operation. */
    public List<Operation> operations() {
        List<Operation> operations = new ArrayList<>();
        for (Route route : routes) {
            for (Iterator<String> it = route.item().fieldNames(); it.hasNext(); ) {
                String method = it.next();
                if (METHODS.contains(method)) {
                    operations.add(new Operation(method.toUpperCase(Locale.ROOT), route.template(),
                            route.item().get(method)));
                }
            }
        }
        return operations;
    }

    /** The operation a request reaches, by its raw path (query string dropped) and method; HEAD is GET's. */
    public Optional<Operation> find(String method, String pathAndQuery) {
        String path = pathAndQuery;
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        String lower = (method.equals("HEAD") ? "get" : method.toLowerCase(Locale.ROOT));
        for (Route route : routes) {
            if (route.pattern().matcher(path).matches()) {
                JsonNode operation = route.item().get(lower);
                return operation == null || !METHODS.contains(lower) ? Optional.empty()
                        : Optional.of(new Operation(lower.toUpperCase(Locale.ROOT), route.template(), operation));
            }
        }
        return Optional.empty();
    }

    /** One answer as a test received it. {@code header} gives a header's first value by name (any case). */
    public record Answer(String method, String pathAndQuery, int status, Function<String, Optional<String>> header,
                         String body, boolean metered) {
    }

    /** Fails with every way the answer breaks the document. */
    public void check(Answer answer) {
        List<String> faults = faults(answer);
        if (!faults.isEmpty()) {
            throw new AssertionError("The answer to " + answer.method() + " " + answer.pathAndQuery() + " ("
                    + answer.status() + ") breaks the OpenAPI document " + OpenApiDocument.RESOURCE + ":\n  - "
                    + String.join("\n  - ", faults) + "\n  body: " + abbreviate(answer.body()));
        }
    }

    /** Every way the answer breaks the document; empty when it keeps to it. */
    public List<String> faults(Answer answer) {
        List<String> faults = new ArrayList<>();
        String path = answer.pathAndQuery().split("\\?", 2)[0];
        if (path.equals("/docs") || path.startsWith("/docs/")) {
            return faults; // the interactive docs' page and files: no API operation, checked by DocsTest
        }
        if (path.equals("/app") || path.startsWith("/app/")) {
            return faults; // the dashboard's page and files: no API operation, checked by DashboardPageTest
        }
        String contentType = answer.header().apply("Content-Type").map(OpenApiContract::mediaType).orElse(null);
        Optional<Operation> found = find(answer.method(), answer.pathAndQuery());
        if (found.isEmpty()) {
            // Not an operation of the document: only an error may answer it, as Problem Details.
            boolean automatic = answer.method().equals("OPTIONS") || answer.method().equals("HEAD");
            if (answer.status() < 400 && !automatic) {
                faults.add("no documented operation answers " + answer.method() + " on this path, yet it got "
                        + answer.status());
            }
            if ("application/problem+json".equals(contentType) && !answer.method().equals("HEAD")) {
                validate("/components/schemas/Problem", answer.body(), faults);
            }
            return faults;
        }
        Operation operation = found.get();
        JsonNode responses = operation.node().path("responses");
        String status = Integer.toString(answer.status());
        JsonNode response = responses.get(status);
        String responsePointer = operation.pointer() + "/responses/" + status;
        if (response == null && document.path(ANY_OPERATION).has(status)) {
            // Answered by the server before any operation was chosen (headers too large): the same for every one.
            response = document.path(ANY_OPERATION).get(status);
            responsePointer = "/" + ANY_OPERATION + "/" + status;
        }
        if (response == null) {
            faults.add("status " + status + " is not documented for " + operation.id() + " (documented: "
                    + String.join(", ", (Iterable<String>) responses::fieldNames) + ")");
            if ("application/problem+json".equals(contentType) && !answer.method().equals("HEAD")) {
                validate("/components/schemas/Problem", answer.body(), faults);
            }
            return faults;
        }
        if (response.has("$ref")) {
            responsePointer = response.get("$ref").asText().substring(1);
            response = resolve(response.get("$ref").asText());
        }
        record(operation, status, answer);
        headers(response, answer, faults);
        JsonNode content = response.path("content");
        boolean bodiless = answer.method().equals("HEAD") || answer.status() == 204 || answer.status() == 304;
        if (content.isMissingNode() || content.isEmpty()) {
            if (answer.body() != null && !answer.body().isEmpty()) {
                faults.add("the document gives status " + status + " no body, yet it has one");
            }
            return faults;
        }
        if (bodiless) {
            return faults;
        }
        if (!answer.header().apply("Content-Encoding").orElse("identity").equalsIgnoreCase("identity")) {
            return faults; // a compressed body, read as text by the test's client: its status and headers are checked
        }
        if (contentType == null || !content.has(contentType)) {
            faults.add("Content-Type " + contentType + " is not documented for status " + status + " (documented: "
                    + String.join(", ", (Iterable<String>) content::fieldNames) + ")");
            return faults;
        }
        if (contentType.endsWith("json")) {
            validate(responsePointer + "/content/" + escape(contentType) + "/schema", answer.body(), faults);
        }
        return faults;
    }

    /** The documented headers of a response: each required one present, each present one as its schema says. */
    private void headers(JsonNode response, Answer answer, List<String> faults) {
        for (Iterator<Map.Entry<String, JsonNode>> it = response.path("headers").properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String name = entry.getKey();
            JsonNode header = entry.getValue().has("$ref") ? resolve(entry.getValue().get("$ref").asText())
                    : entry.getValue();
            Optional<String> value = answer.header().apply(name);
            if (value.isEmpty()) {
                boolean metering = METERING_HEADERS.contains(name.toLowerCase(Locale.ROOT));
                if (header.path("required").asBoolean() && (!metering || answer.metered())) {
                    faults.add("the required header " + name + " is missing");
                }
                continue;
            }
            JsonNode schema = header.path("schema");
            String text = value.get();
            if (schema.has("const") && !schema.get("const").asText().equals(text)) {
                faults.add("header " + name + " is '" + text + "', the document says '" + schema.get("const").asText()
                        + "'");
            }
            if ("integer".equals(schema.path("type").asText())) {
                try {
                    long number = Long.parseLong(text);
                    if (schema.has("minimum") && number < schema.get("minimum").asLong()) {
                        faults.add("header " + name + " is " + number + ", under its minimum");
                    }
                } catch (NumberFormatException e) {
                    faults.add("header " + name + " is '" + text + "', not an integer");
                }
            }
            if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(text).find()) {
                faults.add("header " + name + " is '" + text + "', not matching " + schema.get("pattern").asText());
            }
        }
    }

    /** Validates a JSON body against the schema at a JSON pointer of the document. */
    private void validate(String pointer, String body, List<String> faults) {
        if (body == null || body.isEmpty()) {
            faults.add("the body is empty; the document gives it the schema at " + pointer);
            return;
        }
        JsonNode instance;
        try {
            instance = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            faults.add("the body is not JSON: " + e.getOriginalMessage());
            return;
        }
        for (Error error : schema(pointer).validate(instance,
                context -> context.executionConfig(config -> config.formatAssertionsEnabled(true)))) {
            faults.add(error.toString() + " (schema " + pointer + ")");
        }
    }

    /** The compiled schema at a JSON pointer of the document. */
    public Schema schema(String pointer) {
        return compiled.computeIfAbsent(pointer, p -> {
            Schema schema = schemas.getSchema(SchemaLocation.of("classpath:" + OpenApiDocument.RESOURCE + "#" + p));
            schema.initializeValidators();
            return schema;
        });
    }

    /** The node a local {@code $ref} ({@code #/…}) points at. */
    public JsonNode resolve(String ref) {
        if (!ref.startsWith("#/")) {
            throw new IllegalArgumentException("only local references are used: " + ref);
        }
        JsonNode node = document.at(ref.substring(1));
        if (node.isMissingNode()) {
            throw new AssertionError("the document's reference " + ref + " points at nothing");
        }
        return node;
    }

    /** A JSON pointer segment: {@code ~} and {@code /} escaped. */
    public static String escape(String segment) {
        return segment.replace("~", "~0").replace("/", "~1");
    }

    private static String mediaType(String contentType) {
        int semicolon = contentType.indexOf(';');
        return (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
    }

    /** With -Dquipu.openapi.answers: the first 30 answers of each operation and status, request line and body. */
    private void record(Operation operation, String status, Answer answer) {
        if (answers == null) {
            return;
        }
        try {
            Files.createDirectories(answers);
            for (int n = 1; n <= 30; n++) {
                Path file = answers.resolve(operation.id() + "-" + status + "-" + n + ".txt");
                if (!Files.exists(file)) {
                    Files.writeString(file, answer.method() + " " + answer.pathAndQuery() + "\n\n"
                            + (answer.body() == null ? "" : answer.body()), StandardCharsets.UTF_8);
                    return;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String abbreviate(String body) {
        if (body == null) {
            return "(none)";
        }
        return body.length() <= 600 ? body : body.substring(0, 600) + "…";
    }
}
