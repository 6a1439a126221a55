package pe.quipu.api.platform;

import io.dropwizard.db.DataSourceFactory;
import pe.quipu.core.db.QuipuDatabase;

import java.util.Map;

/** Dropwizard connection pools over a {@link QuipuDatabase}. */
public final class DatabaseSupport {

    private DatabaseSupport() {
    }

    public static DataSourceFactory dataSourceFactory(QuipuDatabase database, String purpose, int maxConnections) {
        DataSourceFactory factory = new DataSourceFactory();
        factory.setDriverClass("org.postgresql.Driver");
        factory.setUrl(database.jdbcUrl());
        factory.setUser(database.user());
        factory.setPassword(database.password());
        factory.setMaxSize(maxConnections);
        factory.setMinSize(2);
        factory.setInitialSize(2);
        factory.setValidationQuery("/* quipu health check */ select 1");
        factory.setProperties(Map.of("ApplicationName", QuipuDatabase.applicationName(purpose)));
        return factory;
    }
}
