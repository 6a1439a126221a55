package pe.quipu.api.openapi;

import com.fasterxml.jackson.databind.JsonNode;
import org.glassfish.jersey.server.model.Resource;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.RequiresScope;
import pe.quipu.api.auth.RequiresSession;
import pe.quipu.api.metering.CostsUnits;
import pe.quipu.api.testing.OpenApiContract;
import pe.quipu.api.testing.QuipuExtension;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document and the application's Jersey resources name the same operations, each with the credential,
 * scope and metering the code applies: a resource method added, removed, moved or given other rules without the
 * document, or the other way round, fails here.
 */
class OpenApiRoutesTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final OpenApiContract CONTRACT = OpenApiContract.get();

    @Test
    void every_resource_method_is_documented_and_every_documented_operation_exists() {
        Set<String> served = served().keySet();
        Set<String> documented = new TreeSet<>();
        CONTRACT.operations().forEach(o -> documented.add(o.method() + " " + o.template()));

        assertThat(served).as("the application's resource methods").hasSizeGreaterThan(30);
        assertThat(difference(served, documented)).as("resource methods the document lacks").isEmpty();
        assertThat(difference(documented, served)).as("documented operations no resource serves").isEmpty();
    }

    @Test
    void each_operation_asks_for_the_credential_and_scope_the_code_requires() {
        List<String> faults = new ArrayList<>();
        served().forEach((operation, method) -> {
            String[] parts = operation.split(" ", 2);
            JsonNode documented = CONTRACT.find(parts[0], parts[1].replaceAll("\\{[^}]+}", "x"))
                    .orElseThrow(() -> new AssertionError(operation + " is not documented")).node();
            String expected = security(method);
            String actual = documentedSecurity(documented);
            if (!expected.equals(actual)) {
                faults.add(operation + ": the code requires " + expected + ", the document says " + actual);
            }
            RequiresScope scope = annotation(method, RequiresScope.class);
            String extension = documented.path("x-quipu-scope").asText(null);
            String wanted = scope == null ? null : scope.value().wireName();
            if (!java.util.Objects.equals(extension, wanted)) {
                faults.add(operation + ": x-quipu-scope is " + extension + ", the code requires " + wanted);
            }
            boolean metered = annotation(method, CostsUnits.class) != null;
            if (metered != documented.has("x-quipu-quota")) {
                faults.add(operation + ": " + (metered ? "metered, but the document gives no x-quipu-quota"
                        : "not metered, but the document gives x-quipu-quota"));
            }
            if (metered && !documented.path("responses").path("429").has("$ref")) {
                faults.add(operation + ": metered, but the document gives no 429");
            }
        });
        assertThat(faults).isEmpty();
    }

    @Test
    void the_document_needs_no_credential_costs_nothing_and_revalidates() {
        var json = quipu.get("/v1/openapi.json", null);
        assertThat(json.statusCode()).isEqualTo(200);
        assertThat(json.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(json.headers().firstValue("RateLimit-Limit")).isEmpty();
        assertThat(quipu.body(json)).isEqualTo(CONTRACT.document());

        var yaml = quipu.get("/v1/openapi.yaml", null);
        assertThat(yaml.statusCode()).isEqualTo(200);
        assertThat(yaml.headers().firstValue("Content-Type")).hasValue("application/yaml");
        assertThat(yaml.body()).startsWith("openapi: 3.1.0");
        assertThat(yaml.headers().firstValue("ETag")).isNotEqualTo(json.headers().firstValue("ETag"));

        String etag = json.headers().firstValue("ETag").orElseThrow();
        var revalidated = quipu.get("/v1/openapi.json", null, "If-None-Match", etag);
        assertThat(revalidated.statusCode()).isEqualTo(304);
        assertThat(revalidated.body()).isEmpty();
        assertThat(revalidated.headers().firstValue("ETag")).hasValue(etag);
        assertThat(quipu.get("/v1/openapi.json", null, "If-None-Match", "W/" + etag).statusCode()).isEqualTo(304);
        assertThat(quipu.get("/v1/openapi.yaml", null, "If-None-Match", etag).statusCode()).isEqualTo(200);
    }

    /** "METHOD /template" of every resource method the application registered, with its Java method. */
    private static Map<String, Method> served() {
        Map<String, Method> operations = new TreeMap<>();
        Set<Object> components = new LinkedHashSet<>(quipu.environment().jersey().getResourceConfig().getInstances());
        Stream.concat(components.stream().map(Object::getClass),
                        quipu.environment().jersey().getResourceConfig().getClasses().stream())
                .filter(Resource::isAcceptable)
                .filter(type -> type.isAnnotationPresent(jakarta.ws.rs.Path.class))
                .distinct()
                .forEach(type -> collect(Resource.from(type), "", operations));
        return operations;
    }

    private static void collect(Resource resource, String parent, Map<String, Method> operations) {
        String path = join(parent, resource.getPath());
        for (ResourceMethod method : resource.getResourceMethods()) {
            operations.put(method.getHttpMethod() + " " + path, method.getInvocable().getDefinitionMethod());
        }
        for (Resource child : resource.getChildResources()) {
            collect(child, path, operations);
        }
    }

    /** Joined with one slash, a template's regular expression dropped: {@code {ruc: …}} is {@code {ruc}}. */
    private static String join(String parent, String path) {
        String joined = (parent + "/" + (path == null ? "" : path)).replaceAll("/+", "/");
        if (joined.length() > 1 && joined.endsWith("/")) {
            joined = joined.substring(0, joined.length() - 1);
        }
        return joined.replaceAll("\\{\\s*(\\w+)\\s*:[^}]*}", "{$1}");
    }

    /** What the code's annotations require, in the document's words. */
    private static String security(Method method) {
        RequiresScope scope = annotation(method, RequiresScope.class);
        RequiresSession session = annotation(method, RequiresSession.class);
        if (scope != null) {
            return "apiKey[" + scope.value().wireName() + "]" + (scope.orSession() ? " | accessToken[]" : "");
        }
        if (session != null) {
            return session.orApiKey() ? "accessToken[] | apiKey[]" : "accessToken[]";
        }
        return "none";
    }

    /** An operation's security requirements as "scheme[scopes] | …", or "none". */
    private static String documentedSecurity(JsonNode operation) {
        JsonNode security = operation.path("security");
        if (security.isMissingNode() || security.isEmpty()) {
            return "none";
        }
        List<String> alternatives = new ArrayList<>();
        for (JsonNode requirement : security) {
            requirement.properties().forEach(e -> {
                List<String> scopes = new ArrayList<>();
                e.getValue().forEach(s -> scopes.add(s.asText()));
                alternatives.add(e.getKey() + "[" + String.join(",", scopes) + "]");
            });
        }
        return String.join(" | ", alternatives);
    }

    private static <A extends java.lang.annotation.Annotation> A annotation(Method method, Class<A> type) {
        A onMethod = method.getAnnotation(type);
        return onMethod != null ? onMethod : method.getDeclaringClass().getAnnotation(type);
    }

    private static Set<String> difference(Set<String> a, Set<String> b) {
        Set<String> left = new TreeSet<>(a);
        left.removeAll(b);
        return left;
    }
}
