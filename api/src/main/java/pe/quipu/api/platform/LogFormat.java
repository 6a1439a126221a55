package pe.quipu.api.platform;

import ch.qos.logback.classic.spi.ILoggingEvent;
import io.dropwizard.logging.common.AbstractAppenderFactory;
import io.dropwizard.logging.common.AppenderFactory;
import io.dropwizard.logging.common.DefaultLoggingFactory;
import io.dropwizard.logging.common.LoggingFactory;
import io.dropwizard.logging.json.EventAttribute;
import io.dropwizard.logging.json.EventJsonLayoutBaseFactory;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * {@code QUIPU_LOG_FORMAT} (contract §13): {@code text}, the default, or {@code json}, where every application log
 * line is one JSON object written by Dropwizard's own JSON layout: {@code timestamp} (ISO 8601, UTC), {@code level},
 * {@code logger}, {@code message}, {@code exception} when there is one, and {@code requestId} while a request is
 * served (the MDC's, flattened). The request log's JSON layout is {@code http.JsonRequestLogLayout}.
 */
public final class LogFormat {

    public static final String TEXT = "text";
    public static final String JSON = "json";
    static final String TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss.SSSXXX";

    private LogFormat() {
    }

    /** Puts the JSON layout on every appender of {@code logging} that names no layout of its own. */
    public static void useJson(LoggingFactory logging) {
        if (!(logging instanceof DefaultLoggingFactory factory)) {
            return;
        }
        for (AppenderFactory<ILoggingEvent> appender : factory.getAppenders()) {
            if (appender instanceof AbstractAppenderFactory<ILoggingEvent> configured
                    && configured.getLayout() == null) {
                configured.setLayout(eventLayout());
            }
        }
    }

    /** Dropwizard's JSON layout with the contract's fields. */
    public static EventJsonLayoutBaseFactory eventLayout() {
        EventJsonLayoutBaseFactory layout = new EventJsonLayoutBaseFactory();
        layout.setIncludes(EnumSet.of(EventAttribute.TIMESTAMP, EventAttribute.LEVEL, EventAttribute.LOGGER_NAME,
                EventAttribute.MESSAGE, EventAttribute.EXCEPTION, EventAttribute.MDC));
        layout.setIncludesMdcKeys(Set.of("requestId"));
        layout.setFlattenMdc(true);
        layout.setTimestampFormat(TIMESTAMP_FORMAT);
        layout.setCustomFieldNames(Map.of());
        return layout;
    }
}
