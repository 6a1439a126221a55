package pe.quipu.etl.generate;

import pe.quipu.core.ruc.Ruc;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Writes a synthetic padrón reducido in SUNAT's exact format, for tests and benchmarks: the real header,
 * ISO-8859-1, CRLF, every field closed by {@code |}, valid and distinct RUCs, about 84 % natural persons
 * ({@code 10…}) with every address field {@code -}, companies ({@code 20…}) and others with composed
 * addresses ({@code ----}, zones, flats, lots), accents and Ñ, estados cut at 20 characters, doubled spaces.
 * Names are realistic for search: persons as surnames and given names (Spanish, Quechua, Aymara), companies as a
 * shared activity word (INVERSIONES, COMERCIAL, SERVICIOS, GRUPO…), a distinctive part and a legal form (S.A.C.,
 * E.I.R.L., S.R.L., S.A.…), drawn from a stream of their own so that the rest of each line is what it was.
 * The same seed gives the same bytes.
 *
 * <p>{@code java -cp etl/target/quipu-etl.jar pe.quipu.etl.generate.PadronGenerator --rows N --out FILE[.zip] [--seed S]}
 *
 * <p>With {@code --changes-from EARLIER --change-rate R} in place of {@code --rows}, it writes the next day of an
 * earlier padrón ({@link NextDayPadron}), streamed in constant memory: {@code round(R × records)} records change, in
 * this mix of kinds: estado 35 %, condición 25 %, address 15 %, name 5 %, added 15 %, removed 5 %
 * ({@link NextDayPadron.Kind}); every other line keeps its bytes. It prints the count of each kind.
 */
public final class PadronGenerator {

    public static final String HEADER = "RUC|NOMBRE O RAZÓN SOCIAL|ESTADO DEL CONTRIBUYENTE|CONDICIÓN DE DOMICILIO|"
            + "UBIGEO|TIPO DE VÍA|NOMBRE DE VÍA|CÓDIGO DE ZONA|TIPO DE ZONA|NÚMERO|INTERIOR|LOTE|DEPARTAMENTO|"
            + "MANZANA|KILÓMETRO|";

    // The word lists of the first version: their draws are kept (see line), so each line's kind, estado and address
    // stay what they were for a seed; the names themselves now come from the richer lists below.
    private static final String[] SURNAMES = {"QUISPE", "MAMANI", "HUAMAN", "FLORES", "RODRIGUEZ", "SÁNCHEZ",
            "GARCÍA", "ROJAS", "GONZALES", "CHÁVEZ", "RAMÍREZ", "MUÑOZ", "PEÑA", "NÚÑEZ", "ÑAHUI", "CÁCERES",
            "TORRES", "VÁSQUEZ", "CONDORI", "YUPANQUI", "MENDOZA", "CASTILLO", "ESPINOZA", "ACUÑA"};
    private static final String[] GIVEN = {"JUAN", "MARÍA", "JOSÉ", "ROSA", "LUIS", "CARMEN", "JESÚS", "ANA",
            "CARLOS", "JULIA", "VÍCTOR", "ELENA", "RAÚL", "INÉS", "CÉSAR", "LUCÍA", "PEDRO", "ÁNGEL"};
    private static final String[] WORDS = {"INVERSIONES", "CORPORACIÓN", "DISTRIBUIDORA", "TRANSPORTES",
            "CONSTRUCTORA", "AGROINDUSTRIAS", "SERVICIOS", "COMERCIAL", "MINERA", "TEXTIL", "ANDINA", "DEL SUR",
            "PERÚ", "LOS ÁNGELES", "SEÑOR DE LUREN", "MUÑOZ", "IÑAPARI", "CAÑETE", "ÑAÑA", "SAN MARTÍN",
            "EL \"PROGRESO\"", "NUEVA ESPERANZA", "HERMANOS CÁCERES", "PACÍFICO", "AMAZÓNICA"};
    private static final String[] FORMS = {"S.A.C.", "S.A.", "E.I.R.L.", "S.R.L.", "S.A.A.", "SOCIEDAD ANONIMA CERRADA"};

    /** Peruvian surnames, Spanish, Quechua and Aymara, with SUNAT's accents and Ñ (and some without, as typed). */
    private static final String[] LAST_NAMES = {"QUISPE", "MAMANI", "HUAMAN", "FLORES", "RODRIGUEZ", "SÁNCHEZ",
            "SANCHEZ", "GARCÍA", "GARCIA", "ROJAS", "GONZALES", "CHÁVEZ", "RAMÍREZ", "MUÑOZ", "PEÑA", "NÚÑEZ",
            "ÑAHUI", "CÁCERES", "TORRES", "VÁSQUEZ", "VASQUEZ", "CONDORI", "YUPANQUI", "MENDOZA", "CASTILLO",
            "ESPINOZA", "ACUÑA", "CCAMA", "APAZA", "TICONA", "CHOQUE", "HUANCA", "CUTIPA", "LAURA", "PUMA",
            "ATAUCUSI", "HUAMANÍ", "CCORI", "CUSI", "TITO", "INCA", "PAUCAR", "CHAMBI", "COAQUIRA", "LUQUE",
            "PARI", "CALLA", "QUISPE", "MAMANI", "HUARACA", "ÑAÑEZ", "ÑIQUE", "ZÚÑIGA", "IBÁÑEZ", "NUÑEZ",
            "MUÑANTE", "CAÑARI", "PEÑALOZA", "BRICEÑO", "ALVARADO", "SALAZAR", "GUTIÉRREZ", "PÉREZ", "LÓPEZ",
            "DÍAZ", "MARTÍNEZ", "HERNÁNDEZ", "JIMÉNEZ", "RUIZ", "RAMOS", "VARGAS", "MORALES", "ORTIZ", "CRUZ",
            "REYES", "MEDINA", "AGUILAR", "CHUMPITAZ", "VILCA", "ARANA", "CAHUANA", "QUISPITUPA", "HUILLCA",
            "AYQUIPA", "SULLCA", "CHIPANA", "TAIPE", "HUAYTA", "CARHUAPOMA", "YAURI", "LLACTA", "ÁLVAREZ",
            "ROMERO", "SOTO", "VEGA", "CHUQUIMIA", "QUISPECAHUANA", "ROMÁN", "BENDEZÚ", "OCAÑA", "MONTAÑO"};
    static final String[] FIRST_NAMES = {"JUAN", "MARÍA", "JOSÉ", "ROSA", "LUIS", "CARMEN", "JESÚS",
            "ANA", "CARLOS", "JULIA", "VÍCTOR", "ELENA", "RAÚL", "INÉS", "CÉSAR", "LUCÍA", "PEDRO", "ÁNGEL",
            "JORGE", "MIGUEL", "JULIO", "ROSARIO", "SANTOS", "MARTHA", "FLOR", "NANCY", "GLADYS", "WILBER",
            "EDWIN", "NILDA", "YOVANA", "ELIZABETH", "FREDY", "ALEJANDRO", "TERESA", "MARGARITA", "FÉLIX",
            "SONIA", "HILDA", "AGUSTÍN", "NÉSTOR", "DAVID", "ÓSCAR", "RUTH", "MARLENI", "DELIA", "EUSEBIO",
            "YESSENIA", "KATHERINE", "JHON", "ROCÍO", "PATRICIA", "MÓNICA", "RENÉ", "EFRAÍN", "SIMEÓN", "ADRIÁN",
            "SEBASTIÁN", "VALERIA", "CAMILA", "NICOLÁS", "BEATRIZ", "ZOILA", "PAULINO", "ISIDRO", "TOMÁS"};
    /** What a company's name starts with; the first ones are the most shared, as in the real padrón. */
    private static final String[] ACTIVITIES = {"INVERSIONES", "INVERSIONES", "INVERSIONES", "CORPORACIÓN",
            "CORPORACION", "COMERCIAL", "SERVICIOS", "SERVICIOS GENERALES", "MULTISERVICIOS", "GRUPO",
            "EMPRESA DE TRANSPORTES", "TRANSPORTES", "CONSTRUCTORA", "DISTRIBUIDORA", "AGROINDUSTRIAS",
            "NEGOCIACIONES", "REPRESENTACIONES", "IMPORTADORA", "EXPORTADORA", "CONSORCIO", "MINERA", "TEXTIL",
            "INMOBILIARIA", "CONSULTORES", "ASESORÍA Y CONSULTORÍA", "FERRETERÍA", "ESTUDIO CONTABLE",
            "CLÍNICA", "COLEGIO", "RESTAURANT", "PANIFICADORA", "AGROPECUARIA", "EMPRESA", "LABORATORIOS",
            "INDUSTRIAS", "PESQUERA", "LOGÍSTICA", "TECNOLOGÍA", "FARMACIA", "HOTEL", "COOPERATIVA"};
    /** The distinctive part: Quechua and Spanish words and places. */
    private static final String[] CORES = {"ANDINA", "ANDINAS", "INKA", "INKAS", "WARI", "CHAVÍN", "PACHAMAMA",
            "INTI", "KILLA", "ILLARY", "SUMAQ", "ALLIN", "KUSI", "WAYRA", "YAKU", "RUMI", "SACHA", "MAYU", "ORQO",
            "PUKA", "YURAQ", "QORI", "QORIWASI", "ÑAWPA", "TAKI", "WASI", "HATUN", "CHASKA", "PACHAKUTEQ",
            "TAWANTINSUYO", "QHAPAQ ÑAN", "DEL SUR", "DEL NORTE", "DEL CENTRO", "SAN MARTÍN", "SANTA ROSA",
            "SEÑOR DE LUREN", "SEÑOR DE LOS MILAGROS", "LOS ÁNGELES", "NUEVA ESPERANZA", "EL \"PROGRESO\"",
            "EL ÉXITO", "LA UNIÓN", "PERÚ", "DEL PERÚ", "LIMA", "AREQUIPA", "CUSCO", "PUNO", "PIURA", "TRUJILLO",
            "CHICLAYO", "HUANCAYO", "CAÑETE", "IÑAPARI", "ÑAÑA", "AMAZÓNICA", "PACÍFICO", "ANDES", "TITICACA",
            "MACHU PICCHU", "COLCA", "HUASCARÁN", "VILCANOTA", "MANTARO", "SIERRA VERDE", "COSTA AZUL",
            "GLOBAL", "TOTAL", "PREMIUM", "EXPRESS", "MUNDIAL", "INTEGRAL", "DORADO", "CÓNDOR", "PUMA", "VICUÑA",
            "ALPACA", "QUINUA", "MAÍZ", "CACAO", "CAFÉ", "LÚCUMA", "MAR", "SOL", "LUNA", "ESTRELLA", "ROCA"};
    static final String[] LEGAL_FORMS = {"S.A.C.", "S.A.C.", "S.A.C.", "S.A.C.", "E.I.R.L.", "E.I.R.L.",
            "E.I.R.L.", "S.R.L.", "S.R.L.", "S.A.", "S.A.A.", "SOCIEDAD ANONIMA CERRADA", "SAC", "EIRL",
            "SOCIEDAD COMERCIAL DE RESPONSABILIDAD LIMITADA", "S. A. C."};
    private static final String[] VIAS = {"AV.", "JR.", "CAL.", "PSJE.", "CAR.", "PRO.", "----", "-"};
    private static final String[] VIA_NAMES = {"JOSE PARDO", "LAS BEGONIAS", "SANTA ROSA", "MARISCAL CÁCERES",
            "28 DE JULIO", "GRAU", "BOLOGNESI", "LOS OLIVOS", "JAVIER PRADO ESTE", "NICOLÁS DE PIÉROLA",
            "SEÑOR DE LOS MILAGROS", "PANAMERICANA NORTE", "ÑAÑA CHOSICA", "PETIT THOUARS"};
    private static final String[] ZONE_KINDS = {"URB.", "Z.I.", "A.H.", "RES.", "----", "-", "-"};
    private static final String[] ZONE_NAMES = {"SANTA CATALINA", "MARANGA SÉPTIMA ETAPA", "LOS JARDINES",
            "ZONA INDUSTRIAL", "VILLA EL SALVADOR", "SAN JUAN BAUTISTA", "EL MIRADOR", "CAÑAVERAL", "-"};
    private static final String[] UBIGEOS = {"150101", "150122", "150136", "150140", "040101", "130101",
            "200101", "080101", "120101", "220901", "150501", "070101"};
    private static final String[] CONDICIONES = {"HABIDO", "HABIDO", "HABIDO", "HABIDO", "NO HABIDO",
            "NO HALLADO", "NO HALLADO SE MUDO D", "PENDIENTE"};

    private PadronGenerator() {
    }

    public static void main(String[] args) throws IOException {
        GeneratorOptions options = GeneratorOptions.parse(args, "usage: PadronGenerator --rows N --out FILE(.zip|.txt)"
                + " [--seed S]\n   or: PadronGenerator --changes-from EARLIER(.zip|.txt) --change-rate R"
                + " --out FILE(.zip|.txt) [--seed S]", true);
        if (options.changesFrom() != null) {
            NextDayPadron.Summary summary = NextDayPadron.write(options.changesFrom(), options.out(),
                    options.changeRate(), options.seed());
            System.out.println(summary.describe(options.changesFrom(), options.out()));
        } else {
            write(options.out(), options.rows(), options.seed());
        }
    }

    /** Writes the file, zipped (one entry padron_reducido_ruc.txt) when its name ends in .zip. */
    public static void write(Path file, long rows, long seed) throws IOException {
        writeFile(file, out -> write(out, rows, seed));
    }

    /** What writes a padrón's bytes to a stream, which it does not close. */
    @FunctionalInterface
    interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    /** Writes {@code content} to the file, zipped (one entry padron_reducido_ruc.txt) when its name ends in .zip. */
    static void writeFile(Path file, Content content) throws IOException {
        try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            if (file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".zip")) {
                try (ZipOutputStream zip = new ZipOutputStream(out)) {
                    zip.setLevel(1); // fast; SUNAT's own zip ratio is about 4:1 either way
                    zip.putNextEntry(new ZipEntry("padron_reducido_ruc.txt"));
                    content.writeTo(zip);
                    zip.closeEntry();
                }
            } else {
                content.writeTo(out);
            }
        }
    }

    /** Writes header and rows to the stream, which it does not close. */
    public static void write(OutputStream out, long rows, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        SplittableRandom names = new SplittableRandom(seed ^ 0x6E6F6D627265L);
        StringBuilder line = new StringBuilder(256);
        try {
            out.write((HEADER + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            for (long i = 0; i < rows; i++) {
                line.setLength(0);
                line(line, i, random, names);
                line.append("\r\n");
                out.write(line.toString().getBytes(StandardCharsets.ISO_8859_1));
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The RUC of row {@code i}: distinct for every i below 10^8 within each prefix, scattered, check digit valid. */
    public static String ruc(String prefix, long i) {
        // 7,919 is coprime with 10^8, so i -> i·7919 + c (mod 10^8) never repeats a body.
        long body = Math.floorMod(i * 7_919L + 1_234_567L, 100_000_000L);
        return Ruc.completing(prefix + String.format(java.util.Locale.ROOT, "%08d", body)).value();
    }

    private static void line(StringBuilder line, long i, SplittableRandom random, SplittableRandom names) {
        double kind = random.nextDouble();
        String estado = estado(random);
        String condicion = pick(CONDICIONES, random);
        if (kind < 0.84) {
            // The first version's draws, kept so that the rest of the line stays as it was for a seed.
            pick(SURNAMES, random);
            pick(SURNAMES, random);
            pick(GIVEN, random);
            String name = personName(names);
            if (random.nextInt(50) == 0) {
                name = name.replaceFirst(" ", "  "); // SUNAT keeps doubled spaces as typed
            }
            line.append(ruc("10", i)).append('|').append(name).append('|').append(estado).append('|')
                    .append(condicion).append("|-|-|-|-|-|-|-|-|-|-|-|");
            return;
        }
        String prefix = kind < 0.965 ? "20" : kind < 0.99 ? "15" : "17";
        pick(WORDS, random);
        pick(WORDS, random);
        pick(FORMS, random);
        String name = companyName(names);
        if (random.nextInt(40) == 0) {
            name = name.replaceFirst(" ", "  ");
        }
        line.append(ruc(prefix, i)).append('|').append(name).append('|').append(estado).append('|')
                .append(condicion).append('|');
        address(line, random);
    }

    /**
     * A company's address, the eleven fields from UBIGEO to KILÓMETRO each closed by {@code |}: zones, flats, lots
     * and SUNAT's {@code ----} as the padrón has them.
     */
    static void address(StringBuilder line, SplittableRandom random) {
        line.append(random.nextInt(20) == 0 ? "-" : pick(UBIGEOS, random)).append('|')
                .append(pick(VIAS, random)).append('|')
                .append(random.nextInt(10) == 0 ? "-" : pick(VIA_NAMES, random)).append('|')
                .append(pick(ZONE_KINDS, random)).append('|')
                .append(pick(ZONE_NAMES, random)).append('|')
                .append(random.nextInt(4) == 0 ? "-" : Integer.toString(1 + random.nextInt(2500))).append('|')
                .append(random.nextInt(6) == 0 ? Integer.toString(100 + random.nextInt(900)) : "-").append('|')
                .append(random.nextInt(8) == 0 ? Integer.toString(1 + random.nextInt(40)) : "-").append('|')
                .append(random.nextInt(10) == 0 ? Integer.toString(101 + random.nextInt(1500)) : "-").append('|')
                .append(random.nextInt(8) == 0 ? String.valueOf((char) ('A' + random.nextInt(26))) : "-").append('|')
                .append(random.nextInt(50) == 0 ? Integer.toString(1 + random.nextInt(900)) : "-").append('|');
    }

    /** A natural person as SUNAT lists one: both surnames, then one or two given names. */
    static String personName(SplittableRandom names) {
        String name = pick(LAST_NAMES, names) + " " + pick(LAST_NAMES, names) + " " + pick(FIRST_NAMES, names);
        return names.nextInt(3) == 0 ? name + " " + pick(FIRST_NAMES, names) : name;
    }

    /**
     * A company: an activity word shared by many (INVERSIONES, COMERCIAL…), a distinctive part (one or two
     * Quechua or Spanish words, or a family's surnames), sometimes HERMANOS or & ASOCIADOS, then the legal form.
     */
    static String companyName(SplittableRandom names) {
        StringBuilder name = new StringBuilder(64).append(pick(ACTIVITIES, names)).append(' ');
        int shape = names.nextInt(10);
        if (shape < 5) {
            name.append(pick(CORES, names));
        } else if (shape < 8) {
            name.append(pick(CORES, names)).append(' ').append(pick(CORES, names));
        } else {
            name.append(pick(LAST_NAMES, names));
            if (names.nextBoolean()) {
                name.append(' ').append(pick(LAST_NAMES, names));
            }
        }
        int extra = names.nextInt(20);
        if (extra == 0) {
            name.append(" HERMANOS");
        } else if (extra == 1) {
            name.append(" & ASOCIADOS");
        }
        return name.append(' ').append(pick(LEGAL_FORMS, names)).toString();
    }

    /** Observed shares (SOURCE.md), and the rarer estados cut at 20 characters as SUNAT publishes them. */
    private static String estado(SplittableRandom random) {
        double p = random.nextDouble();
        if (p < 0.509) {
            return "ACTIVO";
        } else if (p < 0.911) {
            return "BAJA DE OFICIO";
        } else if (p < 0.973) {
            return "BAJA DEFINITIVA";
        } else if (p < 0.990) {
            return "SUSPENSION TEMPORAL";
        } else if (p < 0.995) {
            return "BAJA PROV. POR OFICI";
        } else if (p < 0.998) {
            return "BAJA MULT.INSCR. Y O";
        }
        return "ANULACION - ERROR SU";
    }

    static String pick(String[] values, SplittableRandom random) {
        return values[random.nextInt(values.length)];
    }
}
