package pe.quipu.etl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import pe.quipu.core.testing.ChildJvm;
import pe.quipu.core.testing.JarredClassPath;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The training run of the ETL's AOT cache ({@code ./quipu} runs it once per build): in a JVM of its own, as the
 * launcher runs it, every job must succeed on a database of its own (whatever the environment names), the folder
 * must be gone afterwards, and a later JVM must load the ETL's classes from the cache it leaves.
 */
class EtlTrainingTest {

    private static final Duration TRAINING_LIMIT = Duration.ofMinutes(3);

    @TempDir
    Path work;

    @Test
    void a_training_run_loads_every_job_on_its_own_database_and_leaves_a_cache_a_later_jvm_uses() throws Exception {
        String classPath = JarredClassPath.of(work);
        Path cache = work.resolve("quipu-etl.aot");
        Path folder = work.resolve("train");
        Path trainingLog = work.resolve("train.log");

        int trained = run(trainingLog, TRAINING_LIMIT, classPath, List.of("-XX:AOTCacheOutput=" + cache),
                EtlTraining.class.getName(), "--work-dir", folder.toString(), config());

        String training = Files.readString(trainingLog);
        assertThat(trained).as(training).isZero();
        assertThat(training).contains("padron succeeded: read " + EtlTraining.ROWS + ", written " + EtlTraining.ROWS)
                .contains("(difference: ", "difference: 0 added, 0 changed, 0 removed")
                .contains("agentes-retencion succeeded", "buenos-contribuyentes succeeded",
                        "agentes-percepcion succeeded", "agentes-percepcion-combustibles succeeded",
                        "locales-anexos succeeded", "ubigeo succeeded: read 1891")
                .doesNotContain("192.0.2.1");
        assertThat(folder).as("the training's folder, database and files, deleted").doesNotExist();
        assertThat(cache).as(training).isRegularFile();

        // AOTMode=on: a JVM that cannot use the cache exits with an error instead of going on without it.
        Path useLog = work.resolve("use.log");
        int used = run(useLog, Duration.ofMinutes(1), classPath,
                List.of("-XX:AOTCache=" + cache, "-XX:AOTMode=on", "-Xlog:class+load=info"),
                QuipuEtl.class.getName(), "--help");
        String use = Files.readString(useLog);
        assertThat(used).as(use).isZero();
        assertThat(use).contains("pe.quipu.etl.QuipuEtl source: shared objects file", "usage: ./quipu etl <job>");
    }

    @Test
    void a_work_folder_that_exists_is_refused_before_anything_runs() throws IOException {
        Path existing = Files.createDirectory(work.resolve("existing"));
        Path kept = Files.writeString(existing.resolve("kept.txt"), "an operator's file");

        assertThatThrownBy(() -> EtlTraining.train(existing, Path.of(config()), System.out, System.err))
                .isInstanceOf(FileAlreadyExistsException.class);
        assertThat(kept).hasContent("an operator's file");
    }

    /** {@code java -Xmx256m <options> -cp <classPath> <main> <args>}: {@link ChildJvm#run}. */
    private static int run(Path log, Duration limit, String classPath, List<String> options, String main,
                           String... args) throws IOException, InterruptedException {
        List<String> jvm = new ArrayList<>(List.of("-Xmx256m"));
        jvm.addAll(options);
        return ChildJvm.run(log, limit, jvm, classPath, main, args);
    }

    private static String config() {
        return Path.of("..", "config.yml").toAbsolutePath().toString();
    }
}
