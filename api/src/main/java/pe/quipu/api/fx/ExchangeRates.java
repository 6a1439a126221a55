package pe.quipu.api.fx;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.platform.ExactCache;
import pe.quipu.api.platform.Platform;
import pe.quipu.core.fx.BcrpClient;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.fx.ExchangeRate;

/**
 * The exchange-rate feature assembled: answered from the database, fetched from BCRP on demand, captured on a
 * schedule. Dates before a series starts, and dates BCRP recently said have nothing on or before them, are 404 at
 * once; answers proven for good are kept in memory, exact by notification.
 */
public final class ExchangeRates {

    private ExchangeRates() {
    }

    public static void serve(Platform platform, Environment environment, BcrpSettings bcrp) {
        ExactCache<ExchangeRateService.Asked, ExchangeRate> proven =
                ExchangeRateService.cache(platform.notifications()::isListening);
        platform.notifications().on(ExchangeRateService.CHANGED_CHANNEL, payload -> proven.changed(),
                proven::changed);
        ExchangeRateService rates = new ExchangeRateService(new ExchangeRateStore(platform.jdbi()),
                new BcrpClient(bcrp, platform.clock()), platform.clock(), bcrp.captureInterval(), bcrp.seriesStarts(),
                bcrp.emptyAnswerMemory(), proven);
        environment.jersey().register(new TipoCambioResource(rates, platform.json()));
        platform.manage(new RateCapture(rates, platform.clock(), bcrp.captureInterval(), bcrp.captureEnabled()));
    }
}
