package pe.quipu.api.openapi;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The OpenAPI document makes a working SDK: openapi-generator writes a Java client (library {@code native},
 * java.net.http) from the document a running Quipu serves, javax.tools compiles it with a small program that uses
 * it, and that program looks a RUC up and sends a batch with a real key.
 *
 * <p>The generator is openapi-generator-cli's jar (copied into target/openapi-generator by the build), run in a JVM
 * of its own: its libraries (swagger-parser, its own Jackson and Guava) never share a class path with Dropwizard's.
 * The client is compiled against the tests' class path (Jackson, jakarta.annotation) and loaded by a class loader of
 * its own.
 */
class GeneratedClientTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    private static final Path GENERATOR = Path.of("target", "openapi-generator", "openapi-generator-cli.jar");
    private static final Path WORK = Path.of("target", "generated-client");

    /** Uses the generated API as a developer would: RucApi's lookup and batch, the key in a request interceptor. */
    private static final String PROGRAM = """
            package pe.quipu.client;

            import pe.quipu.client.api.RucApi;
            import pe.quipu.client.model.BatchEntry;
            import pe.quipu.client.model.BatchEntryError;
            import pe.quipu.client.model.BatchEntryOk;
            import pe.quipu.client.model.BatchRequest;
            import pe.quipu.client.model.BatchResult;
            import pe.quipu.client.model.RucRecord;

            import java.util.ArrayList;
            import java.util.List;
            import java.util.function.Function;

            public final class Program implements Function<String[], String> {
                @Override
                public String apply(String[] args) {
                    ApiClient client = new ApiClient();
                    client.updateBaseUri(args[0]);
                    client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + args[1]));
                    RucApi ruc = new RucApi(client);
                    try {
                        RucRecord record = ruc.getRuc(args[2], null, null); // no If-None-Match, no include
                        BatchResult batch = ruc.batchRuc(new BatchRequest().rucs(List.of(args[2], args[3])));
                        List<String> entries = new ArrayList<>();
                        for (BatchEntry entry : batch.getResults()) {
                            Object actual = entry.getActualInstance();
                            if (actual instanceof BatchEntryOk ok) {
                                entries.add("ok " + ok.getRuc() + " " + ok.getData().getRazonSocial());
                            } else if (actual instanceof BatchEntryError error) {
                                entries.add("error " + error.getRuc() + " " + error.getError().getType());
                            }
                        }
                        return record.getRuc() + " | " + record.getRazonSocial() + " | " + record.getActualizado().toInstant()
                                + " | " + batch.getTotal() + " " + batch.getOk() + " " + batch.getErrors() + " | "
                                + String.join(" | ", entries);
                    } catch (ApiException e) {
                        return "ApiException " + e.getCode() + ": " + e.getResponseBody();
                    }
                }
            }
            """;

    @BeforeAll
    static void load() {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
    }

    @Test
    void a_generated_java_client_looks_a_ruc_up_and_sends_a_batch() throws Exception {
        assertThat(GENERATOR).as("openapi-generator-cli, copied by the build (mvn generate-test-resources)").exists();
        deleteRecursively(WORK);
        Files.createDirectories(WORK);

        // The document as the running Quipu serves it.
        HttpResponse<String> document = quipu.get("/v1/openapi.yaml", null);
        assertThat(document.statusCode()).isEqualTo(200);
        Path spec = WORK.resolve("openapi.yaml");
        Files.writeString(spec, document.body(), StandardCharsets.UTF_8);

        Path out = WORK.resolve("client");
        generate(spec, out);
        Path classes = compile(out.resolve("src/main/java"));

        String key = quipu.accounts.newKey(Scope.RUC_READ);
        String unknown = "20000000001";
        try (URLClassLoader loader = new URLClassLoader(new URL[]{classes.toUri().toURL()},
                GeneratedClientTest.class.getClassLoader())) {
            @SuppressWarnings("unchecked")
            Function<String[], String> program = (Function<String[], String>) loader
                    .loadClass("pe.quipu.client.Program").getDeclaredConstructor().newInstance();
            String answer = program.apply(new String[]{quipu.uri("").toString(), key, "20100227461", unknown});
            assertThat(answer).isEqualTo("20100227461 | TRANSPORTES CRUZ DEL SUR S.A.C. | " + QuipuExtension.START
                    + " | 2 1 1 | ok 20100227461 TRANSPORTES CRUZ DEL SUR S.A.C. | error " + unknown + " not_found");
        }
    }

    /** openapi-generator-cli in a JVM of its own; its output in target/generated-client/generator.log. */
    private static void generate(Path spec, Path out) throws IOException, InterruptedException {
        Path log = WORK.resolve("generator.log");
        List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(), "-jar",
                GENERATOR.toAbsolutePath().toString(), "generate",
                "-i", spec.toAbsolutePath().toString(),
                "-g", "java", "--library", "native",
                "-o", out.toAbsolutePath().toString(),
                "--api-package", "pe.quipu.client.api",
                "--model-package", "pe.quipu.client.model",
                "--invoker-package", "pe.quipu.client",
                "--global-property", "apiTests=false,modelTests=false,apiDocs=false,modelDocs=false",
                "--additional-properties", "useJakartaEe=true,openApiNullable=false,useOneOfDiscriminatorLookup=true,"
                        + "hideGenerationTimestamp=true,annotationLibrary=none");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("openapi-generator did not finish in 3 minutes; see " + log);
        }
        assertThat(process.exitValue()).as("openapi-generator's exit code; its output:\n%s",
                Files.readString(log)).isZero();
    }

    /** Compiles the generated sources and the program in-process; fails with the compiler's errors. */
    private static Path compile(Path sources) throws IOException {
        Path program = sources.resolve("pe/quipu/client/Program.java");
        Files.writeString(program, PROGRAM, StandardCharsets.UTF_8);
        List<Path> files;
        try (Stream<Path> walk = Files.walk(sources)) {
            files = walk.filter(p -> p.toString().endsWith(".java")).toList();
        }
        Path classes = WORK.resolve("classes");
        Files.createDirectories(classes);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files2 = compiler.getStandardFileManager(diagnostics, null,
                StandardCharsets.UTF_8)) {
            List<String> options = List.of("-d", classes.toString(), "-classpath",
                    System.getProperty("java.class.path"), "-proc:none", "-nowarn", "-encoding", "UTF-8");
            boolean compiled = compiler.getTask(null, files2, diagnostics, options, null,
                    files2.getJavaFileObjectsFromPaths(files)).call();
            List<String> errors = new ArrayList<>();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() == Diagnostic.Kind.ERROR) {
                    errors.add(d.toString());
                }
            }
            assertThat(errors).as("compiler errors").isEmpty();
            assertThat(compiled).isTrue();
        }
        return classes;
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
