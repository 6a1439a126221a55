package pe.quipu.api.webhooks;

/** A failed attempt's {@code error} (contract §6). */
final class ErrorKind {
    static final String TIMEOUT = "timeout";
    static final String REDIRECT = "redirect";
    static final String BODY_TOO_LARGE = "body_too_large";
    static final String HTTP_STATUS = "http_status";
    /** Refused, reset or closed before a whole answer arrived. */
    static final String CONNECTION_REFUSED = "connection_refused";
    static final String DNS = "dns";
    static final String TLS = "tls";
    /**
     * What came back is not an HTTP answer Quipu reads: a status line or header that does not parse, or a head
     * (status line and headers) over {@link WebhookSender#MAX_HEAD} bytes.
     */
    static final String INVALID_RESPONSE = "invalid_response";
    /** The pinned address is refused by the address rules as they stand at the attempt. */
    static final String BLOCKED_ADDRESS = "blocked_address";

    private ErrorKind() {
    }
}
