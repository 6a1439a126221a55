package pe.quipu.etl;

import org.springframework.batch.core.configuration.annotation.EnableBatchProcessing;
import org.springframework.batch.core.configuration.annotation.EnableJdbcJobRepository;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import pe.quipu.core.db.QuipuDatabase;

import javax.sql.DataSource;
import java.util.Properties;

/**
 * Spring Batch over Quipu's own PostgreSQL: the job repository (the run history, tables created by the
 * migrations) and the jobs' connections. A batch run needs few connections and opens them rarely, so a plain
 * driver-manager data source does.
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
}
