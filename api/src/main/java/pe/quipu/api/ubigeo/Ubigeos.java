package pe.quipu.api.ubigeo;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.platform.Platform;
import pe.quipu.core.ubigeo.Ubigeo;
import pe.quipu.core.ubigeo.UbigeoTable;

import java.util.Optional;

/**
 * The ubigeo feature assembled: INEI's catalogue in memory (seeded from the bundled file when the table is empty,
 * loaded before the connectors open, reloaded without a restart when the ETL's ubigeo job replaces the table), and
 * {@code /v1/ubigeos}.
 */
public final class Ubigeos {

    private final UbigeoDirectory directory;

    public Ubigeos(Platform platform, Environment environment) {
        directory = new UbigeoDirectory(platform.jdbi());
        platform.notifications().on(UbigeoTable.CHANGED_CHANNEL, payload -> directory.reload(), directory::reload);
        platform.manage(directory);
        environment.jersey().register(new UbigeoResource(directory, platform.json()));
    }

    /** The district of this code in the catalogue in service. */
    public Optional<Ubigeo> find(String code) {
        return directory.catalogue().find(code);
    }
}
