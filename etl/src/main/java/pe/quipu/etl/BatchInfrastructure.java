package pe.quipu.etl;

import org.jdbi.v3.core.Jdbi;
import org.springframework.batch.core.configuration.annotation.EnableBatchProcessing;
import org.springframework.batch.core.configuration.annotation.EnableJdbcJobRepository;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import pe.quipu.core.db.QuipuDatabase;
import pe.quipu.core.db.QuipuJdbi;
import pe.quipu.etl.run.StepTransaction;

import java.util.Properties;
import javax.sql.DataSource;

/**
 * Spring Batch over Quipu's own PostgreSQL: the job repository (the run history, tables created by the
 * migrations) and the jobs' connections. A batch run needs few connections and opens them rarely, so a plain
 * driver-manager data source does. The jobs reach the database through Jdbi, in one of two ways: {@link Jdbi},
 * whose every handle has a connection of its own and commits by itself, and {@link StepTransaction}, whose
 * handles join the running step's transaction.
 */
@Configuration(proxyBeanMethods = false)
@EnableBatchProcessing
@EnableJdbcJobRepository
class BatchInfrastructure {

    @Bean
    DataSource dataSource(QuipuDatabase database) {
        DriverManagerDataSource dataSource = new DriverManagerDataSource(database.jdbcUrl());
        Properties props = new Properties();
        props.setProperty("user", database.user());
        props.setProperty("password", database.password());
        props.setProperty("ApplicationName", QuipuDatabase.applicationName("etl"));
        dataSource.setConnectionProperties(props);
        return dataSource;
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
