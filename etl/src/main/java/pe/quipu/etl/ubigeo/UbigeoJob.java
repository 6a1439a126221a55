package pe.quipu.etl.ubigeo;

import org.springframework.batch.core.job.Job;
import org.springframework.batch.core.job.builder.JobBuilder;
import org.springframework.batch.core.repository.JobRepository;
import org.springframework.batch.core.step.builder.StepBuilder;
import org.springframework.batch.infrastructure.repeat.RepeatStatus;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import pe.quipu.core.ubigeo.Ubigeo;
import pe.quipu.core.ubigeo.UbigeoCsv;
import pe.quipu.core.ubigeo.UbigeoTable;
import pe.quipu.etl.run.JobOptions;
import pe.quipu.etl.run.Progress;
import pe.quipu.etl.run.RunEvents;
import pe.quipu.etl.run.StepTransaction;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

/**
 * {@code ubigeo [--file PATH]}: the INEI catalogue (the bundled file by default) replaces the {@code ubigeos}
 * table in one transaction; every API instance reloads its in-memory copy when it commits. A file in which a
 * department or province code carries two names is refused whole. Phases ({@link Progress}): {@code stage} (the
 * catalogue read), {@code publish} (the table replaced).
 */
@Configuration(proxyBeanMethods = false)
public class UbigeoJob {

    @Bean(name = "ubigeo")
    Job ubigeo(JobRepository jobs, DataSourceTransactionManager transactions, StepTransaction stepTransaction,
               JobOptions options, Clock clock, RunEvents events, Progress progress) {
        return new JobBuilder("ubigeo", jobs)
                .listener(events)
                .start(new StepBuilder("replace-catalogue", jobs)
                        .tasklet((contribution, chunk) -> {
                            progress.enter(Progress.Phase.STAGE);
                            List<Ubigeo> districts = read(options.get("file"));
                            districts.forEach(d -> contribution.incrementReadCount());
                            progress.lines(districts.size(), 0);
                            progress.enter(Progress.Phase.PUBLISH);
                            // The tasklet's transaction: the replacement commits with the step, or not at all.
                            stepTransaction.useStep(handle -> UbigeoTable.replace(handle, districts, clock.instant()));
                            contribution.incrementWriteCount(districts.size());
                            return RepeatStatus.FINISHED;
                        }, transactions)
                        .listener(progress)
                        .build())
                .build();
    }

    private static List<Ubigeo> read(String file) throws Exception {
        if (file == null) {
            return UbigeoCsv.bundled();
        }
        try (InputStream in = Files.newInputStream(Path.of(file))) {
            return UbigeoCsv.read(in);
        }
    }
}
