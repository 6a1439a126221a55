package pe.quipu.etl.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;
import pe.quipu.etl.run.Progress;

import java.util.List;

/**
 * The progress lines runs in this JVM log while it is open ({@link EtlRunner} runs the ETL here): their messages, as
 * standard error shows them after the logger's name. Close it to stop listening.
 */
public final class ProgressLog implements AutoCloseable {

    private final Logger logger = (Logger) LoggerFactory.getLogger(Progress.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final Level level;

    public ProgressLog() {
        level = logger.getLevel();
        logger.setLevel(Level.INFO);
        appender.start();
        logger.addAppender(appender);
    }

    /** Every progress line so far. */
    public List<String> lines() {
        synchronized (appender) {
            return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    /** The last line of each phase so far, in the order the phases ended ({@code padron: stage done in 1.2 s, …}). */
    public List<String> phaseEnds() {
        return lines().stream().filter(l -> l.matches("\\S+: \\w+ (done in|stopped after) .*")).toList();
    }

    /** Forgets the lines so far. */
    public void clear() {
        synchronized (appender) {
            appender.list.clear();
        }
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        logger.setLevel(level);
        appender.stop();
    }
}
