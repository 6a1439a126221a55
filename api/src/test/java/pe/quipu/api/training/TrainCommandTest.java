package pe.quipu.api.training;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pe.quipu.api.plans.PlanSettings;
import pe.quipu.core.testing.ChildJvm;
import pe.quipu.core.testing.JarredClassPath;
import pe.quipu.core.ruc.Ruc;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The training run of the JVM's AOT cache ({@code ./quipu} runs it once per build): in a JVM of its own, as the
 * launcher runs it, it must exit 0 and leave a cache that a later JVM maps and loads Quipu's classes from; a cache the
 * JVM cannot read must not stop a start; and a training whose requests fail must fail.
 */
class TrainCommandTest {

    private static final Duration TRAINING_LIMIT = Duration.ofMinutes(3);
    private static final List<String> JVM = List.of("-Xmx128m");

    @TempDir
    Path work;

    private HttpServer stub;

    @AfterEach
    void cleanUp() {
        if (stub != null) {
            stub.stop(0);
        }
    }

    @Test
    void a_training_run_writes_a_cache_that_a_later_jvm_loads_quipus_classes_from() throws Exception {
        String classPath = JarredClassPath.of(work);
        Path cache = work.resolve("quipu-api.aot");
        Path trainingLog = work.resolve("train.log");

        int trained = run(trainingLog, TRAINING_LIMIT, classPath, List.of("-XX:AOTCacheOutput=" + cache),
                "train", "--seconds", "3", "--requests", "0", "--clients", "4", config());

        String training = Files.readString(trainingLog);
        assertThat(trained).as(training).isZero();
        assertThat(training).contains("train: the API started").containsPattern("train: \\d+ requests in");
        assertThat(cache).as(training).isRegularFile();
        assertThat(Files.size(cache)).isGreaterThan(1 << 20);

        // AOTMode=on: a JVM that cannot use the cache exits with an error instead of going on without it.
        Path useLog = work.resolve("use.log");
        int used = run(useLog, Duration.ofMinutes(1), classPath,
                List.of("-XX:AOTCache=" + cache, "-XX:AOTMode=on", "-Xlog:aot", "-Xlog:class+load=info"), "check",
                config());
        String use = Files.readString(useLog);
        assertThat(used).as(use).isZero();
        assertThat(use).contains("Using AOT-linked classes: true")
                .contains("pe.quipu.api.QuipuApplication source: shared objects file");
    }

    @Test
    void a_cache_the_jvm_cannot_read_is_skipped_and_the_command_runs() throws Exception {
        Path garbage = Files.writeString(work.resolve("garbage.aot"), "not an AOT cache");
        Path log = work.resolve("garbage.log");

        int exit = run(log, Duration.ofMinutes(1), JarredClassPath.of(work), List.of("-XX:AOTCache=" + garbage),
                "check", config());

        // check exits 1 when it cannot read the configuration; the JVM says why it left the cache aside.
        assertThat(exit).as(Files.readString(log)).isZero();
        assertThat(Files.readString(log)).contains("[aot]");
    }

    @Test
    void a_training_load_that_gets_a_server_error_fails_naming_the_answer() throws Exception {
        stub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        stub.createContext("/tasks/set-plan", exchange -> answer(exchange, 200, "{}"));
        stub.createContext("/", exchange -> answer(exchange, 500,
                "{\"type\":\"internal_error\",\"status\":500}"));
        stub.start();
        int port = stub.getAddress().getPort();
        TrainingLoad load = new TrainingLoad(port, port, "admin-token", "qk_live_x", new TrainingData.Plan("enterprise", 500),
                new ObjectMapper(), LocalDate.now());

        assertThatThrownBy(() -> load.run(Duration.ofSeconds(1), 0, 2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("answered 500 instead of 200");
    }

    @Test
    void unknown_rucs_are_valid_and_outside_the_sample() {
        List<String> unknown = TrainingLoad.unknownRucs(Set.of("20100227461"), 40);

        assertThat(unknown).hasSize(40).doesNotContain("20100227461")
                .allSatisfy(ruc -> assertThat(Ruc.parse(ruc).value()).isEqualTo(ruc));
    }

    @Test
    void the_training_account_goes_on_the_plan_with_the_largest_batch_cap() {
        assertThat(TrainingData.largestBatchPlan(Map.of(
                "free", plan(10), "pro", plan(200), "enterprise", plan(500), "starter", plan(50))))
                .isEqualTo(new TrainingData.Plan("enterprise", 500));
    }

    private static PlanSettings plan(int batchCap) {
        try {
            return new ObjectMapper().readValue("{\"monthlyQuota\":1000,\"rateLimitRpm\":60,\"batchCap\":" + batchCap
                    + ",\"webhookEndpoints\":0}", PlanSettings.class);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void answer(com.sun.net.httpserver.HttpExchange exchange, int status, String body)
            throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** {@code java -Xmx128m <options> -cp <classPath> pe.quipu.api.QuipuApplication <args>}: {@link ChildJvm#run}. */
    private static int run(Path log, Duration limit, String classPath, List<String> options, String... args)
            throws IOException, InterruptedException {
        List<String> jvm = new ArrayList<>(JVM);
        jvm.addAll(options);
        return ChildJvm.run(log, limit, jvm, classPath, "pe.quipu.api.QuipuApplication", args);
    }

    private static String config() {
        return Path.of("..", "config.yml").toAbsolutePath().toString();
    }
}
