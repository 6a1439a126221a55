package pe.quipu.etl;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.jdbi.v3.core.Jdbi;
import org.springframework.batch.core.configuration.annotation.EnableBatchProcessing;
import org.springframework.batch.core.configuration.annotation.EnableJdbcJobRepository;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import pe.quipu.core.db.QuipuDatabase;
import pe.quipu.core.db.QuipuJdbi;
import pe.quipu.etl.run.StepTransaction;

import javax.sql.DataSource;

/**
 * Spring Batch over Quipu's own PostgreSQL: the job repository (the run history, tables created by the
 * migrations) and the jobs' connections. The jobs reach the database through Jdbi, in one of two ways: {@link Jdbi},
 * whose every handle has a connection of its own and commits by itself, and {@link StepTransaction}, whose
 * handles join the running step's transaction.
 *
 * <p>The connections are pooled (HikariCP), a few at most, none kept open beforehand: the job repository alone takes
 * and gives back a connection for each of its writes, and a new connection to a server that asks for a password
 * (the embedded one does) costs a SCRAM exchange, 4,096 rounds of PBKDF2 on the client, which a JVM that has just
 * started runs slowly. A padrón run opened 42 connections, about 2 s of its start and end, before the pool.
 */
@Configuration(proxyBeanMethods = false)
@EnableBatchProcessing
@EnableJdbcJobRepository
class BatchInfrastructure {

    /** Connections a run holds at once at most: its lock's, the job repository's, and a step's few. */
    static final int CONNECTIONS = 8;

    @Bean(destroyMethod = "close")
    HikariDataSource dataSource(QuipuDatabase database) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("quipu-etl");
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.user());
        config.setPassword(database.password());
        config.addDataSourceProperty("ApplicationName", QuipuDatabase.applicationName("etl"));
        config.setMaximumPoolSize(CONNECTIONS);
        // Opened when first needed and kept for the run (which closes the pool at its end), never ahead of need.
        config.setMinimumIdle(0);
        config.setIdleTimeout(0);
        config.setMaxLifetime(0);
        return new HikariDataSource(config);
    }

    @Bean
    DataSourceTransactionManager transactionManager(DataSource dataSource) {
        return new DataSourceTransactionManager(dataSource);
    }

    @Bean
    Jdbi jdbi(DataSource dataSource) {
        return QuipuJdbi.configure(Jdbi.create(dataSource));
    }

    @Bean
    StepTransaction stepTransaction(DataSource dataSource) {
        return new StepTransaction(dataSource);
    }
}
