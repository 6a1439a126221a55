package pe.quipu.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.Ruc;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Problem Details in the language the request prefers (issue: Spanish): the same request with
 * {@code Accept-Language: es-PE} and with English (or no header) gets the same status and {@code type}, and its
 * {@code title}, {@code detail} and field messages wholly in one language, named by {@code Content-Language}.
 */
class SpanishProblemsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Words of English prose that Spanish prose does not use. */
    private static final Set<String> ENGLISH = Set.of("the", "must", "is", "not", "this", "send", "given", "with",
            "of", "and", "has", "are", "be", "at", "only", "an", "unknown", "required", "found", "request",
            "body", "most", "least", "give", "or", "was", "taxpayer", "registry");
    /** Words of Spanish prose that English prose does not use. */
    private static final Set<String> SPANISH = Set.of("el", "la", "los", "las", "de", "del", "debe", "envíe", "una",
            "que", "con", "para", "es", "hay", "solicitud", "cuerpo", "desconocido", "obligatorio", "ningún");

    private static String key;
    private static String session;

    @BeforeAll
    static void accounts() {
        key = quipu.accounts.newKey(Scope.values());
        session = quipu.accounts.newSession().accessToken();
    }

    /** Each request, sent with the headers given (the language) and nothing else varying. */
    private static Map<String, Function<String[], HttpResponse<String>>> requests() {
        String unknownRuc = Ruc.completing("2099999999").value();
        Map<String, Function<String[], HttpResponse<String>>> requests = new LinkedHashMap<>();
        requests.put("an unknown route", h -> quipu.get("/v1/nothing-here", null, h));
        requests.put("a malformed RUC", h -> quipu.get("/v1/ruc/2010022746", key, h));
        requests.put("a RUC with a wrong check digit", h -> quipu.get("/v1/ruc/20100227462", key, h));
        requests.put("an unknown RUC", h -> quipu.get("/v1/ruc/" + unknownRuc, key, h));
        requests.put("no credentials", h -> quipu.get("/v1/ruc/20100227461", null, h));
        requests.put("a wrong method", h -> quipu.request("DELETE", "/v1/status", null, h));
        requests.put("a body of another type", h -> quipu.post("/v1/ruc/batch", key, "text/plain", "x", h));
        requests.put("a batch with faults", h -> quipu.post("/v1/ruc/batch", key, "application/json",
                "{\"rucs\": 5, \"extra\": true}", h));
        requests.put("a batch that is not JSON", h -> quipu.post("/v1/ruc/batch", key, "application/json", "{", h));
        requests.put("a short search", h -> quipu.get("/v1/ruc?q=ab", key, h));
        requests.put("an unknown query parameter", h -> quipu.get("/v1/ubigeos?sort=nombre", key, h));
        requests.put("a malformed ubigeo", h -> quipu.get("/v1/ubigeos/12", key, h));
        requests.put("an impossible date", h -> quipu.get("/v1/tipo-cambio?fecha=2026-02-30", key, h));
        requests.put("a webhook with faults", h -> quipu.post("/v1/webhooks", key, "application/json",
                "{\"url\": \"ftp://127.0.0.1/x\", \"events\": [\"nada.ocurrio\"]}", h));
        requests.put("a malformed watchlist name", h -> quipu.put("/v1/watchlists/MAL%20NOMBRE", key,
                "application/json", "{\"rucs\": [\"20100227461\"]}", h));
        requests.put("a key body with faults", h -> quipu.post("/v1/keys", session, "application/json",
                "{\"name\": 5, \"scopes\": [\"todo\"]}", h));
        requests.put("a malformed Idempotency-Key", h -> quipu.post("/v1/keys", session, "application/json",
                "{\"name\": \"x\", \"scopes\": [\"ruc:read\"]}", concat(h, "Idempotency-Key", "\"\"")));
        requests.put("a wrong password", h -> quipu.post("/v1/auth/login", null, "application/json",
                "{\"email\": \"nadie@example.pe\", \"password\": \"incorrecta-123456\"}", h));
        return requests;
    }

    @Test
    void every_problem_is_wholly_in_the_language_the_request_prefers() throws Exception {
        List<String> seen = new ArrayList<>();
        for (var request : requests().entrySet()) {
            String what = request.getKey();
            HttpResponse<String> spanish = request.getValue().apply(new String[]{"Accept-Language", "es-PE,es;q=0.9"});
            HttpResponse<String> english = request.getValue().apply(new String[]{"Accept-Language", "en-US"});
            HttpResponse<String> none = request.getValue().apply(new String[0]);
            assertThat(spanish.statusCode()).as("%s: status", what).isGreaterThanOrEqualTo(400)
                    .isEqualTo(english.statusCode()).isEqualTo(none.statusCode());
            assertThat(spanish.headers().firstValue("Content-Language")).as(what).hasValue("es");
            assertThat(english.headers().firstValue("Content-Language")).as(what).hasValue("en");
            JsonNode es = JSON.readTree(spanish.body());
            JsonNode en = JSON.readTree(english.body());
            JsonNode plain = JSON.readTree(none.body());
            assertThat(es.path("type").asText()).as("%s: type", what).isEqualTo(en.path("type").asText());
            assertThat(words(plain)).as("%s: no header is English", what).isEqualTo(words(en));
            List<String> esWords = words(es);
            List<String> enWords = words(en);
            assertThat(esWords).as("%s: as many texts in both", what).hasSameSizeAs(enWords);
            for (int i = 0; i < esWords.size(); i++) {
                assertThat(esWords.get(i)).as("%s: Spanish differs from English", what).isNotEqualTo(enWords.get(i));
                assertThat(tokens(esWords.get(i))).as("%s: English words in %s", what, esWords.get(i))
                        .doesNotContainAnyElementsOf(ENGLISH);
                assertThat(tokens(enWords.get(i))).as("%s: Spanish words in %s", what, enWords.get(i))
                        .doesNotContainAnyElementsOf(SPANISH);
            }
            seen.add(what + ": " + es.path("detail").asText());
        }
        assertThat(seen).hasSize(requests().size());
    }

    @Test
    void a_batch_says_why_a_ruc_is_missing_in_the_language_asked() throws Exception {
        String unknownRuc = Ruc.completing("2099999999").value();
        String body = "{\"rucs\": [\"" + unknownRuc + "\"]}";
        JsonNode es = JSON.readTree(quipu.post("/v1/ruc/batch", key, "application/json", body,
                "Accept-Language", "es").body());
        JsonNode en = JSON.readTree(quipu.post("/v1/ruc/batch", key, "application/json", body).body());
        String spanish = es.path("results").get(0).path("error").path("detail").asText();
        assertThat(spanish).isEqualTo("No hay ningún contribuyente con RUC " + unknownRuc + " en el padrón");
        assertThat(en.path("results").get(0).path("error").path("detail").asText())
                .isEqualTo("No taxpayer with RUC " + unknownRuc + " in the registry");
        assertThat(es.path("results").get(0).path("error").path("type").asText()).isEqualTo("not_found");
    }

    @Test
    void a_preference_for_english_over_spanish_is_kept() throws Exception {
        JsonNode body = JSON.readTree(quipu.get("/v1/ruc/2010022746", key,
                "Accept-Language", "en-GB, es;q=0.8").body());
        assertThat(body.path("title").asText()).isEqualTo("The request is not valid");
    }

    /** The texts of a Problem a person reads: title, detail, each field's message. */
    private static List<String> words(JsonNode problem) {
        List<String> texts = new ArrayList<>(List.of(problem.path("title").asText(), problem.path("detail").asText()));
        problem.path("errors").forEach(e -> texts.add(e.path("message").asText()));
        return texts;
    }

    private static List<String> tokens(String text) {
        return Arrays.stream(text.toLowerCase(Locale.ROOT).split("[^\\p{L}]+")).filter(t -> !t.isEmpty()).toList();
    }

    private static String[] concat(String[] headers, String... more) {
        String[] all = Arrays.copyOf(headers, headers.length + more.length);
        System.arraycopy(more, 0, all, headers.length, more.length);
        return all;
    }
}
