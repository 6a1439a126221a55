package pe.quipu.api.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One HTTP/1.1 answer as {@link QuipuClient#raw} returns it, taken apart: status, headers (names compared without
 * case), body (chunks joined).
 */
public record RawResponse(int status, List<String[]> headers, String body) {

    public static RawResponse parse(String raw) {
        int end = raw.indexOf("\r\n\r\n");
        if (!raw.startsWith("HTTP/1.1 ") || end < 0) {
            throw new IllegalArgumentException("not an HTTP/1.1 answer: " + raw);
        }
        String[] lines = raw.substring(0, end).split("\r\n");
        int status = Integer.parseInt(lines[0].substring(9, 12));
        List<String[]> headers = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            headers.add(new String[]{lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim()});
        }
        String body = raw.substring(end + 4);
        RawResponse response = new RawResponse(status, headers, body);
        if (response.header("Transfer-Encoding").filter(v -> v.equalsIgnoreCase("chunked")).isPresent()) {
            response = new RawResponse(status, headers, dechunk(body));
        }
        return response;
    }

    public Optional<String> header(String name) {
        return headers.stream().filter(h -> h[0].toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT)))
                .map(h -> h[1]).findFirst();
    }

    private static String dechunk(String body) {
        StringBuilder joined = new StringBuilder();
        int at = 0;
        while (true) {
            int lineEnd = body.indexOf("\r\n", at);
            int size = Integer.parseInt(body.substring(at, lineEnd).split(";")[0].trim(), 16);
            if (size == 0) {
                return joined.toString();
            }
            joined.append(body, lineEnd + 2, lineEnd + 2 + size);
            at = lineEnd + 2 + size + 2;
        }
    }
}
