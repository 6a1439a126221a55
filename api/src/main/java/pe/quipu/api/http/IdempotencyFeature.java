package pe.quipu.api.http;

import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import pe.quipu.api.auth.QuipuPrincipal;
import pe.quipu.api.platform.IdempotentRequests;
import pe.quipu.api.domain.Text;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Applies {@link Idempotent} (draft-ietf-httpapi-idempotency-key-header): a POST sent with
 * {@code Idempotency-Key: "…"} is run once per account and key; a retry with the same key, method, path and body
 * within 24 hours gets the first answer again (status, headers, body; {@code Idempotent-Replayed: true}) and changes
 * nothing. The same key with another request is 422 {@code idempotency_key_reused}; a retry while the first request
 * still runs is 409 {@code conflict}. Without the header a POST runs as always.
 *
 * <p>Kept: 2xx and 4xx answers, which a retry would get again. Not kept: 5xx, 408, 409, 425 and 429, after which a
 * retry under the same key runs the request again. Runs after the credentials, the scope, the metering and the
 * body's decoding: a request that fails those is refused before any key is claimed.
 */
@Provider
public final class IdempotencyFeature implements DynamicFeature {

    public static final String HEADER = "Idempotency-Key";
    static final String REPLAYED = "Idempotent-Replayed";
    /** After the body's content coding ({@code Priorities.ENTITY_CODER}), so that the body is the decoded one. */
    static final int PRIORITY = Priorities.ENTITY_CODER + 100;
    private static final String TOKEN = IdempotentRequests.Token.class.getName();
    private static final String PENDING = IdempotencyFeature.class.getName() + ".pending";
    /** The draft's sf-string, of printable ASCII; unquoted values (a UUID, as other APIs take them) are accepted too. */
    private static final Pattern KEY = Pattern.compile("[\\x21\\x23-\\x5b\\x5d-\\x7e]{1,255}");
    private static final Set<String> NOT_KEPT_HEADERS = Set.of("date", "content-length", "transfer-encoding",
            "connection", "keep-alive");

    private final IdempotentRequests requests;

    public IdempotencyFeature(IdempotentRequests requests) {
        this.requests = requests;
    }

    @Override
    public void configure(ResourceInfo resourceInfo, FeatureContext context) {
        if (resourceInfo.getResourceMethod().isAnnotationPresent(Idempotent.class)) {
            context.register(new Filter(requests), PRIORITY);
        }
    }

    /** The key the header gives, or a 400 naming the rule. */
    static String key(String header) {
        String value = header.strip();
        if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
            value = value.substring(1, value.length() - 1);
        }
        if (!KEY.matcher(value).matches()) {
            throw ApiProblem.of(ProblemType.VALIDATION_ERROR, Text.of("http.idempotency.malformed_key"));
        }
        return value;
    }

    /** Whether a retry should get this status again, rather than run the request again. */
    static boolean kept(int status) {
        return status >= 200 && status < 500 && status != 408 && status != 409 && status != 425 && status != 429;
    }

    private record Pending(IdempotentRequests.Token token, int status, Map<String, List<String>> headers) {
    }

    private record Filter(IdempotentRequests requests)
            implements ContainerRequestFilter, ContainerResponseFilter, WriterInterceptor {

        @Override
        public void filter(ContainerRequestContext request) throws IOException {
            String header = request.getHeaderString(HEADER);
            if (header == null || !(request.getSecurityContext().getUserPrincipal() instanceof QuipuPrincipal caller)) {
                return;
            }
            String key = key(header);
            byte[] body = request.hasEntity() ? RequestBody.readAtMost(request.getEntityStream(), JsonBody.MAX_BYTES,
                    Text.of("http.body_too_large", JsonBody.MAX_BYTES)) : new byte[0];
            request.setEntityStream(new ByteArrayInputStream(body));
            byte[] fingerprint = IdempotentRequests.fingerprint(request.getMethod(),
                    request.getUriInfo().getAbsolutePath().getRawPath(), body);
            switch (requests.claim(caller.accountId(), key, fingerprint)) {
                case IdempotentRequests.Claim.First first -> request.setProperty(TOKEN, first.token());
                case IdempotentRequests.Claim.Replay replay -> request.abortWith(replayed(replay.answer()));
                case IdempotentRequests.Claim.Running running -> throw ApiProblem.of(ProblemType.CONFLICT,
                        Text.of("http.idempotency.running"));
                case IdempotentRequests.Claim.Mismatch mismatch -> throw ApiProblem.of(
                        ProblemType.IDEMPOTENCY_KEY_REUSED, Text.of("http.idempotency.reused"));
            }
        }

        @Override
        public void filter(ContainerRequestContext request, ContainerResponseContext response) {
            if (!(request.getProperty(TOKEN) instanceof IdempotentRequests.Token token)) {
                return;
            }
            request.removeProperty(TOKEN);
            int status = response.getStatus();
            if (!kept(status)) {
                requests.release(token);
                return;
            }
            Map<String, List<String>> headers = new LinkedHashMap<>();
            response.getStringHeaders().forEach((name, values) -> {
                if (!NOT_KEPT_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                    headers.put(name, List.copyOf(values));
                }
            });
            if (!response.hasEntity()) {
                requests.complete(token, new IdempotentRequests.Answer(status, headers, new byte[0]));
                return;
            }
            // The body is written later, by its message body writer: kept as it goes out (aroundWriteTo).
            request.setProperty(PENDING, new Pending(token, status, headers));
        }

        @Override
        public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
            if (!(context.getProperty(PENDING) instanceof Pending pending)) {
                context.proceed();
                return;
            }
            context.removeProperty(PENDING);
            Tee tee = new Tee(context.getOutputStream());
            context.setOutputStream(tee);
            try {
                context.proceed();
            } catch (IOException | RuntimeException e) {
                requests.release(pending.token());
                throw e;
            }
            Map<String, List<String>> headers = new LinkedHashMap<>(pending.headers());
            if (context.getMediaType() != null) {
                headers.putIfAbsent(HttpHeaders.CONTENT_TYPE, List.of(context.getMediaType().toString()));
            }
            requests.complete(pending.token(), new IdempotentRequests.Answer(pending.status(), headers,
                    tee.copy.toByteArray()));
        }
    }

    /** The first answer again, marked as such. */
    private static Response replayed(IdempotentRequests.Answer answer) {
        Response.ResponseBuilder replay = Response.status(answer.status());
        answer.headers().forEach((name, values) -> values.forEach(value -> replay.header(name, value)));
        replay.header(REPLAYED, "true");
        if (answer.body().length > 0) {
            replay.entity(answer.body());
        }
        return replay.build();
    }

    /** The body on its way out, and a copy of it. */
    private static final class Tee extends FilterOutputStream {
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        Tee(OutputStream out) {
            super(out);
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            copy.write(b);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            copy.write(b, off, len);
        }
    }
}
