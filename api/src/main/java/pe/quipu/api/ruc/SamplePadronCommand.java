package pe.quipu.api.ruc;

import io.dropwizard.core.Configuration;
import net.sourceforge.argparse4j.inf.Namespace;
import org.jdbi.v3.core.Handle;
import pe.quipu.api.platform.OperatorCommand;
import pe.quipu.api.platform.Platform;
import pe.quipu.core.ruc.PadronRecord;
import pe.quipu.core.ruc.PadronSample;
import pe.quipu.core.ruc.RegistryUpsert;

import java.time.Clock;
import java.util.List;

/**
 * {@code sample-padron config.yml}: loads the 61 real padrón lines bundled with Quipu into the RUC registry,
 * so that the RUC endpoints can be tried before the padrón ETL job has run. Records already present and
 * unchanged keep their {@code actualizado}; running it twice changes nothing.
 */
public final class SamplePadronCommand<C extends Configuration & OperatorCommand.DatabaseConfigured>
        extends OperatorCommand<C> {

    public SamplePadronCommand(Class<C> configurationClass, Clock clock) {
        super("sample-padron", "Load the 61 real SUNAT padrón lines bundled with Quipu into the RUC registry",
                configurationClass, clock);
    }

    @Override
    protected void run(Namespace namespace, Platform platform, Handle handle) {
        List<PadronRecord> records = PadronSample.records();
        int written = RegistryUpsert.upsert(handle, records, platform.clock().instant());
        System.out.printf("sample-padron: %d records read, %d inserted or changed%n", records.size(), written);
    }
}
