package pe.quipu.api.http;

import ch.qos.logback.access.common.pattern.AccessConverter;
import ch.qos.logback.access.common.spi.IAccessEvent;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.pattern.DynamicConverter;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.dropwizard.core.server.AbstractServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.logging.common.AbstractAppenderFactory;
import io.dropwizard.logging.common.AppenderFactory;
import io.dropwizard.logging.common.layout.DiscoverableLayoutFactory;
import io.dropwizard.request.logging.LogbackAccessRequestLogFactory;
import io.dropwizard.request.logging.layout.LogbackAccessRequestLayout;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;
import java.util.function.Supplier;

/**
 * The request log's layout: the configured {@code logFormat} as logback-access reads it, except that the
 * conversion words that can show a query string ({@code %r}, {@code %requestURL}, {@code %q},
 * {@code %queryString}, {@code %requestParameter}) hide the values of secret-named parameters
 * ({@link QueryRedaction}), and the header words ({@code %i}, {@code %header}) never show {@code Authorization},
 * {@code Proxy-Authorization}, {@code Cookie} or {@code Idempotency-Key}. {@code %fullRequest} (headers and body) writes the request line
 * only. Quipu installs it on every request-log appender that names no layout of its own.
 */
@JsonTypeName("quipu-redacting")
public final class RedactingRequestLogLayout implements DiscoverableLayoutFactory<IAccessEvent> {

    /** Never written; an Idempotency-Key is the key its kept answer is encrypted under (IdempotencyFeature). */
    static final Set<String> SECRET_HEADERS = Set.of("authorization", "proxy-authorization", "cookie",
            "set-cookie", "idempotency-key");

    /**
     * Puts this layout on every request-log appender configured without a layout (config.yml's console appender
     * with its logFormat), before the server is built. An appender that names a layout keeps it.
     */
    public static void installOn(ServerFactory server) {
        installOn(server, false);
    }

    /** As {@link #installOn(ServerFactory)}, or with {@link JsonRequestLogLayout} when {@code json}. */
    public static void installOn(ServerFactory server, boolean json) {
        if (server instanceof AbstractServerFactory factory
                && factory.getRequestLogFactory() instanceof LogbackAccessRequestLogFactory requestLog) {
            for (AppenderFactory<IAccessEvent> appender : requestLog.getAppenders()) {
                if (appender instanceof AbstractAppenderFactory<IAccessEvent> configured
                        && configured.getLayout() == null) {
                    configured.setLayout(json ? new JsonRequestLogLayout() : new RedactingRequestLogLayout());
                    if (json) {
                        // The JSON layout has its own fields; the format would only be warned about.
                        configured.setLogFormat(null);
                    }
                }
            }
        }
    }

    @Override
    public LayoutBase<IAccessEvent> build(LoggerContext context, TimeZone timeZone) {
        return new Layout(context, timeZone);
    }

    private static final class Layout extends LogbackAccessRequestLayout {
        private Layout(LoggerContext context, TimeZone timeZone) {
            super(context, timeZone);
        }

        @Override
        public Map<String, Supplier<DynamicConverter>> getDefaultConverterSupplierMap() {
            Map<String, Supplier<DynamicConverter>> converters = new HashMap<>(super.getDefaultConverterSupplierMap());
            for (String word : new String[] {"r", "requestURL", "fullRequest"}) {
                converters.put(word, RequestLine::new);
            }
            for (String word : new String[] {"q", "queryString"}) {
                converters.put(word, QueryString::new);
            }
            for (String word : new String[] {"requestParameter", "reqParameter"}) {
                converters.put(word, RequestParameter::new);
            }
            for (String word : new String[] {"i", "header"}) {
                converters.put(word, RequestHeader::new);
            }
            return converters;
        }
    }

    /** {@code METHOD /path?query PROTOCOL}, the query redacted. */
    static final class RequestLine extends AccessConverter {
        @Override
        public String convert(IAccessEvent event) {
            return event.getMethod() + ' ' + event.getRequestURI() + query(event) + ' ' + event.getProtocol();
        }
    }

    /** {@code ?query}, redacted; empty without one. */
    static final class QueryString extends AccessConverter {
        @Override
        public String convert(IAccessEvent event) {
            return query(event);
        }
    }

    static final class RequestParameter extends AccessConverter {
        @Override
        public String convert(IAccessEvent event) {
            String name = getFirstOption();
            if (name == null) {
                return "-";
            }
            if (QueryRedaction.isSecretName(name)) {
                return QueryRedaction.REDACTED;
            }
            String[] values = event.getRequestParameter(name);
            return values == null || values.length == 0 ? "-" : String.join(",", values);
        }
    }

    static final class RequestHeader extends AccessConverter {
        @Override
        public String convert(IAccessEvent event) {
            String name = getFirstOption();
            if (name == null) {
                return "-";
            }
            if (SECRET_HEADERS.contains(name.toLowerCase(Locale.ROOT)) || QueryRedaction.isSecretName(name)) {
                return QueryRedaction.REDACTED;
            }
            String value = event.getRequestHeader(name);
            return value == null ? "-" : value;
        }
    }

    private static String query(IAccessEvent event) {
        String query = event.getQueryString();
        if (query == null || query.isEmpty()) {
            return "";
        }
        String raw = query.startsWith("?") ? query.substring(1) : query;
        return '?' + QueryRedaction.redact(raw);
    }
}
