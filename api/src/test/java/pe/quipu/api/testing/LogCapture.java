package pe.quipu.api.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * What the running application logs (every logger, at the levels configured), from {@link #start} to
 * {@link #close}: for tests that check a hostile request leaves no ERROR and no stack trace behind. Start it once the
 * application runs (Dropwizard replaces the appenders when it starts).
 */
public final class LogCapture implements AutoCloseable {

    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    private LogCapture() {
        appender.setName("quipu-test-capture");
        appender.start();
        root.addAppender(appender);
    }

    public static LogCapture start() {
        return new LogCapture();
    }

    public List<ILoggingEvent> events() {
        synchronized (appender) {
            return List.copyOf(appender.list);
        }
    }

    /** The ERROR lines and every line that carries a stack trace, as logger, level and message. */
    public List<String> errorsAndStackTraces() {
        return events().stream()
                .filter(e -> e.getLevel().isGreaterOrEqual(Level.ERROR) || e.getThrowableProxy() != null)
                .map(e -> e.getLoggerName() + " " + e.getLevel() + " " + e.getFormattedMessage()
                        + (e.getThrowableProxy() == null ? "" : " [" + e.getThrowableProxy().getClassName() + ": "
                        + e.getThrowableProxy().getMessage() + "]"))
                .toList();
    }

    @Override
    public void close() {
        root.detachAppender(appender);
        appender.stop();
    }
}
