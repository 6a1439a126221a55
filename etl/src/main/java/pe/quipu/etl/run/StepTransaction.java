package pe.quipu.etl.run;

import org.jdbi.v3.core.ConnectionFactory;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.HandleConsumer;
import org.jdbi.v3.core.Handles;
import org.jdbi.v3.core.Jdbi;
import org.springframework.jdbc.datasource.DataSourceUtils;
import pe.quipu.core.db.QuipuJdbi;

import java.sql.Connection;
import javax.sql.DataSource;

/**
 * The transaction of the running step, for a tasklet whose writes must commit with its step or not at all: Jdbi
 * handles on the connection Spring Batch bound to the step's transaction. Jdbi neither commits, rolls back nor
 * closes that connection; the step's transaction manager does.
 */
public final class StepTransaction {

    private final Jdbi jdbi;

    public StepTransaction(DataSource dataSource) {
        jdbi = QuipuJdbi.configure(Jdbi.create(new ConnectionFactory() {
            @Override
            public Connection openConnection() {
                return DataSourceUtils.getConnection(dataSource);
            }

            @Override
            public void closeConnection(Connection connection) {
                DataSourceUtils.releaseConnection(connection, dataSource);
            }
        }));
        // The transaction is still open when a handle closes: it is the step's, ended by Spring Batch.
        jdbi.getConfig(Handles.class).setForceEndTransactions(false);
    }

    /** Runs {@code work} in the step's transaction and returns what it returns. */
    public <R, X extends Exception> R inStep(HandleCallback<R, X> work) throws X {
        return jdbi.withHandle(work);
    }

    /** Runs {@code work} in the step's transaction. */
    public <X extends Exception> void useStep(HandleConsumer<X> work) throws X {
        jdbi.useHandle(work);
    }
}
