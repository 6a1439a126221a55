package pe.quipu.etl;

import pe.quipu.etl.extendido.PadronExtendidoJob;
import pe.quipu.etl.fx.DateRange;
import pe.quipu.etl.fx.TipoCambioJob;
import pe.quipu.etl.padron.PadronJob;
import pe.quipu.etl.sunat.SunatJobs;
import pe.quipu.etl.ubigeo.UbigeoJob;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The ETL's jobs (contract §1): their names, options, the Spring configuration that defines each, and the
 * lock they take. Jobs that rewrite the same table share a lock, so they never run at the same time.
 */
public enum EtlJob {
    PADRON("padron", Set.of("file", "url"), "registry", PadronJob.class),
    PADRON_EXTENDIDO("padron-extendido", Set.of("file", "url"), "registry", PadronExtendidoJob.class),
    UBIGEO("ubigeo", Set.of("file"), "ubigeo", UbigeoJob.class),
    TIPO_CAMBIO("tipo-cambio", Set.of("fuente", "from", "to"), "tipo-cambio", TipoCambioJob.class),
    // SUNAT's lists and premises (contract §10): each replaces its own rows, so each takes a lock of its own.
    AGENTES_RETENCION("agentes-retencion", Set.of("file", "url"), "agentes-retencion", SunatJobs.class),
    BUENOS_CONTRIBUYENTES("buenos-contribuyentes", Set.of("file", "url"), "buenos-contribuyentes", SunatJobs.class),
    AGENTES_PERCEPCION("agentes-percepcion", Set.of("file", "url"), "agentes-percepcion", SunatJobs.class),
    AGENTES_PERCEPCION_COMBUSTIBLES("agentes-percepcion-combustibles", Set.of("file", "url"),
            "agentes-percepcion-combustibles", SunatJobs.class),
    LOCALES_ANEXOS("locales-anexos", Set.of("file", "url"), "locales-anexos", SunatJobs.class);

    private final String jobName;
    private final Set<String> options;
    private final String lock;
    private final Class<?> configuration;

    EtlJob(String jobName, Set<String> options, String lock, Class<?> configuration) {
        this.jobName = jobName;
        this.options = options;
        this.lock = lock;
        this.configuration = configuration;
    }

    public String jobName() {
        return jobName;
    }

    public Set<String> options() {
        return options;
    }

    /** What the job loads, for {@code --help}. */
    public String description() {
        return switch (this) {
            case PADRON -> "SUNAT's padrón reducido (padron_reducido_ruc.zip) -> the RUC registry, its change log";
            case PADRON_EXTENDIDO -> "SUNAT's PadronRUC CSV -> each RUC's tipo and CIIU";
            case UBIGEO -> "INEI's districts (default: the catalogue bundled with Quipu)";
            case TIPO_CAMBIO -> "BCRP's, SBS's and SUNAT's exchange rates (default: every source, the last 10 days)";
            case AGENTES_RETENCION -> "SUNAT's withholding agents (AgenRet_TXT.zip)";
            case BUENOS_CONTRIBUYENTES -> "SUNAT's good taxpayers (BueCont_TXT.zip)";
            case AGENTES_PERCEPCION -> "SUNAT's perception agents (AgenPercVI_TXT.zip)";
            case AGENTES_PERCEPCION_COMBUSTIBLES -> "SUNAT's fuel perception agents (AgenPerc_TXT.zip)";
            case LOCALES_ANEXOS -> "SUNAT's annex premises (padron_reducido_local_anexo.zip)";
        };
    }

    /** The advisory lock this job holds while it runs; a second run that needs it exits with code 4. */
    public String lock() {
        return lock;
    }

    public Class<?> configuration() {
        return configuration;
    }

    public static Optional<EtlJob> named(String name) {
        return Arrays.stream(values()).filter(j -> j.jobName.equals(name)).findFirst();
    }

    public static List<String> names() {
        return Arrays.stream(values()).map(EtlJob::jobName).toList();
    }

    /** An absolute http:// or https:// URL naming a host, as the download client can fetch it. */
    private static void checkUrl(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new EtlCommand.UsageException("--url is not a URL: " + e.getMessage());
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("https") && !scheme.equals("http") || uri.getHost() == null) {
            throw new EtlCommand.UsageException("--url must be an https:// (or http://) URL naming a host, not " + url);
        }
    }

    /** Whether {@code url} (a URL {@link #validate} accepted) is plain http. */
    static boolean isPlainHttp(String url) {
        return URI.create(url).getScheme().equalsIgnoreCase("http");
    }

    /** Checks the options together (e.g. exactly one of --file and --url, a date range in order). */
    void validate(Map<String, String> given, Clock clock) {
        if (given.containsKey("file") && given.containsKey("url")) {
            throw new EtlCommand.UsageException("give --file or --url, not both");
        }
        if (options.contains("url") && !given.containsKey("file") && !given.containsKey("url")) {
            throw new EtlCommand.UsageException(jobName + " needs --file PATH or --url URL");
        }
        if (given.containsKey("url")) {
            checkUrl(given.get("url"));
        }
        for (String dateOption : List.of("from", "to")) {
            if (given.containsKey(dateOption)) {
                try {
                    LocalDate.parse(given.get(dateOption));
                } catch (DateTimeParseException e) {
                    throw new EtlCommand.UsageException("--" + dateOption + " must be a date YYYY-MM-DD");
                }
            }
        }
        if (given.containsKey("fuente")) {
            try {
                TipoCambioJob.fuentes(given.get("fuente"));
            } catch (IllegalArgumentException e) {
                throw new EtlCommand.UsageException(e.getMessage());
            }
        }
        if (options.contains("from")) {
            DateRange range = DateRange.of(given, clock);
            if (range.from().isAfter(range.to())) {
                throw new EtlCommand.UsageException("--from " + range.from() + " is after "
                        + (given.containsKey("to") ? "--to " : "today, the default --to, ") + range.to());
            }
        }
    }
}
