package pe.quipu.api.ubigeo;

import io.dropwizard.lifecycle.Managed;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.core.ubigeo.Ubigeo;
import pe.quipu.core.ubigeo.UbigeoCatalogue;
import pe.quipu.core.ubigeo.UbigeoCsv;
import pe.quipu.core.ubigeo.UbigeoTable;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The ubigeo catalogue this instance serves, held in memory. The {@code ubigeos} table is the source of truth:
 * on start the bundled INEI file is written into an empty table (contract §1: a first start needs no manual step),
 * then the table is read; {@link #reload()}
 * reads it again (for the ETL, after it replaces the table) and swaps the catalogue in one step, so a request
 * sees either the old catalogue or the new one, never a mix.
 *
 * <p>Managed so that it is loaded after the connection pool starts and before Jetty opens its connectors.
 */
public final class UbigeoDirectory implements Managed {

    private static final Logger LOG = LoggerFactory.getLogger(UbigeoDirectory.class);

    private final Jdbi jdbi;
    private final AtomicReference<UbigeoCatalogue> current = new AtomicReference<>();

    public UbigeoDirectory(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    @Override
    public void start() {
        // Under the table's lock, so that instances starting together insert the catalogue exactly once.
        int seeded = jdbi.inTransaction(h -> UbigeoTable.seedIfEmpty(h, UbigeoCsv.bundled()));
        if (seeded > 0) {
            LOG.info("Loaded the bundled INEI catalogue into the empty ubigeos table: {} districts", seeded);
        }
        UbigeoCatalogue catalogue = reload();
        LOG.info("Serving {} ubigeos", catalogue.size());
    }

    /** The catalogue in service. */
    public UbigeoCatalogue catalogue() {
        UbigeoCatalogue catalogue = current.get();
        if (catalogue == null) {
            throw new IllegalStateException("the ubigeo catalogue is not loaded yet");
        }
        return catalogue;
    }

    /** Reads the whole table (one statement, so one consistent snapshot) and puts it in service. */
    public UbigeoCatalogue reload() {
        List<Ubigeo> rows = jdbi.withHandle(UbigeoTable::all);
        UbigeoCatalogue catalogue = UbigeoCatalogue.of(rows);
        current.set(catalogue);
        return catalogue;
    }
}
