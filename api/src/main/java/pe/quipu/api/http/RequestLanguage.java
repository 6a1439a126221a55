package pe.quipu.api.http;

import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.core.HttpHeaders;
import pe.quipu.api.domain.Language;

import java.io.IOException;
import java.util.EnumSet;
import java.util.function.Supplier;

/**
 * The language the request being served asked for in {@code Accept-Language} ({@link Language#preferredBy}), for the
 * Problem Details written while serving it. A filter on the application's and the admin's servlets keeps the header for
 * as long as the servlets serve the request, and the header is read only when an answer needs words (most answers do
 * not), then remembered for the rest of the request; English on any other thread.
 */
public final class RequestLanguage {

    /** The request's {@code Accept-Language} header until it is first read, then the {@link Language} it chose. */
    private static final ThreadLocal<Object> CURRENT = new ThreadLocal<>();

    private RequestLanguage() {
    }

    public static void install(Environment environment) {
        environment.servlets().addFilter("quipu-request-language", new Filter())
                .addMappingForUrlPatterns(EnumSet.allOf(DispatcherType.class), false, "/*");
        environment.admin().addFilter("quipu-request-language", new Filter())
                .addMappingForUrlPatterns(EnumSet.allOf(DispatcherType.class), false, "/*");
    }

    /** The language of the request this thread serves; English outside one. */
    public static Language current() {
        Object held = CURRENT.get();
        if (held instanceof Language language) {
            return language;
        }
        if (held instanceof String header) {
            Language language = Language.preferredBy(header);
            CURRENT.set(language);
            return language;
        }
        return Language.ENGLISH;
    }

    /** Runs {@code write} in {@code language} (for the error handlers, which run outside the filter). */
    static <T> T with(Language language, Supplier<T> write) {
        Object previous = CURRENT.get();
        CURRENT.set(language);
        try {
            return write.get();
        } finally {
            CURRENT.set(previous);
        }
    }

    private static final class Filter extends HttpFilter {
        @Override
        protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            Object previous = CURRENT.get();
            CURRENT.set(request.getHeader(HttpHeaders.ACCEPT_LANGUAGE));
            try {
                chain.doFilter(request, response);
            } finally {
                CURRENT.set(previous);
            }
        }
    }
}
