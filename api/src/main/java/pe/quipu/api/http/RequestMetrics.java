package pe.quipu.api.http;

import io.dropwizard.core.setup.Environment;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpFilter;
import jakarta.servlet.http.HttpServletMapping;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Context;
import org.glassfish.jersey.server.ExtendedUriInfo;
import org.glassfish.jersey.server.model.ResourceMethod;
import org.glassfish.jersey.uri.UriTemplate;

import java.io.IOException;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each request of the application connector, by route template, method and status, for the metrics (contract §13).
 * The route is what Jersey matched ({@code /v1/ruc/{ruc}}), else the servlet mapping that served it
 * ({@code /docs/*}), else {@code unmatched}: never the raw path, which would carry RUCs and grow without bound.
 */
public final class RequestMetrics {

    /** The request attribute (and Jersey property) holding the matched route template. */
    static final String ROUTE = "quipu.route";
    static final String UNMATCHED = "unmatched";

    /** What receives each request once answered. */
    @FunctionalInterface
    public interface Observer {
        void observe(String route, String method, int status, long nanos);
    }

    private RequestMetrics() {
    }

    public static void install(Environment environment, Observer observer) {
        environment.jersey().register(new RouteTemplate());
        environment.servlets().addFilter("quipu-request-metrics", new Filter(observer))
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
    }

    /** Says which route {@code request} took when something other than Jersey answers it ({@code /v1/ruc/{ruc}}). */
    public static void routed(jakarta.servlet.ServletRequest request, String template) {
        request.setAttribute(ROUTE, template);
    }

    /** The route template Jersey matched, outermost first: {@code /v1/ruc} + {@code /{ruc}}. */
    static String template(List<UriTemplate> matched) {
        StringBuilder route = new StringBuilder();
        for (int i = matched.size() - 1; i >= 0; i--) {
            String part = matched.get(i).getTemplate();
            if (part.isEmpty() || part.equals("/")) {
                continue;
            }
            if (route.isEmpty() || route.charAt(route.length() - 1) != '/') {
                if (!part.startsWith("/")) {
                    route.append('/');
                }
            } else if (part.startsWith("/")) {
                part = part.substring(1);
            }
            route.append(withoutPatterns(part));
        }
        return route.isEmpty() ? "/" : route.toString();
    }

    /** {@code {ruc: (?!batch$)[^/]+}} is {@code {ruc}}: the parameter's name without its pattern. */
    static String withoutPatterns(String template) {
        StringBuilder out = new StringBuilder(template.length());
        for (int i = 0; i < template.length(); i++) {
            char c = template.charAt(i);
            if (c != '{') {
                out.append(c);
                continue;
            }
            int depth = 1;
            int j = i + 1;
            StringBuilder name = new StringBuilder();
            boolean inName = true;
            for (; j < template.length() && depth > 0; j++) {
                char d = template.charAt(j);
                if (d == '{') {
                    depth++;
                } else if (d == '}') {
                    depth--;
                } else if (d == ':' && depth == 1) {
                    inName = false;
                }
                if (inName && depth > 0) {
                    name.append(d);
                }
            }
            out.append('{').append(name.toString().strip()).append('}');
            i = j - 1;
        }
        return out.toString();
    }

    /** Notes the matched template on the request, after Jersey matched it; worked out once per resource method. */
    private static final class RouteTemplate implements ContainerRequestFilter {
        private final Map<ResourceMethod, String> templates = new ConcurrentHashMap<>();

        @Context
        private ExtendedUriInfo uriInfo;

        @Override
        public void filter(ContainerRequestContext request) {
            ResourceMethod method = uriInfo.getMatchedResourceMethod();
            String route = method == null ? template(uriInfo.getMatchedTemplates())
                    : templates.computeIfAbsent(method, m -> template(uriInfo.getMatchedTemplates()));
            request.setProperty(ROUTE, route);
        }
    }

    private static final class Filter extends HttpFilter {
        private final transient Observer observer;

        private Filter(Observer observer) {
            this.observer = observer;
        }

        @Override
        protected void doFilter(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            long started = System.nanoTime();
            try {
                chain.doFilter(request, response);
            } finally {
                observer.observe(route(request), request.getMethod(), response.getStatus(),
                        System.nanoTime() - started);
            }
        }

        private static String route(HttpServletRequest request) {
            if (request.getAttribute(ROUTE) instanceof String route) {
                return route;
            }
            HttpServletMapping mapping = request.getHttpServletMapping();
            String pattern = mapping == null ? null : mapping.getPattern();
            // Jersey's own mapping ("/*") says nothing: a request it did not match.
            return pattern == null || pattern.isEmpty() || pattern.equals("/*") || pattern.equals("/") ? UNMATCHED
                    : pattern;
        }
    }
}
