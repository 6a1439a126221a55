package pe.quipu.api.http;

import ch.qos.logback.access.common.spi.IAccessEvent;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.LayoutBase;
import com.fasterxml.jackson.annotation.JsonTypeName;
import io.dropwizard.logging.json.AccessAttribute;
import io.dropwizard.logging.json.AccessJsonLayoutBaseFactory;
import io.dropwizard.logging.json.layout.AccessJsonLayout;
import io.dropwizard.logging.json.layout.JsonFormatter;
import io.dropwizard.logging.json.layout.TimestampFormatter;

import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TimeZone;

/**
 * The request log as JSON ({@code QUIPU_LOG_FORMAT=json}, contract §13): Dropwizard's access JSON layout with
 * {@code timestamp}, {@code remoteAddress}, {@code method}, {@code status} and {@code durationMs}, plus {@code path}
 * (the query's secret-named values redacted, as the text format does: {@link QueryRedaction}) and {@code requestId}.
 * Neither the raw URI with its query nor any header is written.
 */
@JsonTypeName("quipu-access-json")
public final class JsonRequestLogLayout extends AccessJsonLayoutBaseFactory {

    public JsonRequestLogLayout() {
        setIncludes(EnumSet.of(AccessAttribute.TIMESTAMP, AccessAttribute.REMOTE_ADDRESS, AccessAttribute.METHOD,
                AccessAttribute.STATUS_CODE, AccessAttribute.REQUEST_TIME));
        setCustomFieldNames(Map.of("requestTime", "durationMs"));
        setTimestampFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        setRequestHeaders(Set.of());
        setResponseHeaders(Set.of());
    }

    @Override
    public LayoutBase<IAccessEvent> build(LoggerContext context, TimeZone timeZone) {
        Layout layout = new Layout(createDropwizardJsonFormatter(), createTimestampFormatter(timeZone),
                getIncludes(), getCustomFieldNames(), getAdditionalFields());
        layout.setContext(context);
        return layout;
    }

    private static final class Layout extends AccessJsonLayout {
        private Layout(JsonFormatter json, TimestampFormatter timestamps, Set<AccessAttribute> includes,
                       Map<String, String> names, Map<String, Object> additional) {
            super(json, timestamps, includes, names, additional);
        }

        @Override
        protected Map<String, Object> toJsonMap(IAccessEvent event) {
            Map<String, Object> map = new LinkedHashMap<>(super.toJsonMap(event));
            String query = event.getQueryString();
            String redacted = query == null || query.isEmpty() ? ""
                    : "?" + QueryRedaction.redact(query.startsWith("?") ? query.substring(1) : query);
            map.put("path", event.getRequestURI() + redacted);
            String id = event.getResponseHeader(RequestIds.HEADER);
            if (id != null && !id.isEmpty() && !id.equals("-")) {
                map.put("requestId", id);
            }
            return map;
        }
    }
}
