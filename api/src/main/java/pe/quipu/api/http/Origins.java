package pe.quipu.api.http;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.core.HttpHeaders;
import pe.quipu.api.audit.AuditLog;

/** Where a request came from, for the audit log. */
public final class Origins {

    private Origins() {
    }

    /** The peer address (Jetty applies forwarded headers if configured) and the user agent. */
    public static AuditLog.Origin of(HttpServletRequest request) {
        return new AuditLog.Origin(request.getRemoteAddr(), request.getHeader(HttpHeaders.USER_AGENT));
    }
}
