package pe.quipu.etl;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.LayoutBase;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import io.dropwizard.logging.json.EventAttribute;
import io.dropwizard.logging.json.EventJsonLayoutBaseFactory;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

import java.util.EnumSet;
import java.util.TimeZone;

/**
 * The ETL's logging, set up in code (found by Logback through {@code META-INF/services}) rather than from an XML
 * file: reading XML loads a few hundred classes, a noticeable share of a cron-launched run's start-up. Standard
 * output carries only the run's one-line summary; everything else goes to standard error.
 */
public final class EtlLogging extends ContextAwareBase implements Configurator {

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        Encoder<ILoggingEvent> encoder = "json".equals(System.getenv("QUIPU_LOG_FORMAT")) ? json(context)
                : text(context);
        ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
        stderr.setContext(context);
        stderr.setName("STDERR");
        stderr.setTarget("System.err");
        stderr.setEncoder(encoder);
        stderr.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(stderr);
        context.getLogger("org.springframework").setLevel(Level.WARN);
        context.getLogger("liquibase").setLevel(Level.WARN);
        context.getLogger("io.zonky").setLevel(Level.WARN);
        context.getLogger("com.zaxxer.hikari").setLevel(Level.WARN);
        // Hibernate Validator, which checks config.yml, announces its version at INFO.
        context.getLogger("org.hibernate.validator").setLevel(Level.WARN);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    private static Encoder<ILoggingEvent> text(LoggerContext context) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%-5level [%d{ISO8601,UTC}] %logger{36}: %msg%n");
        encoder.start();
        return encoder;
    }

    /**
     * QUIPU_LOG_FORMAT=json (contract §13), read from the environment as config.yml's logFormat is: Dropwizard's JSON
     * layout with the API's fields (timestamp, level, logger, message, exception), one object a line.
     */
    static Encoder<ILoggingEvent> json(LoggerContext context) {
        EventJsonLayoutBaseFactory factory = new EventJsonLayoutBaseFactory();
        factory.setIncludes(EnumSet.of(EventAttribute.TIMESTAMP, EventAttribute.LEVEL, EventAttribute.LOGGER_NAME,
                EventAttribute.MESSAGE, EventAttribute.EXCEPTION, EventAttribute.MDC));
        factory.setFlattenMdc(true);
        factory.setTimestampFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX");
        LayoutBase<ILoggingEvent> layout = factory.build(context, TimeZone.getTimeZone("UTC"));
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();
        return encoder;
    }
}
