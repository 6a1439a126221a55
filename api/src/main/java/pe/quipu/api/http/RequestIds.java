package pe.quipu.api.http;

import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.MDC;

import java.util.Collections;
import java.util.EnumSet;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.regex.Pattern;

/**
 * {@code X-Request-Id} (contract §13): every answer carries one. A client's own value is kept when it has 1-128
 * characters of {@code A-Za-z0-9._-}; otherwise (none, too long, other characters: nothing a log line could be
 * forged with) Quipu makes one, 32 hexadecimal digits. It is set on the answer's headers before anything handles the
 * request (a Jetty customizer on every connector), so that errors raised before routing carry it too; the request log
 * writes it, every application log line written while serving has it in the MDC ({@value #MDC_KEY}), and Problem
 * bodies carry it as {@code requestId}.
 */
public final class RequestIds {

    public static final String HEADER = "X-Request-Id";
    /** The request attribute, and the MDC key. */
    public static final String MDC_KEY = "requestId";
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,128}");
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    private RequestIds() {
    }

    /**
     * Puts the customizer on every HTTP connector as the server starts, and the MDC filter on the application's and
     * the admin's servlets. While {@code draining} is true, answers also carry {@code Connection: close}, so that
     * clients on keep-alive connections reconnect (through the load balancer, to another instance).
     */
    public static void install(Environment environment, BooleanSupplier draining) {
        Customizer customizer = new Customizer(draining);
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle lifeCycle) {
                if (lifeCycle instanceof Server jetty) {
                    // Dropwizard wraps each connection factory in an instrumented one, which holds it as a bean.
                    Set<HttpConfiguration> configurations = Collections.newSetFromMap(new IdentityHashMap<>());
                    for (Connector connector : jetty.getConnectors()) {
                        if (connector instanceof ContainerLifeCycle container) {
                            for (HttpConnectionFactory http : container.getContainedBeans(HttpConnectionFactory.class)) {
                                configurations.add(http.getHttpConfiguration());
                            }
                        }
                    }
                    configurations.forEach(configuration -> configuration.addCustomizer(customizer));
                }
            }
        });
        environment.servlets().addFilter("quipu-request-id", new MdcFilter())
                .addMappingForUrlPatterns(EnumSet.allOf(DispatcherType.class), false, "/*");
        environment.admin().addFilter("quipu-request-id", new MdcFilter())
                .addMappingForUrlPatterns(EnumSet.allOf(DispatcherType.class), false, "/*");
    }

    /** The client's value when valid, else a new one. */
    public static String keepOrMake(String given) {
        return given != null && VALID.matcher(given).matches() ? given : make();
    }

    /** 128 random bits as 32 hexadecimal digits: an id, not a secret, so no SecureRandom on the hot path. */
    public static String make() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        char[] id = new char[32];
        for (int half = 0; half < 2; half++) {
            long bits = random.nextLong();
            for (int i = 0; i < 16; i++) {
                id[half * 16 + i] = HEX[(int) (bits >>> (60 - 4 * i)) & 0xf];
            }
        }
        return new String(id);
    }

    /** The id of the request this thread serves, or null. */
    public static String current() {
        return MDC.get(MDC_KEY);
    }

    /** The id of a request the customizer saw, or null. */
    static String of(Request request) {
        return request.getAttribute(MDC_KEY) instanceof String id ? id : null;
    }

    private static final class Customizer implements HttpConfiguration.Customizer {
        private final BooleanSupplier draining;

        private Customizer(BooleanSupplier draining) {
            this.draining = draining;
        }

        @Override
        public Request customize(Request request, HttpFields.Mutable responseHeaders) {
            String id = keepOrMake(request.getHeaders().get(HEADER));
            request.setAttribute(MDC_KEY, id);
            responseHeaders.put(HEADER, id);
            if (draining.getAsBoolean()) {
                responseHeaders.put("Connection", "close");
            }
            return request;
        }
    }

    /** The id in the MDC while the servlets serve the request, for every log line written meanwhile. */
    private static final class MdcFilter extends HttpFilter {
        @Override
        protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws java.io.IOException, ServletException {
            Object id = request.getAttribute(MDC_KEY);
            String previous = MDC.get(MDC_KEY);
            if (id instanceof String value) {
                MDC.put(MDC_KEY, value);
            }
            try {
                chain.doFilter(request, response);
            } finally {
                if (previous == null) {
                    MDC.remove(MDC_KEY);
                } else {
                    MDC.put(MDC_KEY, previous);
                }
            }
        }
    }

    /** Runs {@code write} with this id in the MDC (for the error handlers, which run outside the filter). */
    static void with(String id, Runnable write) {
        String previous = MDC.get(MDC_KEY);
        MDC.put(MDC_KEY, id);
        try {
            write.run();
        } finally {
            if (previous == null) {
                MDC.remove(MDC_KEY);
            } else {
                MDC.put(MDC_KEY, previous);
            }
        }
    }
}
