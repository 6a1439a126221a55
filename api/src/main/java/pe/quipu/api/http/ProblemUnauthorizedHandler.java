package pe.quipu.api.http;

import io.dropwizard.auth.UnauthorizedHandler;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.Response;

import java.util.Map;

/** 401 {@code unauthorized} as Problem Details, with the {@code WWW-Authenticate} challenge. */
public final class ProblemUnauthorizedHandler implements UnauthorizedHandler {

    @Override
    public Response buildResponse(String prefix, String realm) {
        return ProblemResponses.of(Problem.of(ProblemType.UNAUTHORIZED,
                        "Send a valid API key (data endpoints) or access token (account endpoints) as Authorization: Bearer <credential>"),
                Map.of(HttpHeaders.WWW_AUTHENTICATE, prefix + " realm=\"" + realm + "\""));
    }
}
