package pe.quipu.etl.padron;

import pe.quipu.etl.generate.PadronGenerator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One day's padrón file, written the way SUNAT writes it (Latin-1, CRLF, a trailing {@code |}): optionally the
 * generator's rows first (the same seed gives the same rows each day), then records of the test's own, which a test
 * changes from one day to the next. A record is the fifteen fields of a line; {@code -} publishes nothing.
 */
public final class PadronDay {

    private final long generated;
    private final long seed;
    private final Map<String, String[]> records = new LinkedHashMap<>();

    /** @param generated how many of {@link PadronGenerator}'s rows come first (seed {@code seed}) */
    public PadronDay(long generated, long seed) {
        this.generated = generated;
        this.seed = seed;
    }

    /** A copy with the same generated rows and records, to change into the next day. */
    public PadronDay next() {
        PadronDay next = new PadronDay(generated, seed);
        records.forEach((ruc, fields) -> next.records.put(ruc, fields.clone()));
        return next;
    }

    /** A copy with the generator's first {@code rows} rows instead (the same seed writes the same first rows). */
    public PadronDay withGenerated(long rows) {
        PadronDay other = new PadronDay(rows, seed);
        records.forEach((ruc, fields) -> other.records.put(ruc, fields.clone()));
        return other;
    }

    /**
     * Adds or replaces the record of {@code ruc}: name, estado, condición, ubigeo, then the ten address parts in the
     * file's order (TIPO DE VÍA, NOMBRE DE VÍA, CÓDIGO DE ZONA, TIPO DE ZONA, NÚMERO, INTERIOR, LOTE, DEPARTAMENTO,
     * MANZANA, KILÓMETRO), missing ones {@code -}.
     */
    public PadronDay put(String ruc, String razonSocial, String estado, String condicion, String ubigeo,
                         String... address) {
        String[] fields = new String[15];
        java.util.Arrays.fill(fields, "-");
        fields[0] = ruc;
        fields[1] = razonSocial;
        fields[2] = estado;
        fields[3] = condicion;
        fields[4] = ubigeo;
        System.arraycopy(address, 0, fields, 5, address.length);
        records.put(ruc, fields);
        return this;
    }

    /** Changes field {@code index} (1 name, 2 estado, 3 condición, 4 ubigeo, 5-14 the address parts) of a record. */
    public PadronDay set(String ruc, int index, String value) {
        records.get(ruc)[index] = value;
        return this;
    }

    public PadronDay remove(String ruc) {
        records.remove(ruc);
        return this;
    }

    /** The file's bytes. */
    public byte[] bytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out);
        return out.toByteArray();
    }

    public void write(OutputStream out) {
        try {
            if (generated > 0) {
                PadronGenerator.write(out, generated, seed);
            } else {
                out.write((PadronGenerator.HEADER + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            }
            for (String[] fields : records.values()) {
                out.write((String.join("|", fields) + "|\r\n").getBytes(StandardCharsets.ISO_8859_1));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    public Path writeTo(Path file) throws IOException {
        try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(file), 1 << 16)) {
            write(out);
        }
        return file;
    }
}
