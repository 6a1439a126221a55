package pe.quipu.etl;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * The ETL's logging, set up in code (found by Logback through {@code META-INF/services}) rather than from an XML
 * file: reading XML loads a few hundred classes, a noticeable share of a cron-launched run's start-up. Standard
 * output carries only the run's one-line summary; everything else goes to standard error.
 */
public final class EtlLogging extends ContextAwareBase implements Configurator {

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern("%-5level [%d{ISO8601,UTC}] %logger{36}: %msg%n");
        encoder.start();
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
        // Hibernate Validator, which checks config.yml, announces its version at INFO.
        context.getLogger("org.hibernate.validator").setLevel(Level.WARN);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}
