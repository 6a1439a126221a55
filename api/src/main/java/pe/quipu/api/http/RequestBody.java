package pe.quipu.api.http;

import pe.quipu.api.domain.Text;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;

/**
 * Reads a request body up to a limit. A body that does not arrive (the client went away mid-body, or went quiet for
 * longer than the connector's idle timeout) is the client's fault, answered 400 on a connection then closed: it is
 * not a 500, and nothing is logged beyond the request log's line.
 */
public final class RequestBody {

    private RequestBody() {
    }

    /**
     * The whole body, or a 413 with {@code tooLarge} as its detail when it is longer than {@code limit} bytes (at most
     * {@code limit + 1} bytes are read, or inflated for a gzip body).
     */
    public static byte[] readAtMost(InputStream body, int limit, Text tooLarge) {
        byte[] bytes;
        try {
            bytes = body.readNBytes(limit + 1);
        } catch (IOException e) {
            throw notArrived();
        }
        if (bytes.length > limit) {
            // UnreadBodyFilter reads what it can of the rest before the answer goes out.
            throw ApiProblem.of(ProblemType.PAYLOAD_TOO_LARGE, tooLarge);
        }
        return bytes;
    }

    static ApiProblem notArrived() {
        return ApiProblem.of(ProblemType.VALIDATION_ERROR, Text.of("http.body_not_arrived"),
                Map.of("Connection", "close"));
    }
}
