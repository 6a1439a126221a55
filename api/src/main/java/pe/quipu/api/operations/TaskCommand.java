package pe.quipu.api.operations;

import io.dropwizard.core.Configuration;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.cli.ConfiguredCommand;
import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import net.sourceforge.argparse4j.inf.Namespace;
import net.sourceforge.argparse4j.inf.Subparser;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code task NAME [k=v …] config.yml}: runs an operator task on the running server's admin connector with the admin
 * token (contract §13), for operators: {@code ./quipu task set-plan email=ana@example.pe plan=pro config.yml}. Prints
 * the task's answer on standard output; a refusal exits 1 with the answer on standard error.
 */
public final class TaskCommand<C extends Configuration & TaskCommand.Configured> extends ConfiguredCommand<C> {

    /** What the command needs of the configuration. */
    public interface Configured {
        AdminSettings getAdminTasks();

        boolean isProduction();
    }

    private final Class<C> configurationClass;

    public TaskCommand(Class<C> configurationClass) {
        super("task", "Run an operator task on the running server: task NAME [name=value ...] config.yml");
        this.configurationClass = configurationClass;
    }

    @Override
    protected Class<C> getConfigurationClass() {
        return configurationClass;
    }

    /** One list of words: the task's name, its parameters, and the configuration file last. */
    @Override
    public void configure(Subparser subparser) {
        subparser.addArgument("words").nargs("+").metavar("NAME [name=value ...] config.yml")
                .help("the task, its parameters, and the configuration file of the server to run it on");
    }

    @Override
    public void run(Bootstrap<?> bootstrap, Namespace namespace) throws Exception {
        List<String> words = namespace.getList("words");
        if (words.size() < 2) {
            throw new IllegalArgumentException("usage: task NAME [name=value ...] config.yml");
        }
        Map<String, Object> attributes = new HashMap<>(namespace.getAttrs());
        attributes.put("file", words.getLast());
        attributes.put("task", words.getFirst());
        attributes.put("parameters", List.copyOf(words.subList(1, words.size() - 1)));
        super.run(bootstrap, new Namespace(attributes));
    }

    @Override
    protected void run(Bootstrap<C> bootstrap, Namespace namespace, C configuration) throws Exception {
        String task = namespace.getString("task");
        List<String> form = new ArrayList<>();
        for (Object parameter : namespace.getList("parameters")) {
            String text = parameter.toString();
            int equals = text.indexOf('=');
            if (equals < 1) {
                throw new IllegalArgumentException("a task parameter is name=value, got '" + text + "'");
            }
            form.add(encode(text.substring(0, equals)) + "=" + encode(text.substring(equals + 1)));
        }
        String token = AdminToken.read(Path.of(configuration.getAdminTasks().effectiveTokenFile()),
                configuration.getAdminTasks().getTokenFile().isBlank() ? "adminTasks.developmentTokenFile"
                        : "QUIPU_ADMIN_TOKEN_FILE");
        URI uri = URI.create(adminBase(configuration) + "/tasks/" + encode(task));
        HttpRequest request = HttpRequest.newBuilder(uri)
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .timeout(Duration.ofMinutes(10))
                .POST(HttpRequest.BodyPublishers.ofString(String.join("&", form)))
                .build();
        HttpResponse<String> response;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (ConnectException e) {
            throw new IllegalStateException("cannot reach the admin connector at " + uri.resolve("/")
                    + ": is the server running with this configuration?");
        } catch (IOException e) {
            throw new IllegalStateException("the task " + task + " did not answer: " + e.getMessage());
        }
        if (response.statusCode() / 100 != 2) {
            throw new IllegalStateException("the task " + task + " answered " + response.statusCode() + ": "
                    + response.body());
        }
        System.out.println(response.body());
    }

    /** A refusal is one line, not a stack trace. */
    @Override
    public void onError(Cli cli, Namespace namespace, Throwable e) {
        cli.getStdErr().println("quipu task: " + e.getMessage());
    }

    /** The admin connector's address: its bind host, or loopback when it listens on every interface. */
    static String adminBase(Configuration configuration) {
        if (!(configuration.getServerFactory() instanceof DefaultServerFactory server)
                || server.getAdminConnectors().isEmpty()) {
            throw new IllegalStateException("the configuration has no admin connector");
        }
        ConnectorFactory connector = server.getAdminConnectors().getFirst();
        if (!(connector instanceof HttpConnectorFactory http) || http.getClass() != HttpConnectorFactory.class) {
            throw new IllegalStateException("task speaks plain HTTP to the admin connector; configure it as type: http");
        }
        String host = http.getBindHost();
        if (host == null || host.isBlank() || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]")) {
            host = "127.0.0.1";
        } else if (host.contains(":") && !host.startsWith("[")) {
            host = "[" + host + "]";
        }
        if (http.getPort() == 0) {
            throw new IllegalStateException("the admin connector's port is 0 (a free one, chosen at start): set"
                    + " QUIPU_ADMIN_PORT");
        }
        return "http://" + host + ":" + http.getPort();
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }
}
