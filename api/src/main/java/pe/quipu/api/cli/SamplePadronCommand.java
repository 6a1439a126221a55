package pe.quipu.api.cli;

import io.dropwizard.core.setup.Bootstrap;
import net.sourceforge.argparse4j.inf.Namespace;
import pe.quipu.api.QuipuConfiguration;
import pe.quipu.core.ruc.PadronRecord;
import pe.quipu.core.ruc.PadronSample;
import pe.quipu.core.ruc.RegistryUpsert;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.util.List;

/**
 * {@code sample-padron config.yml}: loads the 61 real padrón lines bundled with Quipu into the RUC registry,
 * so that the RUC endpoints can be tried before the padrón ETL job has run. Records already present and
 * unchanged keep their {@code actualizado}; running it twice changes nothing.
 */
public final class SamplePadronCommand extends OperatorCommand {

    public SamplePadronCommand(Clock clock) {
        super("sample-padron", "Load the 61 real SUNAT padrón lines bundled with Quipu into the RUC registry", clock);
    }

    @Override
    protected void run(Namespace namespace, Bootstrap<QuipuConfiguration> bootstrap, Connection connection)
            throws SQLException {
        List<PadronRecord> records = PadronSample.records();
        int written = RegistryUpsert.upsert(connection, records, clock.instant());
        System.out.printf("sample-padron: %d records read, %d inserted or changed%n", records.size(), written);
    }
}
