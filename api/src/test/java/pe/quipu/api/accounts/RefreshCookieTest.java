package pe.quipu.api.accounts;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static pe.quipu.api.testing.ProblemAssert.assertProblem;

/**
 * The refresh token in an HttpOnly cookie, for a browser page that keeps its access token in memory: set by login and
 * refresh, taken by refresh when the body brings none (with the CSRF header only), cleared by logout. Refreshes
 * with a body answer as they always did.
 */
class RefreshCookieTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final String ATTRIBUTES = "; Path=/v1/auth; Secure; HttpOnly; SameSite=Strict";
    /** auth.refreshTokenLifetime, 30 days, in seconds. */
    private static final long THIRTY_DAYS = 30L * 24 * 3600;

    private static String setCookie(HttpResponse<String> response) {
        assertThat(response.headers().allValues("Set-Cookie")).hasSize(1);
        return response.headers().firstValue("Set-Cookie").orElseThrow();
    }

    private static String cookieFor(String refreshToken) {
        return "quipu_refresh=" + refreshToken + "; Max-Age=" + THIRTY_DAYS + ATTRIBUTES;
    }

    /** A refresh with no body, as a page's fetch sends it, with these headers. */
    private static HttpResponse<String> bodiless(String... headers) {
        return quipu.request("POST", "/v1/auth/refresh", null, headers);
    }

    private static String cookie(String refreshToken) {
        return "quipu_refresh=" + refreshToken;
    }

    @Test
    void login_sets_the_refresh_token_in_a_strict_http_only_cookie_for_the_auth_routes_and_answers_as_before() {
        TestAccounts.Session account = quipu.accounts.newSession();

        HttpResponse<String> login = quipu.accounts.login(account.email(), account.password());

        assertThat(login.statusCode()).isEqualTo(200);
        JsonNode pair = quipu.body(login);
        assertThat(pair.properties()).extracting(java.util.Map.Entry::getKey)
                .containsExactly("accessToken", "refreshToken", "tokenType", "expiresIn");
        assertThat(setCookie(login)).isEqualTo(cookieFor(pair.get("refreshToken").asText()));
    }

    @Test
    void a_refresh_by_cookie_with_the_csrf_header_spends_the_cookies_token_and_sets_the_next_one() {
        TestAccounts.Session session = quipu.accounts.newSession();

        HttpResponse<String> refreshed = bodiless("Cookie", cookie(session.refreshToken()), "X-Quipu-CSRF", "1");

        assertThat(refreshed.statusCode()).as(refreshed.body()).isEqualTo(200);
        assertThat(refreshed.headers().firstValue("Cache-Control")).hasValue("no-store");
        JsonNode pair = quipu.body(refreshed);
        String next = pair.get("refreshToken").asText();
        assertThat(next).startsWith("qr_").isNotEqualTo(session.refreshToken());
        assertThat(setCookie(refreshed)).isEqualTo(cookieFor(next));
        assertThat(quipu.get("/v1/me", pair.get("accessToken").asText()).statusCode()).isEqualTo(200);
        // The cookie's token was spent: presented again, it is a replay (the session is revoked, as for a body's).
        assertProblem(bodiless("Cookie", cookie(session.refreshToken()), "X-Quipu-CSRF", "1"), 401, "unauthorized");
        assertProblem(quipu.accounts.refresh(next), 401, "unauthorized");
    }

    @Test
    void an_empty_json_object_leaves_the_token_to_the_cookie_too() {
        TestAccounts.Session session = quipu.accounts.newSession();

        HttpResponse<String> refreshed = quipu.post("/v1/auth/refresh", null, "application/json", "{}",
                "Cookie", cookie(session.refreshToken()), "X-Quipu-CSRF", "1");

        assertThat(refreshed.statusCode()).as(refreshed.body()).isEqualTo(200);
    }

    @Test
    void a_cookie_without_the_csrf_header_is_refused_and_its_token_stays_unspent() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String cookie = cookie(session.refreshToken());

        HttpResponse<String> noHeader = bodiless("Cookie", cookie);
        HttpResponse<String> wrongValue = bodiless("Cookie", cookie, "X-Quipu-CSRF", "0");
        HttpResponse<String> emptyObject = quipu.post("/v1/auth/refresh", null, "application/json", "{}",
                "Cookie", cookie);
        // What a cross-site HTML form can send: a form body, without custom headers.
        HttpResponse<String> form = quipu.post("/v1/auth/refresh", null, "application/x-www-form-urlencoded",
                "refreshToken=", "Cookie", cookie);
        HttpResponse<String> plain = quipu.post("/v1/auth/refresh", null, "text/plain", "{}", "Cookie", cookie);

        for (HttpResponse<String> refused : java.util.List.of(noHeader, wrongValue, emptyObject)) {
            JsonNode problem = assertProblem(refused, 400, "validation_error");
            assertThat(problem.at("/errors/0/field").asText()).isEqualTo("X-Quipu-CSRF");
            assertThat(problem.get("detail").asText()).contains("quipu_refresh");
            assertThat(refused.headers().firstValue("Set-Cookie")).isEmpty();
        }
        assertProblem(form, 415, "unsupported_media_type");
        assertProblem(plain, 415, "unsupported_media_type");
        // None of them spent the token (nor revoked the session): the page's own refresh still works.
        assertThat(bodiless("Cookie", cookie, "X-Quipu-CSRF", "1").statusCode()).isEqualTo(200);
    }

    @Test
    void a_cross_origin_preflight_is_never_granted() {
        HttpResponse<String> preflight = quipu.send(HttpRequest.newBuilder(quipu.uri("/v1/auth/refresh"))
                        .method("OPTIONS", HttpRequest.BodyPublishers.noBody()), null,
                "Origin", "https://attacker.example", "Access-Control-Request-Method", "POST",
                "Access-Control-Request-Headers", "x-quipu-csrf");

        assertThat(preflight.headers().map().keySet())
                .noneMatch(name -> name.toLowerCase(java.util.Locale.ROOT).startsWith("access-control-allow"));
    }

    @Test
    void the_header_without_a_cookie_or_a_token_in_the_body_is_401() {
        HttpResponse<String> noCookie = bodiless("X-Quipu-CSRF", "1");

        assertThat(assertProblem(noCookie, 401, "unauthorized").get("detail").asText()).contains("log in");
        assertProblem(bodiless("Cookie", "quipu_refresh=qr_" + "A".repeat(43), "X-Quipu-CSRF", "1"),
                401, "unauthorized");
    }

    @Test
    void a_token_in_the_body_wins_over_the_cookie_and_needs_no_header() {
        TestAccounts.Session first = quipu.accounts.newSession();
        TestAccounts.Session second = quipu.accounts.newSession();

        HttpResponse<String> byBody = quipu.post("/v1/auth/refresh", null, "application/json",
                "{\"refreshToken\":\"" + second.refreshToken() + "\"}", "Cookie", cookie(first.refreshToken()));

        assertThat(byBody.statusCode()).isEqualTo(200);
        assertThat(setCookie(byBody)).isEqualTo(cookieFor(quipu.body(byBody).get("refreshToken").asText()));
        assertThat(quipu.body(quipu.get("/v1/me", quipu.body(byBody).get("accessToken").asText()))
                .get("id").asText()).isEqualTo(second.accountId().toString());
        // The cookie's token was left alone.
        assertThat(quipu.accounts.refresh(first.refreshToken()).statusCode()).isEqualTo(200);
    }

    @Test
    void refreshes_with_a_body_answer_as_they_always_did() {
        TestAccounts.Session session = quipu.accounts.newSession();

        HttpResponse<String> refreshed = quipu.accounts.refresh(session.refreshToken());

        assertThat(refreshed.statusCode()).isEqualTo(200);
        assertThat(quipu.body(refreshed).properties()).extracting(java.util.Map.Entry::getKey)
                .containsExactly("accessToken", "refreshToken", "tokenType", "expiresIn");
        assertProblem(quipu.post("/v1/auth/refresh", null, "application/json", "{}"), 400, "validation_error");
        assertProblem(quipu.post("/v1/auth/refresh", null, null, "{}"), 415, "unsupported_media_type");
        assertProblem(bodiless(), 415, "unsupported_media_type");
    }

    @Test
    void the_cookies_token_expires_with_the_refresh_token() {
        TestAccounts.Session session = quipu.accounts.newSession();
        quipu.clock.advance(Duration.ofDays(30));

        assertProblem(bodiless("Cookie", cookie(session.refreshToken()), "X-Quipu-CSRF", "1"), 401, "unauthorized");
    }

    @Test
    void logout_clears_the_cookie() {
        TestAccounts.Session session = quipu.accounts.newSession();

        HttpResponse<String> logout = quipu.request("POST", "/v1/auth/logout", session.accessToken(),
                "Cookie", cookie(session.refreshToken()));

        assertThat(logout.statusCode()).isEqualTo(204);
        assertThat(setCookie(logout))
                .isEqualTo("quipu_refresh=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT" + ATTRIBUTES);
        assertProblem(bodiless("Cookie", cookie(session.refreshToken()), "X-Quipu-CSRF", "1"), 401, "unauthorized");
    }
}
