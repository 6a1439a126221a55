package pe.quipu.api.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import org.junit.jupiter.api.Test;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.http.ProblemType;
import pe.quipu.api.testing.OpenApiContract;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document itself: valid OpenAPI 3.1 for the parser SDK generators use and for the OpenAPI Initiative's
 * own JSON Schema of 3.1 documents (vendored under test resources, oas/3.1), every example valid against the schema
 * beside it, an example for every operation that takes or answers a body, and the code's Problem types and scopes.
 */
class OpenApiDocumentTest {

    private static final OpenApiContract CONTRACT = OpenApiContract.get();

    @Test
    void swagger_parser_reads_it_as_openapi_3_1_without_a_message() throws IOException {
        ParseOptions options = new ParseOptions();
        options.setResolve(true);
        SwaggerParseResult result = new OpenAPIV3Parser().readContents(yaml(), null, options);
        assertThat(result.getMessages()).isEmpty();
        assertThat(result.getOpenAPI().getOpenapi()).isEqualTo("3.1.0");
        assertThat(result.getOpenAPI().getPaths()).hasSizeGreaterThan(20);
    }

    @Test
    void it_validates_against_the_official_openapi_3_1_schema() {
        Schema schema = officialSchema();
        List<Error> errors = schema.validate(CONTRACT.document());
        assertThat(errors).isEmpty();

        // The check can fail: the same document without its info object, and with a response lacking its description.
        ObjectNode broken = CONTRACT.document().deepCopy();
        broken.remove("info");
        ((ObjectNode) broken.at("/paths/~1v1~1status/get/responses/200")).remove("description");
        assertThat(schema.validate(broken)).hasSizeGreaterThanOrEqualTo(2);
    }

    @Test
    void every_example_is_valid_against_its_schema() {
        List<String> faults = new ArrayList<>();
        int checked = 0;
        for (Map.Entry<String, JsonNode> media : mediaTypes()) {
            for (Map.Entry<String, JsonNode> example : media.getValue().path("examples").properties()) {
                JsonNode value = example(example.getValue());
                if (value == null) {
                    faults.add(media.getKey() + " example " + example.getKey() + " has no value");
                    continue;
                }
                checked++;
                for (Error error : CONTRACT.schema(media.getKey() + "/schema").validate(value,
                        c -> c.executionConfig(e -> e.formatAssertionsEnabled(true)))) {
                    faults.add(media.getKey() + " example " + example.getKey() + ": " + error);
                }
            }
        }
        assertThat(faults).isEmpty();
        assertThat(checked).isGreaterThan(30);
    }

    @Test
    void the_problem_types_and_scopes_are_the_code_s() {
        assertThat(texts(CONTRACT.document().at("/components/schemas/Problem/properties/type/enum")))
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(ProblemType.values()).map(ProblemType::wireName)
                        .toList());
        assertThat(texts(CONTRACT.document().at("/components/schemas/Scope/enum")))
                .containsExactlyInAnyOrderElementsOf(Arrays.stream(Scope.values()).map(Scope::wireName).toList());
    }

    private static List<String> texts(JsonNode array) {
        List<String> texts = new ArrayList<>();
        array.forEach(n -> texts.add(n.asText()));
        return texts;
    }

    /**
     * An operation that takes a body or answers one has an example of it (the document's own operations aside: their
     * answer is this document).
     */
    @Test
    void every_operation_with_a_body_has_an_example() {
        List<String> without = new ArrayList<>();
        for (OpenApiContract.Operation operation : CONTRACT.operations()) {
            boolean bodies = operation.node().has("requestBody");
            boolean examples = !operation.node().path("requestBody").path("content").findValues("examples").isEmpty();
            for (Map.Entry<String, JsonNode> response : operation.node().path("responses").properties()) {
                if (response.getKey().startsWith("2") && response.getValue().has("content")) {
                    bodies = true;
                    examples |= !response.getValue().path("content").findValues("examples").isEmpty();
                }
            }
            if (bodies && !examples && !operation.template().startsWith("/v1/openapi.")) {
                without.add(operation.id());
            }
        }
        assertThat(without).isEmpty();
    }

    /** Every media type object of the document's operations and shared responses, by its JSON pointer. */
    private static List<Map.Entry<String, JsonNode>> mediaTypes() {
        List<Map.Entry<String, JsonNode>> found = new ArrayList<>();
        for (OpenApiContract.Operation operation : CONTRACT.operations()) {
            String pointer = "/paths/" + OpenApiContract.escape(operation.template()) + "/"
                    + operation.method().toLowerCase(java.util.Locale.ROOT);
            content(pointer + "/requestBody/content", operation.node().path("requestBody").path("content"), found);
            for (Map.Entry<String, JsonNode> response : operation.node().path("responses").properties()) {
                content(pointer + "/responses/" + response.getKey() + "/content",
                        response.getValue().path("content"), found);
            }
        }
        for (Map.Entry<String, JsonNode> response : CONTRACT.document().at("/components/responses").properties()) {
            content("/components/responses/" + response.getKey() + "/content", response.getValue().path("content"),
                    found);
        }
        return found;
    }

    private static void content(String pointer, JsonNode content, List<Map.Entry<String, JsonNode>> found) {
        for (Map.Entry<String, JsonNode> media : content.properties()) {
            found.add(Map.entry(pointer + "/" + OpenApiContract.escape(media.getKey()), media.getValue()));
        }
    }

    private static JsonNode example(JsonNode example) {
        JsonNode resolved = example.has("$ref") ? CONTRACT.resolve(example.get("$ref").asText()) : example;
        return Optional.ofNullable(resolved.get("value")).orElse(null);
    }

    static Schema officialSchema() {
        return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12, builder -> builder
                        .schemaIdResolvers(resolvers -> resolvers.mapPrefix("https://spec.openapis.org/oas/3.1",
                                "classpath:oas/3.1")))
                .getSchema(SchemaLocation.of("https://spec.openapis.org/oas/3.1/schema-base/2022-10-07"));
    }

    private static String yaml() throws IOException {
        try (InputStream in = OpenApiDocumentTest.class.getClassLoader()
                .getResourceAsStream(OpenApiDocument.RESOURCE)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
