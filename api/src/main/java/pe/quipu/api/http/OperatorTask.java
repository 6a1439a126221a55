package pe.quipu.api.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.core.setup.AdminEnvironment;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException;
import pe.quipu.api.domain.Text;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * An operator task on the admin connector (contract §1): {@code POST /tasks/<name>} with its parameters in the query
 * string or a form body ({@code curl -d}). It answers 200 with a JSON summary, or Problem Details with 400 (a missing,
 * malformed, repeated or unknown parameter), 404 (no such account), 405 or 409, having changed nothing.
 *
 * <p>Why not a Dropwizard {@code Task}: Dropwizard 5's {@code TaskServlet} answers 500, and logs an error, for any
 * exception a task throws, and a task cannot set its status. Each operator task is therefore a servlet mapped at its
 * exact path, which the servlet container prefers to {@code TaskServlet}'s {@code /tasks/*}; Dropwizard's own tasks
 * ({@code gc}, {@code log-level}) are unaffected, and {@code GET /tasks} lists only those.
 */
public abstract class OperatorTask extends HttpServlet {

    private static final Logger LOG = LoggerFactory.getLogger(OperatorTask.class);
    private static final int MAX_BODY = 8192;
    private static final Pattern DIGITS = Pattern.compile("[0-9]{1,18}");

    private final String name;
    private final List<String> parameterNames;
    private final transient ObjectMapper json;

    protected OperatorTask(String name, List<String> parameterNames, ObjectMapper json) {
        this.name = name;
        this.parameterNames = List.copyOf(parameterNames);
        this.json = json;
    }

    public final String name() {
        return name;
    }

    /** Serves this task at {@code /tasks/<name>} on the admin connector. */
    public final void addTo(AdminEnvironment admin) {
        admin.addServlet("operator-task-" + name, this).addMapping("/tasks/" + name);
    }

    /** Does the task's work with its parameters (already checked against its names); returns the JSON answer. */
    protected abstract Object run(Parameters parameters);

    @Override
    protected final void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (!"POST".equals(request.getMethod())) {
            response.setHeader("Allow", "POST");
            writeProblem(response, Problem.of(ProblemType.METHOD_NOT_ALLOWED, Text.of("http.task.post_only")));
            return;
        }
        Object answer;
        try {
            answer = run(new Parameters(parameters(request)));
        } catch (DomainException refusal) {
            writeProblem(response, ProblemResponses.problem(refusal));
            return;
        } catch (ApiProblem problem) {
            writeProblem(response, problem.problem());
            return;
        } catch (RuntimeException e) {
            LOG.error("Task {} failed", name, e);
            writeProblem(response, Problem.of(ProblemType.INTERNAL_ERROR, Text.of("http.task.failed")));
            return;
        }
        response.setStatus(200);
        response.setContentType("application/json");
        response.setHeader("Cache-Control", "no-store");
        json.writeValue(response.getOutputStream(), answer);
    }

    private void writeProblem(HttpServletResponse response, Problem problem) throws IOException {
        response.setStatus(problem.status());
        response.setContentType(Problem.MEDIA_TYPE);
        response.setHeader("Cache-Control", "no-store");
        response.setHeader("Content-Language", RequestLanguage.current().tag());
        json.writeValue(response.getOutputStream(), problem);
    }

    /** The query string's and the form body's parameters, strictly: unknown or repeated names are refused. */
    private Map<String, String> parameters(HttpServletRequest request) throws IOException {
        Map<String, List<String>> given;
        try {
            given = StrictQueryString.parse(request.getQueryString());
            String body = body(request);
            if (!body.isEmpty()) {
                String type = request.getContentType() == null ? "" : request.getContentType().toLowerCase();
                if (!type.startsWith("application/x-www-form-urlencoded")) {
                    throw ApiProblem.of(ProblemType.UNSUPPORTED_MEDIA_TYPE, Text.of("http.task.form_only"));
                }
                StrictQueryString.parse(body.strip()).forEach((n, values) ->
                        given.computeIfAbsent(n, k -> new java.util.ArrayList<>()).addAll(values));
            }
        } catch (StrictQueryString.Malformed e) {
            throw InvalidInput.of(Text.of("http.task.parameters_malformed", e.reason()));
        }
        Map<String, String> single = new LinkedHashMap<>();
        for (var parameter : given.entrySet()) {
            String n = parameter.getKey();
            if (!parameterNames.contains(n)) {
                throw new InvalidInput(n, parameterNames.isEmpty()
                        ? Text.of("http.task.unknown_takes_none", name)
                        : Text.of("http.task.unknown_takes", name, String.join(", ", parameterNames)));
            }
            if (parameter.getValue().size() > 1) {
                throw new InvalidInput(n, Text.of("http.task.repeated", parameter.getValue().size()));
            }
            String value = parameter.getValue().getFirst();
            Text fault = TextInput.fault(value);
            if (fault != null) {
                throw new InvalidInput(n, fault);
            }
            single.put(n, value);
        }
        return single;
    }

    private static String body(HttpServletRequest request) throws IOException {
        try (InputStream in = request.getInputStream()) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                throw ApiProblem.of(ProblemType.PAYLOAD_TOO_LARGE, Text.of("http.task.body_too_large", MAX_BODY));
            }
            return new String(bytes, StandardCharsets.UTF_8);
        }
    }

    /** A task's parameters by name, each given at most once, with typed readers that answer 400 for bad values. */
    public static final class Parameters {
        private final Map<String, String> values;

        Parameters(Map<String, String> values) {
            this.values = values;
        }

        public String required(String name) {
            String value = values.get(name);
            if (value == null || value.isBlank()) {
                throw new InvalidInput(name, Text.of("http.task.required"));
            }
            return value.strip();
        }

        /** A non-negative whole number, or null when absent. */
        public Long nonNegativeLong(String name) {
            String value = values.get(name);
            if (value == null) {
                return null;
            }
            if (!DIGITS.matcher(value).matches()) {
                throw new InvalidInput(name, Text.of("http.task.not_whole_number", value));
            }
            return Long.parseLong(value);
        }

        /** A non-negative whole number up to 2147483647, or null when absent. */
        public Integer nonNegativeInt(String name) {
            Long value = nonNegativeLong(name);
            if (value == null) {
                return null;
            }
            if (value > Integer.MAX_VALUE) {
                throw new InvalidInput(name, Text.of("http.task.too_big", Integer.MAX_VALUE));
            }
            return value.intValue();
        }

        /** {@code true} or {@code false}; {@code fallback} when absent. */
        public boolean flag(String name, boolean fallback) {
            String value = values.get(name);
            if (value == null) {
                return fallback;
            }
            return switch (value) {
                case "true" -> true;
                case "false" -> false;
                default -> throw new InvalidInput(name, Text.of("http.task.not_boolean", value));
            };
        }
    }
}
