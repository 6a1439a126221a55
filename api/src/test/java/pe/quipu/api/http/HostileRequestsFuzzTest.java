package pe.quipu.api.http;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.OpenApiContract;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.RawResponse;
import pe.quipu.api.testing.TestAccounts;
import pe.quipu.core.testing.BcrpStub;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile requests, generated from a seed (printed; replay with {@code -Dquipu.fuzz.seed=N}): random methods, routes,
 * paths, query strings, headers (duplicates included), credentials, encodings, and bodies (broken JSON, control
 * characters, huge numbers, deep nesting). Every answer must be a success or a Problem Details document, never a 5xx,
 * and nothing may be logged at ERROR (a stack trace is how a 500 shows in the log).
 */
class HostileRequestsFuzzTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.workerEnabled", "false");

    private static final int REQUESTS = Integer.getInteger("quipu.fuzz.requests", 2_500);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final ListAppender<ILoggingEvent> LOG = new ListAppender<>();

    private static final String[] METHODS = {"GET", "GET", "GET", "POST", "POST", "PATCH", "DELETE", "PUT", "HEAD",
            "OPTIONS", "TRACE", "FOO"};
    private static final String[] ROUTES = {"/v1/ubigeos", "/v1/ubigeos/150101", "/v1/ubigeos/{x}", "/v1/ruc/20100227461",
            "/v1/ruc/{x}", "/v1/ruc/batch", "/v1/tipo-cambio", "/v1/status", "/v1/auth/signup", "/v1/auth/login",
            "/v1/auth/refresh", "/v1/auth/logout", "/v1/me", "/v1/me/export", "/v1/keys", "/v1/keys/{x}",
            "/v1/keys/{x}/rotate", "/v1/usage", "/v1/usage/daily", "/v1/webhooks", "/v1/webhooks/{x}", "/v1/webhooks/{x}/rotate",
            "/v1/webhooks/{x}/test", "/v1/webhooks/{x}/deliveries", "/v1/webhooks/{x}/deliveries/{x}",
            "/v1/webhooks/{x}/deliveries/{x}/retry", "/.well-known/jwks.json", "/docs", "/docs/{x}",
            "/docs/swagger-ui.css", "/v1/plans", "/app", "/app/{x}", "/app/js/main.js", "/{x}", "/v1/{x}", "/"};
    private static final String[] PARAMETERS = {"q", "limit", "cursor", "departamento", "provincia", "fecha",
            "moneda", "from", "to", "access_token", "token", "{x}"};
    private static final String[] MEMBERS = {"email", "password", "nombre", "url", "events", "active", "rucs",
            "name", "scopes", "refreshToken", "confirmation", "usageAlertPercent", "{x}"};
    private static final String[] CONTENT_TYPES = {"application/json", "application/json; charset=utf-8",
            "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1", "*/*", "{x}"};
    private static final String[] ENCODINGS = {"gzip", "deflate", "br", "identity", "{x}"};

    private static final String BCRP_RATES = """
            {"config":{"title":"Tipo de cambio","series":[{"name":"Compra","dec":"3"},{"name":"Venta","dec":"3"}]},\
            "periods":[{"name":"29.Set.26","values":["3.4205","3.42483333333333"]},\
            {"name":"01.Oct.26","values":["3.42266666666667","3.42583333333333"]}]}""";

    private static Random random;
    private static String key;
    private static String token;

    @BeforeAll
    static void setUp() {
        long seed = Long.getLong("quipu.fuzz.seed", System.nanoTime());
        System.out.println("HostileRequestsFuzzTest seed " + seed + " (replay: -Dquipu.fuzz.seed=" + seed + ")");
        random = new Random(seed);
        // BCRP answers (real rates, shared/data/bcrp's shape), so an exchange-rate request has no reason for a 502.
        quipu.bcrp.respond(path -> BcrpStub.Answer.json(BCRP_RATES));
        LOG.start();
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).addAppender(LOG);
        key = quipu.accounts.newKey(Scope.values());
        TestAccounts.Session session = quipu.accounts.newSession();
        token = session.accessToken();
    }

    @AfterAll
    static void tearDown() {
        ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).detachAppender(LOG);
    }

    @Test
    void noGeneratedRequestGetsA5xxOrAnswersWithoutProblemDetailsOrLogsAnError() throws IOException {
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < REQUESTS && failures.size() < 10; i++) {
            Request request = generate();
            Answer answer = send(request);
            String fault = fault(request, answer);
            if (fault != null) {
                failures.add("#" + i + " " + fault + "\n  request: " + request.summary() + "\n  answer: "
                        + answer.status() + " " + answer.contentType() + " " + abbreviate(answer.body()));
            }
        }
        List<String> errors = LOG.list.stream().filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
                .map(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).distinct().limit(10).toList();
        assertThat(failures).as("answers that break the rules").isEmpty();
        assertThat(errors).as("ERROR log lines (stack traces)").isEmpty();
    }

    /** What is wrong with an answer, or null. */
    private static String fault(Request request, Answer answer) {
        if (answer.status() < 0) {
            return null; // the server closed the connection on a malformed request: allowed, nothing was served
        }
        if (answer.status() >= 500) {
            return "5xx";
        }
        if (answer.status() >= 400 && !"HEAD".equals(request.method())) {
            if (answer.contentType() == null || !answer.contentType().startsWith("application/problem+json")) {
                return "an error without Problem Details";
            }
            try {
                JsonNode problem = JSON.readTree(answer.body());
                if (!problem.path("type").isTextual() || problem.path("status").asInt() != answer.status()) {
                    return "a Problem Details document without type or with another status";
                }
            } catch (IOException e) {
                return "a Problem Details body that is not JSON";
            }
        }
        return contractFault(request, answer);
    }

    /** How the answer breaks the OpenAPI document, or null (pe.quipu.api.testing.OpenApiContract). */
    private static String contractFault(Request request, Answer answer) {
        RawResponse parsed;
        try {
            parsed = RawResponse.parse(answer.raw());
        } catch (RuntimeException e) {
            return null; // not a whole HTTP/1.1 answer: the checks above judged it
        }
        if (parsed.status() < 200) {
            return null; // an interim answer (100 Continue) before the final one, which this parser does not reach
        }
        List<String> faults = OpenApiContract.get().faults(new OpenApiContract.Answer(request.method(),
                request.target(), parsed.status(), parsed::header, parsed.body(), true));
        return faults.isEmpty() ? null : "an answer that breaks the OpenAPI document: " + String.join("; ", faults);
    }

    record Request(String method, String target, List<String[]> headers, byte[] body) {
        String summary() {
            StringBuilder s = new StringBuilder(method).append(' ').append(abbreviate(target));
            for (String[] h : headers) {
                s.append(" | ").append(h[0]).append(": ").append(abbreviate(h[1]));
            }
            return s.append(" | body ").append(body.length).append(" bytes: ")
                    .append(abbreviate(new String(body, StandardCharsets.UTF_8))).toString();
        }
    }

    /** {@code raw}: the whole answer as received, null when there was none. */
    record Answer(int status, String contentType, String body, String raw) {
    }

    private static Request generate() throws IOException {
        String method = pick(METHODS);
        String path = pick(ROUTES).replace("{x}", pathSegment());
        StringBuilder target = new StringBuilder(path);
        int parameters = random.nextInt(4);
        for (int i = 0; i < parameters; i++) {
            target.append(i == 0 ? '?' : '&').append(pick(PARAMETERS).replace("{x}", pathSegment()))
                    .append('=').append(queryValue());
        }
        List<String[]> headers = new ArrayList<>();
        headers.add(new String[]{"Host", "127.0.0.1"});
        int auth = random.nextInt(10);
        if (auth < 4) {
            headers.add(new String[]{"Authorization", "Bearer " + key});
        } else if (auth < 6) {
            headers.add(new String[]{"Authorization", "Bearer " + token});
        } else if (auth == 6) {
            headers.add(new String[]{"Authorization", "Bearer " + key});
            headers.add(new String[]{"Authorization", "Bearer " + token});
        } else if (auth == 7) {
            headers.add(new String[]{"Authorization", pick(new String[]{"Basic YWxhZGRpbjpvcGVuc2VzYW1l", "Bearer",
                    "Bearer " + token.replace('-', '+'), "Bearer " + mutate(token), "Bearer qk_live_" + word(40),
                    "bearer " + key, "Bearer  " + key})});
        }
        byte[] body = new byte[0];
        if (!"GET".equals(method) && !"HEAD".equals(method) || random.nextInt(8) == 0) {
            body = body();
            if (random.nextInt(3) > 0) {
                headers.add(new String[]{"Content-Type", pick(CONTENT_TYPES).replace("{x}", word(8))});
            }
            if (random.nextInt(6) == 0) {
                String encoding = pick(ENCODINGS).replace("{x}", word(5));
                headers.add(new String[]{"Content-Encoding", encoding});
                if ("gzip".equals(encoding) && random.nextBoolean()) {
                    body = gzip(body);
                }
            }
        }
        if (random.nextInt(6) == 0) {
            headers.add(new String[]{pick(new String[]{"If-None-Match", "Accept", "Accept-Encoding", "X-Forwarded-For",
                    "Range", "Expect", "Transfer-Encoding-Ignored", "Cookie", "X-Quipu-CSRF"}), headerValue()});
        }
        return new Request(method, target.toString(), headers, body);
    }

    private static byte[] body() throws IOException {
        return switch (random.nextInt(9)) {
            case 0 -> new byte[0];
            case 1 -> randomBytes(random.nextInt(200));
            case 2 -> "{".repeat(random.nextInt(3000)).getBytes(StandardCharsets.UTF_8);
            case 3 -> ("[" + "1e999999,".repeat(random.nextInt(50)) + "99999999999999999999999999999]")
                    .getBytes(StandardCharsets.UTF_8);
            default -> jsonObject().getBytes(StandardCharsets.UTF_8);
        };
    }

    private static String jsonObject() {
        StringBuilder s = new StringBuilder("{");
        int members = random.nextInt(5);
        for (int i = 0; i < members; i++) {
            if (i > 0) {
                s.append(',');
            }
            s.append('"').append(pick(MEMBERS).replace("{x}", word(6))).append("\":").append(jsonValue(0));
        }
        if (random.nextInt(10) == 0) {
            s.append(",\"email\":\"dup@x.pe\",\"email\":\"dup@x.pe\"");
        }
        return random.nextInt(12) == 0 ? s.toString() : s.append('}').toString();
    }

    private static String jsonValue(int depth) {
        return switch (depth > 3 ? random.nextInt(5) : random.nextInt(8)) {
            case 0 -> "null";
            case 1 -> random.nextBoolean() ? "true" : "false";
            case 2 -> pick(new String[]{"0", "-1", "1e400", "9223372036854775808", "1.5", "-0", "NaN"});
            case 3, 4 -> '"' + jsonString() + '"';
            case 5 -> "[" + jsonValue(depth + 1) + "," + jsonValue(depth + 1) + "]";
            case 6 -> "{\"" + word(3) + "\":" + jsonValue(depth + 1) + "}";
            default -> "[\"" + jsonString() + "\"]";
        };
    }

    /** A JSON string body: plain words, emails, URLs, escapes of control characters, surrogates, non-characters. */
    private static String jsonString() {
        return switch (random.nextInt(10)) {
            case 0 -> "\\u0000" + word(4);
            case 1 -> word(3) + "\\u001f\\u007f";
            case 2 -> "\\ud800" + word(2);
            case 3 -> "\\uffff\\ufdd0";
            case 4 -> word(5) + "@" + word(4) + ".pe";
            case 5 -> "https://" + word(6) + ".example.com/" + word(3);
            case 6 -> "ÁNA" + word(2) + "@x.pe";
            case 7 -> "x".repeat(random.nextInt(5000));
            case 8 -> "BORRAR MI CUENTA".toLowerCase(Locale.ROOT);
            default -> word(1 + random.nextInt(12));
        };
    }

    private static String pathSegment() {
        return switch (random.nextInt(7)) {
            case 0 -> word(1 + random.nextInt(20));
            case 1 -> Long.toString(random.nextLong());
            case 2 -> "%00" + word(3);
            case 3 -> "%" + Integer.toHexString(random.nextInt(256)) + word(2);
            case 4 -> "dlv_" + word(24);
            case 5 -> java.util.UUID.randomUUID().toString();
            default -> "..%2f" + word(2);
        };
    }

    private static String queryValue() {
        return switch (random.nextInt(6)) {
            case 0 -> "";
            case 1 -> word(1 + random.nextInt(10));
            case 2 -> Integer.toString(random.nextInt());
            case 3 -> "%" + String.format("%02X", random.nextInt(256));
            case 4 -> "0001-01-01";
            default -> "%C3%81" + word(3) + "%00";
        };
    }

    private static String headerValue() {
        return switch (random.nextInt(5)) {
            case 0 -> word(10);
            case 1 -> "\"" + word(8) + "\", W/\"" + word(4) + "\", *";
            case 2 -> "x".repeat(random.nextInt(4000));
            case 3 -> "quipu_refresh=" + word(12) + "; " + word(3) + "=" + word(3);
            default -> "100-continue";
        };
    }

    private static String mutate(String s) {
        char[] chars = s.toCharArray();
        chars[random.nextInt(chars.length)] = (char) ('A' + random.nextInt(26));
        return new String(chars);
    }

    private static String word(int length) {
        String alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~";
        StringBuilder s = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    private static byte[] randomBytes(int n) {
        byte[] bytes = new byte[n];
        random.nextBytes(bytes);
        return bytes;
    }

    private static byte[] gzip(byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gzip = new GZIPOutputStream(out)) {
            gzip.write(body);
        }
        return out.toByteArray();
    }

    private static String pick(String[] choices) {
        return choices[random.nextInt(choices.length)];
    }

    private static String abbreviate(String s) {
        return s.length() <= 160 ? s : s.substring(0, 160) + "…";
    }

    /** One request on its own connection, written byte for byte; status -1 when the server hangs up unanswered. */
    private static Answer send(Request request) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), quipu.uri("/").getPort())) {
            socket.setSoTimeout(15_000);
            ByteArrayOutputStream head = new ByteArrayOutputStream();
            head.writeBytes((request.method() + " " + request.target() + " HTTP/1.1\r\n")
                    .getBytes(StandardCharsets.UTF_8));
            for (String[] h : request.headers()) {
                head.writeBytes((h[0] + ": " + h[1] + "\r\n").getBytes(StandardCharsets.UTF_8));
            }
            head.writeBytes(("Content-Length: " + request.body().length + "\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            OutputStream out = socket.getOutputStream();
            out.write(head.toByteArray());
            out.write(request.body());
            out.flush();
            byte[] answer;
            try (InputStream in = socket.getInputStream()) {
                answer = in.readAllBytes();
            } catch (SocketTimeoutException e) {
                return new Answer(599, null, "no answer within 15 s", null);
            } catch (IOException e) {
                return new Answer(-1, null, e.toString(), null);
            }
            return parse(new String(answer, StandardCharsets.UTF_8));
        }
    }

    private static Answer parse(String raw) {
        if (!raw.startsWith("HTTP/1.1 ")) {
            return new Answer(-1, null, raw, null);
        }
        int status = Integer.parseInt(raw.substring(9, 12));
        int end = raw.indexOf("\r\n\r\n");
        String headers = end < 0 ? raw : raw.substring(0, end);
        String body = end < 0 ? "" : raw.substring(end + 4);
        String contentType = null;
        boolean chunked = false;
        for (String line : headers.split("\r\n")) {
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-type:")) {
                contentType = line.substring(13).strip().toLowerCase(Locale.ROOT);
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        return new Answer(status, contentType, chunked ? dechunk(body) : body, raw);
    }

    private static String dechunk(String body) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < body.length()) {
            int lineEnd = body.indexOf("\r\n", i);
            if (lineEnd < 0) {
                break;
            }
            int size = Integer.parseInt(body.substring(i, lineEnd).split(";")[0].strip(), 16);
            if (size == 0) {
                break;
            }
            out.append(body, lineEnd + 2, Math.min(body.length(), lineEnd + 2 + size));
            i = lineEnd + 2 + size + 2;
        }
        return out.toString();
    }
}
