package pe.quipu.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.Environment;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;
import pe.quipu.api.domain.Language;
import pe.quipu.api.domain.Text;

import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.util.List;

/**
 * Jetty's own error answers (a malformed request line or URI, headers too large, an error outside Jersey)
 * as Problem Details instead of HTML or an empty body, whatever the request's {@code Accept} header says and whatever
 * the method: Jetty writes an error page for GET, POST and HEAD only, and answered a PUT, PATCH or DELETE on an
 * ambiguous path ({@code /v1/a%2Fb}) or a TRACE with an empty 400 or 405.
 * One handler sits on the server (requests Jetty rejects before routing), one on the servlet context.
 */
public final class ProblemErrorHandler extends ErrorHandler {

    private final ObjectMapper json;

    private ProblemErrorHandler(ObjectMapper json) {
        this.json = json;
        setShowStacks(false);
        setShowCauses(false);
    }

    public static void install(Environment environment, ObjectMapper json) {
        environment.getApplicationContext().setErrorHandler(new ServletContextProblemHandler(json));
        ProblemErrorHandler serverHandler = new ProblemErrorHandler(json);
        environment.lifecycle().addServerLifecycleListener(server -> server.setErrorHandler(serverHandler));
    }

    @Override
    public boolean errorPageForMethod(String method) {
        return true;
    }

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
                                    Callback callback) {
        writeProblem(json, request, response, code, callback);
    }

    /** A request Jetty could not parse: no customizer saw it, so its id is made here. */
    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        String id = RequestIds.make();
        fields.put(new HttpField(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE));
        fields.put(new HttpField(HttpHeader.CACHE_CONTROL, "no-store"));
        fields.put(RequestIds.HEADER, id);
        fields.put(new HttpField(HttpHeader.CONTENT_LANGUAGE, Language.ENGLISH.tag()));
        byte[][] body = new byte[1][];
        RequestIds.with(id, () -> body[0] = body(json, status));
        return ByteBuffer.wrap(body[0]);
    }

    /** The error's body, with the request's id (re-set on the headers, which an error may have reset). */
    static void writeProblem(ObjectMapper json, Request request, Response response, int code, Callback callback) {
        String id = RequestIds.of(request);
        if (id == null) {
            id = RequestIds.make();
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, Problem.MEDIA_TYPE);
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        response.getHeaders().put(RequestIds.HEADER, id);
        Language language = Language.preferredBy(request.getHeaders().get(HttpHeader.ACCEPT_LANGUAGE));
        response.getHeaders().put(HttpHeader.CONTENT_LANGUAGE, language.tag());
        byte[][] body = new byte[1][];
        RequestIds.with(id, () -> body[0] = RequestLanguage.with(language, () -> body(json, code)));
        response.write(true, ByteBuffer.wrap(body[0]), callback);
    }

    static byte[] body(ObjectMapper json, int code) {
        ProblemType type = ProblemType.forStatus(code);
        Text detail = switch (type) {
            case NOT_FOUND -> Text.of("http.no_resource_here");
            case INTERNAL_ERROR -> Text.of("http.unexpected_error");
            case VALIDATION_ERROR -> Text.of("http.request_unreadable");
            default -> type.title();
        };
        try {
            Problem problem = Problem.of(type, detail);
            return json.writeValueAsBytes(new Problem(problem.type(), problem.title(), code, problem.detail(),
                    null, null));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The servlet context's variant: errors raised inside the context but outside Jersey. */
    private static final class ServletContextProblemHandler extends org.eclipse.jetty.ee10.servlet.ErrorHandler {
        private final ObjectMapper json;

        private ServletContextProblemHandler(ObjectMapper json) {
            this.json = json;
            setShowStacks(false);
            setShowCauses(false);
        }

        @Override
        public boolean errorPageForMethod(String method) {
            return true;
        }

        @Override
        protected boolean generateAcceptableResponse(Request request, Response response, Callback callback,
                                                     String contentType, List<Charset> charsets, int code,
                                                     String message, Throwable cause) {
            writeProblem(json, request, response, code, callback);
            return true;
        }

        @Override
        protected void generateResponse(Request request, Response response, int code, String message,
                                        Throwable cause, Callback callback) {
            writeProblem(json, request, response, code, callback);
        }
    }
}
