package pe.quipu.api.fx;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.platform.ExactCache;
import pe.quipu.api.platform.Platform;
import pe.quipu.core.fx.BcrpClient;
import pe.quipu.core.fx.BcrpSettings;
import pe.quipu.core.fx.ExchangeRate;
import pe.quipu.core.fx.Fuente;
import pe.quipu.core.fx.RateSeries;
import pe.quipu.core.fx.SunatClient;
import pe.quipu.core.fx.SunatFxSettings;

import java.util.List;
import java.util.stream.Stream;

/**
 * The exchange-rate feature assembled: BCRP's, SBS's and SUNAT's rates, answered from the database, fetched on
 * demand (BCRP's and SBS's from BCRP's API, SUNAT's from its publication), captured on a schedule per source. Dates
 * before a series starts, and dates a source recently said have nothing on or before them, are 404 at once; answers
 * and ranges proven for good are kept in memory, exact by notification.
 */
public final class ExchangeRates {

    private ExchangeRates() {
    }

    public static void serve(Platform platform, Environment environment, BcrpSettings bcrp, SunatFxSettings sunat) {
        ExactCache<ExchangeRateService.Asked, ExchangeRate> proven =
                ExchangeRateService.cache(platform.notifications()::isListening);
        ExactCache<ExchangeRateService.Range, List<ExchangeRate>> ranges =
                ExchangeRateService.rangeCache(platform.notifications()::isListening);
        platform.notifications().on(ExchangeRateService.CHANGED_CHANNEL, payload -> {
            proven.changed();
            ranges.changed();
        }, () -> {
            proven.changed();
            ranges.changed();
        });
        ExchangeRateService rates = new ExchangeRateService(new ExchangeRateStore(platform.jdbi()),
                ExchangeRateService.upstreams(
                        new ExchangeRateService.Upstream(new BcrpClient(bcrp, platform.clock()), bcrp.captureInterval(),
                                bcrp.emptyAnswerMemory()),
                        new ExchangeRateService.Upstream(new SunatClient(sunat, platform.clock()),
                                sunat.captureInterval(), sunat.emptyAnswerMemory())),
                platform.clock(), ExchangeRateService.seriesStarts(bcrp, sunat), proven, ranges);
        environment.jersey().register(new TipoCambioResource(rates, platform.json()));
        platform.manage(new RateCapture(rates, Stream.concat(RateSeries.of(Fuente.BCRP).stream(),
                RateSeries.of(Fuente.SBS).stream()).toList(), platform.clock(), bcrp.captureInterval(),
                bcrp.captureEnabled(), "bcrp.captureEnabled"));
        platform.manage(new RateCapture(rates, RateSeries.of(Fuente.SUNAT), platform.clock(),
                sunat.captureInterval(), sunat.captureEnabled(), "sunatFx.captureEnabled"));
    }
}
