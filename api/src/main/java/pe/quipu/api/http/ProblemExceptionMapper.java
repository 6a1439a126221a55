package pe.quipu.api.http;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.NotAllowedException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;
import org.eclipse.jetty.io.EofException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.domain.DomainException;
import pe.quipu.api.domain.FieldError;
import pe.quipu.api.domain.Text;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

/**
 * Maps every exception that reaches Jersey to Problem Details: the services' {@link DomainException}s and the
 * HTTP edge's {@link ApiProblem}s, the
 * container's 404/405/406/415, unreadable JSON (400), and anything unexpected (500 {@code internal_error}
 * with a reference, never a stack trace or SQL).
 */
@Provider
public final class ProblemExceptionMapper implements ExceptionMapper<Throwable> {

    private static final Logger LOG = LoggerFactory.getLogger(ProblemExceptionMapper.class);
    private static final SecureRandom RANDOM = new SecureRandom();

    @Context
    private UriInfo uriInfo;

    @Override
    public Response toResponse(Throwable exception) {
        if (exception instanceof DomainException refusal) {
            return ProblemResponses.of(refusal);
        }
        if (exception instanceof ApiProblem problem) {
            return ProblemResponses.of(problem);
        }
        if (exception instanceof JsonProcessingException json) {
            return ProblemResponses.of(jsonProblem(json), Map.of());
        }
        if (exception instanceof ConstraintViolationException violations) {
            // Hibernate Validator's messages are English; Quipu's resources validate by hand, so none is expected here.
            List<FieldError> errors = violations.getConstraintViolations().stream()
                    .map(v -> new FieldError(v.getPropertyPath().toString(),
                            Text.of("http.constraint_violated", v.getMessage())))
                    .toList();
            return ProblemResponses.of(Problem.of(ProblemType.VALIDATION_ERROR, Text.of("http.validation_failed"),
                    errors, null), Map.of());
        }
        if (exception instanceof WebApplicationException web && web.getResponse().getStatus() < 500) {
            return containerProblem(web);
        }
        if (clientWentAway(exception)) {
            return ProblemResponses.of(RequestBody.notArrived());
        }
        return internalError(exception);
    }

    private Response containerProblem(WebApplicationException web) {
        int status = web.getResponse().getStatus();
        ProblemType type = ProblemType.forStatus(status);
        Map<String, String> headers = new LinkedHashMap<>();
        String path = uriInfo == null ? "" : "/" + uriInfo.getPath();
        Text detail = switch (type) {
            case NOT_FOUND -> Text.of("http.no_resource_at", path);
            case METHOD_NOT_ALLOWED -> Text.of("http.method_not_allowed_on", path);
            case UNSUPPORTED_MEDIA_TYPE -> Text.of("http.takes_json");
            case NOT_ACCEPTABLE -> Text.of("http.answers_json");
            default -> type.title();
        };
        if (web instanceof NotAllowedException) {
            String allow = web.getResponse().getHeaderString(HttpHeaders.ALLOW);
            if (allow != null) {
                headers.put(HttpHeaders.ALLOW, allow);
            }
        }
        return ProblemResponses.of(Problem.of(type, detail), headers);
    }

    /**
     * The connection failed under a read (Jetty's EofException: the client went away; a TimeoutException: it went
     * quiet past the idle timeout). The client's doing, not an error of Quipu's: no 500, nothing logged.
     */
    private static boolean clientWentAway(Throwable exception) {
        for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
            if (cause instanceof EofException || cause instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    private static Problem jsonProblem(JsonProcessingException json) {
        Text detail;
        if (json instanceof JsonParseException) {
            detail = Text.of("domain.json.invalid");
        } else if (json instanceof InvalidFormatException || json instanceof MismatchedInputException) {
            detail = Text.of("http.body_wrong_shape");
        } else {
            detail = Text.of("domain.json.unreadable");
        }
        return Problem.of(ProblemType.VALIDATION_ERROR, detail);
    }

    private static Response internalError(Throwable exception) {
        String reference = HexFormat.of().formatHex(randomBytes());
        LOG.error("Unexpected error, reference {}", reference, exception);
        return ProblemResponses.of(Problem.of(ProblemType.INTERNAL_ERROR,
                Text.of("http.unexpected_error_reference", reference)), Map.of());
    }

    private static byte[] randomBytes() {
        byte[] bytes = new byte[8];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
