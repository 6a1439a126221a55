package pe.quipu.core.ubigeo;

import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVParser;
import org.apache.commons.csv.CSVRecord;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the INEI ubigeo catalogue in the format of the bundled {@code ubigeo_inei_2025.csv}: UTF-8 (a BOM is
 * allowed and skipped), {@code ;}-delimited, columns found by header name ({@code ubigeo}, {@code departamento},
 * {@code provincia}, {@code distrito}; others ignored). Shared by the API's first-start seeding and the
 * {@code ubigeo} ETL job, so both refuse the same bad files.
 *
 * <p>A file is rejected as a whole ({@link InvalidUbigeoFileException}) when it is not UTF-8, lacks a column,
 * has a code that is not 6 digits or a blank name, repeats a code, holds no district, or gives one department
 * code (2 digits) or province code (4 digits) two different names: such a file would make the catalogue
 * answer differently depending on which district a client happened to look at.
 */
public final class UbigeoCsv {

    /** Classpath location of the bundled default catalogue. */
    public static final String BUNDLED = "/pe/quipu/core/ubigeo/ubigeo_inei_2025.csv";

    private static final char BOM = '\uFEFF';
    private static final List<String> COLUMNS = List.of("ubigeo", "departamento", "provincia", "distrito");
    private static final CSVFormat FORMAT = CSVFormat.DEFAULT.builder()
            .setDelimiter(';')
            .setHeader()
            .setSkipHeaderRecord(true)
            .setIgnoreHeaderCase(true)
            .setIgnoreSurroundingSpaces(true)
            .setIgnoreEmptyLines(true)
            .get();

    private UbigeoCsv() {
    }

    /** The bundled default catalogue (1,891 districts in the 2025 edition), in file order. */
    public static List<Ubigeo> bundled() {
        try (InputStream in = UbigeoCsv.class.getResourceAsStream(BUNDLED)) {
            if (in == null) {
                throw new IllegalStateException("the bundled ubigeo catalogue is missing from the classpath: " + BUNDLED);
            }
            return read(in);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the bundled ubigeo catalogue", e);
        }
    }

    /**
     * Parses a whole catalogue file, in file order. Does not close {@code in}.
     *
     * @throws InvalidUbigeoFileException when the content must not be loaded
     * @throws IOException                when the stream cannot be read
     */
    public static List<Ubigeo> read(InputStream in) throws IOException {
        // Strict decoding: INEI also publishes Latin-1 files, and a silently mis-decoded "Áncash" must not load.
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)));
        try {
            skipBom(reader);
            CSVParser parser = CSVParser.parse(reader, FORMAT);
            checkColumns(parser.getHeaderNames());
            return rows(parser);
        } catch (CharacterCodingException e) {
            throw new InvalidUbigeoFileException("the file is not valid UTF-8", e);
        } catch (UncheckedIOException e) {
            // CSVParser's iterator wraps read failures; give decoding failures the same answer as above.
            if (e.getCause() instanceof CharacterCodingException coding) {
                throw new InvalidUbigeoFileException("the file is not valid UTF-8", coding);
            }
            throw e.getCause();
        }
    }

    private static void skipBom(BufferedReader reader) throws IOException {
        reader.mark(1);
        if (reader.read() != BOM) {
            reader.reset();
        }
    }

    private static void checkColumns(List<String> header) {
        List<String> lower = header.stream().map(h -> h.toLowerCase(java.util.Locale.ROOT)).toList();
        for (String column : COLUMNS) {
            if (!lower.contains(column)) {
                throw new InvalidUbigeoFileException("the header has no column '" + column + "' (found: "
                        + String.join(";", header) + ")");
            }
        }
    }

    private static List<Ubigeo> rows(CSVParser parser) {
        List<Ubigeo> ubigeos = new ArrayList<>(2048);
        Map<String, Long> rowOfCode = new HashMap<>();
        Map<String, Named> departamentos = new HashMap<>();
        Map<String, Named> provincias = new HashMap<>();
        for (CSVRecord record : parser) {
            // Row 1 is the header, so data record n is row n + 1 (no field spans lines in this format).
            long row = record.getRecordNumber() + 1;
            String code = field(record, "ubigeo", row);
            if (!Ubigeo.isCode(code, 6)) {
                throw new InvalidUbigeoFileException("row " + row + ": ubigeo '" + code + "' is not 6 digits");
            }
            Long earlier = rowOfCode.putIfAbsent(code, row);
            if (earlier != null) {
                throw new InvalidUbigeoFileException("ubigeo " + code + " appears twice, rows " + earlier + " and " + row);
            }
            Ubigeo ubigeo = new Ubigeo(code, field(record, "departamento", row), field(record, "provincia", row),
                    field(record, "distrito", row));
            sameName("department", ubigeo.departamentoCode(), ubigeo.departamento(), row, departamentos);
            sameName("province", ubigeo.provinciaCode(), ubigeo.provincia(), row, provincias);
            ubigeos.add(ubigeo);
        }
        if (ubigeos.isEmpty()) {
            throw new InvalidUbigeoFileException("the file holds no district");
        }
        return List.copyOf(ubigeos);
    }

    private static String field(CSVRecord record, String column, long row) {
        if (!record.isSet(column)) {
            throw new InvalidUbigeoFileException("row " + row + " has no value for '" + column + "'");
        }
        String value = record.get(column);
        if (value.isBlank()) {
            throw new InvalidUbigeoFileException("row " + row + ": '" + column + "' is blank");
        }
        return value;
    }

    private static void sameName(String level, String code, String name, long row, Map<String, Named> seen) {
        Named first = seen.putIfAbsent(code, new Named(name, row));
        if (first != null && !first.name.equals(name)) {
            throw new InvalidUbigeoFileException(level + " code " + code + " carries two names: '" + first.name
                    + "' (row " + first.row + ") and '" + name + "' (row " + row + ")");
        }
    }

    private record Named(String name, long row) {
    }
}
