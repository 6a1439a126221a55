package pe.quipu.api.http;

import io.dropwizard.auth.UnauthorizedHandler;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.domain.Text;

import java.util.Map;

/** 401 {@code unauthorized} as Problem Details, with the {@code WWW-Authenticate} challenge. */
public final class ProblemUnauthorizedHandler implements UnauthorizedHandler {

    @Override
    public Response buildResponse(String prefix, String realm) {
        return ProblemResponses.of(Problem.of(ProblemType.UNAUTHORIZED, Text.of("http.send_credential")),
                Map.of(HttpHeaders.WWW_AUTHENTICATE, prefix + " realm=\"" + realm + "\""));
    }
}
