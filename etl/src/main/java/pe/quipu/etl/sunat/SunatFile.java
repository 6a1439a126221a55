package pe.quipu.etl.sunat;

import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.Ruc;

import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.List;

/**
 * One of SUNAT's files beyond the padrón (contract §10): the job that loads it, the columns it must have (as SUNAT
 * titles them), and how one line becomes a row of the job's staging table. Every line needs a valid RUC (the
 * padrón's rule: 11 digits, a known prefix, the módulo-11 check digit); the lists also a date {@code DD/MM/YYYY}.
 */
public enum SunatFile {
    AGENTES_RETENCION("agentes-retencion", "agentes_retencion", "AgenRet_TXT.zip"),
    BUENOS_CONTRIBUYENTES("buenos-contribuyentes", "buenos_contribuyentes", "BueCont_TXT.zip"),
    AGENTES_PERCEPCION("agentes-percepcion", "agentes_percepcion", "AgenPercVI_TXT.zip"),
    AGENTES_PERCEPCION_COMBUSTIBLES("agentes-percepcion-combustibles", "agentes_percepcion_combustibles",
            "AgenPerc_TXT.zip"),
    LOCALES_ANEXOS("locales-anexos", null, "padron_reducido_local_anexo.zip");

    /** The lists' columns: {@code Ruc|Razon Social|A partir del|Resolucion|}; the name is the registry's. */
    static final List<String> LIST_COLUMNS = List.of("Ruc", "A partir del", "Resolucion");
    /** Staging columns of a list, after which comes the line number. */
    static final String LIST_STAGE = "ruc char(11) not null, desde date not null, resolucion text";

    /** The premises' columns, all needed: an address missing a part would be published wrong, not refused. */
    static final List<String> ANEXO_COLUMNS = List.of("RUC", "UBIGEO", "TIPO DE VIA", "NOMBRE DE VIA",
            "CODIGO DE ZONA", "TIPO DE ZONA", "NUMERO", "KILOMETRO", "INTERIOR", "LOTE", "DEPARTAMENTO", "MANZANA");
    /** The table columns of {@link #ANEXO_COLUMNS}, in {@code locales_anexos}' order. */
    static final List<String> ANEXO_TABLE_COLUMNS = List.of("ruc", "ubigeo", "tipo_via", "nombre_via", "codigo_zona",
            "tipo_zona", "numero", "kilometro", "interior", "lote", "departamento", "manzana");

    private static final DateTimeFormatter DESDE = DateTimeFormatter.ofPattern("dd/MM/uuuu")
            .withResolverStyle(ResolverStyle.STRICT);

    private final String jobName;
    private final String padron;
    private final String published;

    SunatFile(String jobName, String padron, String published) {
        this.jobName = jobName;
        this.padron = padron;
        this.published = published;
    }

    /** The job's name, which is also its dataset in {@code dataset_loads}. */
    public String jobName() {
        return jobName;
    }

    /** The list's name in {@code sunat_padrones} and in answers; null for the premises. */
    String padron() {
        return padron;
    }

    /** SUNAT's name for the zip it publishes. */
    public String published() {
        return published;
    }

    public boolean isList() {
        return padron != null;
    }

    List<String> required() {
        return isList() ? LIST_COLUMNS : ANEXO_COLUMNS;
    }

    /** The staging table: the row's columns then {@code line bigint}. */
    String stage() {
        return "sunat_stage_" + jobName.replace('-', '_');
    }

    String stageColumns() {
        if (isList()) {
            return LIST_STAGE;
        }
        StringBuilder columns = new StringBuilder("ruc char(11) not null");
        for (String column : ANEXO_TABLE_COLUMNS.subList(1, ANEXO_TABLE_COLUMNS.size())) {
            columns.append(", ").append(column).append(" text");
        }
        return columns.toString();
    }

    /** The staging row of a line's fields, in {@link #stageColumns()}' order (null for SQL NULL). */
    String[] row(SunatColumns columns, List<String> fields) throws RejectedLine {
        Ruc ruc = ruc(columns.field(fields, 0));
        if (isList()) {
            String desde = columns.field(fields, 1);
            if (desde == null) {
                throw new RejectedLine("empty \"A partir del\" (expected DD/MM/YYYY)");
            }
            LocalDate date;
            try {
                date = LocalDate.parse(desde, DESDE);
            } catch (DateTimeParseException e) {
                throw new RejectedLine("\"A partir del\" is not a date DD/MM/YYYY: " + shown(desde));
            }
            return new String[] {ruc.value(), date.toString(), published(columns.field(fields, 2))};
        }
        String[] row = new String[ANEXO_COLUMNS.size()];
        row[0] = ruc.value();
        for (int i = 1; i < row.length; i++) {
            row[i] = published(columns.field(fields, i));
        }
        if (row[1] != null && !isSixDigits(row[1])) {
            throw new RejectedLine("UBIGEO is not 6 digits or '-': " + shown(row[1]));
        }
        return row;
    }

    private static Ruc ruc(String value) throws RejectedLine {
        if (value == null) {
            throw new RejectedLine("empty RUC");
        }
        try {
            return Ruc.parse(value);
        } catch (InvalidRucException e) {
            throw new RejectedLine("invalid RUC: " + e.getMessage());
        }
    }

    /** As the padrón: a value of hyphens only ({@code -}, {@code ----}) means empty. */
    private static String published(String value) {
        if (value == null) {
            return null;
        }
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) != '-') {
                return value;
            }
        }
        return null;
    }

    private static boolean isSixDigits(String s) {
        if (s.length() != 6) {
            return false;
        }
        for (int i = 0; i < 6; i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return false;
            }
        }
        return true;
    }

    private static String shown(String value) {
        return value.length() > 40 ? value.substring(0, 40) + "…" : value;
    }

    static java.util.Optional<SunatFile> ofJob(String jobName) {
        for (SunatFile file : values()) {
            if (file.jobName.equals(jobName)) {
                return java.util.Optional.of(file);
            }
        }
        return java.util.Optional.empty();
    }

    /** Why a line is rejected; counted and sampled, never thrown out of the load. */
    static final class RejectedLine extends Exception {
        RejectedLine(String reason) {
            super(reason, null, false, false);
        }
    }
}
