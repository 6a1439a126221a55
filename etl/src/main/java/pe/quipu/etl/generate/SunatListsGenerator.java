package pe.quipu.etl.generate;

import pe.quipu.core.ubigeo.Ubigeo;
import pe.quipu.core.ubigeo.UbigeoCsv;
import pe.quipu.etl.sunat.SunatColumns;
import pe.quipu.etl.sunat.SunatFile;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Writes SUNAT's four lists and the premises file in their published format, for tests and benchmarks: the real
 * headers, ISO-8859-1, CRLF, every field closed by {@code |}, one zip per file under SUNAT's name. Every RUC comes
 * from the padrón {@link PadronGenerator} writes with the same rows and seed (its lines are generated again and read
 * here, so the two always agree), with that padrón's name (accents and Ñ included); companies are far likelier than
 * natural persons to be on a list or to have premises. Premises carry real ubigeos of the bundled INEI catalogue.
 * The same rows and seed give the same bytes.
 *
 * <p>{@code java -cp etl/target/quipu-etl.jar pe.quipu.etl.generate.SunatListsGenerator --rows N --out DIR [--seed S]}
 * ({@code ./quipu generate-sunat-lists …}): the padrón of {@code --rows N} lines with the seed is the one
 * {@code generate-padron --rows N --seed S} writes.
 */
public final class SunatListsGenerator {

    static final String LIST_HEADER = "Ruc|Razon Social|A partir del|Resolucion|";
    static final String ANEXO_HEADER = "RUC|UBIGEO|TIPO DE VIA|NOMBRE DE VIA|CODIGO DE ZONA|TIPO DE ZONA|NUMERO|"
            + "KILOMETRO|INTERIOR|LOTE|DEPARTAMENTO|MANZANA|";

    /** Of a company (RUC 20…), the chance to be on each list; natural persons are a tenth as likely. */
    private static final Map<SunatFile, Double> COMPANY_SHARE = new EnumMap<>(Map.of(
            SunatFile.AGENTES_RETENCION, 0.03,
            SunatFile.BUENOS_CONTRIBUYENTES, 0.08,
            SunatFile.AGENTES_PERCEPCION, 0.02,
            SunatFile.AGENTES_PERCEPCION_COMBUSTIBLES, 0.01));
    /** The resolutions that designated most agents, as SUNAT's files cite them. */
    private static final String[] RETENCION = {"R.S. 037-2002/SUNAT", "R.S. 155-2003/SUNAT", "R.S. 256-2004/SUNAT",
            "R.S. 234-2005/SUNAT", "R.S. 033-2006/SUNAT", "R.S. 096-2007/SUNAT", "R.S. 265-2009/SUNAT",
            "R.S. 028-2012/SUNAT", "R.S. 071-2014/SUNAT", "R.S. 123-2016/SUNAT", "R.S. 275-2019/SUNAT",
            "R.S. 000051-2022/SUNAT"};
    private static final String[] BUENOS = {"R.S. 087-2003/SUNAT", "R.S. 164-2005/SUNAT", "R.S. 049-2008/SUNAT",
            "R.S. 230-2011/SUNAT", "R.S. 313-2014/SUNAT", "R.S. 186-2018/SUNAT", "R.S. 000164-2021/SUNAT"};
    private static final String[] PERCEPCION = {"R.S. 058-2006/SUNAT", "R.S. 218-2006/SUNAT", "R.S. 189-2008/SUNAT",
            "R.S. 290-2010/SUNAT", "R.S. 103-2013/SUNAT", "R.S. 274-2015/SUNAT"};
    private static final String[] COMBUSTIBLES = {"R.S. 058-2006/SUNAT", "R.S. 199-2007/SUNAT",
            "R.S. 275-2011/SUNAT", "R.S. 117-2014/SUNAT"};
    private static final String[] VIAS = {"AV.", "JR.", "CAL.", "PSJE.", "CAR.", "PRO.", "----", "-"};
    private static final String[] VIA_NAMES = {"LOS OLIVOS", "ÁNGAMOS OESTE", "NICOLÁS AYLLÓN", "SEÑOR DE LUREN",
            "INDUSTRIAL", "PANAMERICANA SUR", "LA MARINA", "CAÑETE", "28 DE JULIO", "ÑAÑA CHOSICA", "GRAU"};
    private static final String[] ZONE_KINDS = {"URB.", "Z.I.", "A.H.", "P.J.", "----", "-", "-"};
    private static final String[] ZONE_NAMES = {"SANTA ROSA", "EL ÁLAMO", "LA CAÑADA", "PARQUE INDUSTRIAL",
            "LOS FICUS", "-"};

    private SunatListsGenerator() {
    }

    public static void main(String[] args) throws IOException {
        GeneratorOptions options = GeneratorOptions.parse(args,
                "usage: SunatListsGenerator --rows N --out DIR [--seed S]   (N: the padrón's rows)");
        Map<SunatFile, Path> written = write(options.out(), options.rows(), options.seed());
        written.forEach((file, path) -> System.out.println(file.jobName() + " " + path));
    }

    /** Writes the five zips into {@code dir}, under SUNAT's names, and returns where each went. */
    public static Map<SunatFile, Path> write(Path dir, long padronRows, long seed) throws IOException {
        Files.createDirectories(dir);
        Map<SunatFile, Path> paths = new EnumMap<>(SunatFile.class);
        Map<SunatFile, ZipOutputStream> zips = new EnumMap<>(SunatFile.class);
        try {
            for (SunatFile file : SunatFile.values()) {
                Path path = dir.resolve(file.published());
                ZipOutputStream zip = new ZipOutputStream(new BufferedOutputStream(Files.newOutputStream(path),
                        1 << 16));
                zips.put(file, zip);
                paths.put(file, path);
                zip.setLevel(1);
                ZipEntry entry = new ZipEntry(file.published().replace(".zip", ".txt"));
                // A fixed time, so that the same rows and seed give the same bytes.
                entry.setTimeLocal(java.time.LocalDateTime.of(2026, 1, 1, 0, 0));
                zip.putNextEntry(entry);
                zip.write(((file.isList() ? LIST_HEADER : ANEXO_HEADER) + "\r\n")
                        .getBytes(StandardCharsets.ISO_8859_1));
            }
            Lines lines = new Lines(zips, seed);
            PadronGenerator.write(lines, padronRows, seed);
            lines.flushLine();
            for (ZipOutputStream zip : zips.values()) {
                zip.closeEntry();
            }
        } finally {
            for (ZipOutputStream zip : zips.values()) {
                zip.close();
            }
        }
        return paths;
    }

    /** Receives the padrón's bytes, and for each of its lines writes whatever the lists and premises hold of it. */
    private static final class Lines extends OutputStream {
        private final Map<SunatFile, ZipOutputStream> zips;
        private final SplittableRandom random;
        private final List<Ubigeo> ubigeos = UbigeoCsv.bundled();
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);
        private final StringBuilder out = new StringBuilder(256);
        private boolean header = true;

        Lines(Map<SunatFile, ZipOutputStream> zips, long seed) {
            this.zips = zips;
            // Its own sequence, so that the padrón's is not disturbed (and stays the one generate-padron writes).
            this.random = new SplittableRandom(seed ^ 0x5EED_5A7A_7L);
        }

        @Override
        public void write(int b) {
            if (b == '\n') {
                flushLine();
            } else if (b != '\r') {
                line.write(b);
            }
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            for (int i = offset; i < offset + length; i++) {
                write(bytes[i]);
            }
        }

        void flushLine() {
            if (line.size() == 0) {
                return;
            }
            String text = line.toString(StandardCharsets.ISO_8859_1);
            line.reset();
            if (header) {
                header = false;
                return;
            }
            try {
                padronLine(text);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        private void padronLine(String text) throws IOException {
            List<String> fields = SunatColumns.split(text);
            String ruc = fields.get(0);
            String name = fields.get(1);
            boolean company = ruc.startsWith("20");
            for (Map.Entry<SunatFile, Double> list : COMPANY_SHARE.entrySet()) {
                double share = company ? list.getValue() : list.getValue() / 10;
                if (random.nextDouble() < share) {
                    listLine(list.getKey(), ruc, name);
                }
            }
            // About a third of the companies and one person in thirty have premises besides their fiscal address.
            if (random.nextDouble() < (company ? 0.35 : 0.03)) {
                int premises = 1 + (company && random.nextInt(4) == 0 ? random.nextInt(8) : random.nextInt(2));
                for (int i = 0; i < premises; i++) {
                    anexoLine(ruc);
                }
            }
        }

        private void listLine(SunatFile file, String ruc, String name) throws IOException {
            String[] resoluciones = switch (file) {
                case AGENTES_RETENCION -> RETENCION;
                case BUENOS_CONTRIBUYENTES -> BUENOS;
                case AGENTES_PERCEPCION -> PERCEPCION;
                default -> COMBUSTIBLES;
            };
            String resolucion = resoluciones[random.nextInt(resoluciones.length)];
            // The designation takes effect on the first day of a month after the resolution's year.
            int year = Integer.parseInt(resolucion.replaceAll(".*-(\\d{4})/.*", "$1"));
            int from = Math.min(2025, year + random.nextInt(3));
            out.setLength(0);
            out.append(ruc).append('|').append(name).append('|')
                    .append(String.format(Locale.ROOT, "01/%02d/%d", 1 + random.nextInt(12), from)).append('|')
                    .append(resolucion).append("|\r\n");
            zips.get(file).write(out.toString().getBytes(StandardCharsets.ISO_8859_1));
        }

        private void anexoLine(String ruc) throws IOException {
            Ubigeo ubigeo = ubigeos.get(random.nextInt(ubigeos.size()));
            out.setLength(0);
            out.append(ruc).append('|')
                    .append(random.nextInt(40) == 0 ? "-" : ubigeo.code()).append('|')
                    .append(pick(VIAS)).append('|')
                    .append(random.nextInt(10) == 0 ? "-" : pick(VIA_NAMES)).append('|')
                    .append(pick(ZONE_KINDS)).append('|')
                    .append(pick(ZONE_NAMES)).append('|')
                    .append(random.nextInt(4) == 0 ? "-" : Integer.toString(1 + random.nextInt(3000))).append('|')
                    .append(random.nextInt(30) == 0 ? Double.toString(1 + random.nextInt(900) / 10.0) : "-")
                    .append('|')
                    .append(random.nextInt(6) == 0 ? Integer.toString(100 + random.nextInt(900)) : "-").append('|')
                    .append(random.nextInt(8) == 0 ? Integer.toString(1 + random.nextInt(40)) : "-").append('|')
                    .append(random.nextInt(10) == 0 ? Integer.toString(101 + random.nextInt(1500)) : "-").append('|')
                    .append(random.nextInt(8) == 0 ? String.valueOf((char) ('A' + random.nextInt(26))) : "-")
                    .append("|\r\n");
            zips.get(SunatFile.LOCALES_ANEXOS).write(out.toString().getBytes(StandardCharsets.ISO_8859_1));
        }

        private String pick(String[] values) {
            return values[random.nextInt(values.length)];
        }
    }
}
