package pe.quipu.api.privacy;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.metering.UsageMeter;
import pe.quipu.api.plans.Plans;
import pe.quipu.api.platform.Platform;

/** The personal-data feature assembled: the account holder's export (Ley 29733), one per 24 hours, streamed. */
public final class Privacy {

    private Privacy() {
    }

    public static void serve(Platform platform, Environment environment, PrivacySettings settings, Plans plans,
                             UsageMeter meter) {
        environment.jersey().register(new ExportResource(new PersonalDataExport(platform.jdbi(), platform.clock(),
                platform.json(), platform.audit(), settings, plans.table(), plans.limits(), meter)));
    }
}
