package pe.quipu.api.watchlists;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.plans.AccountLimitsCache;
import pe.quipu.api.platform.Platform;
import pe.quipu.core.ruc.ChangesSettings;

/**
 * The watchlists feature assembled (contract §11): the {@code /v1/watchlists} API. The {@code ruc.changed} events
 * are written by the loads themselves ({@link pe.quipu.core.watchlists.WatchedChanges}) and delivered by the
 * webhooks' worker; the export, deletion and purge of the lists belong to the privacy and accounts features.
 */
public final class Watchlists {

    private Watchlists() {
    }

    /** @param changes the change log's settings: its retention bounds {@code since} */
    public static void serve(Platform platform, Environment environment, AccountLimitsCache limits,
                             ChangesSettings changes) {
        environment.jersey().register(new WatchlistsResource(new AccountWatchlists(platform.jdbi(), platform.clock(),
                platform.json(), limits, changes.retention()), new WatchlistBody(platform.json())));
    }
}
