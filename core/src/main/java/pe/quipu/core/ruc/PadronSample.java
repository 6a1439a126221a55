package pe.quipu.core.ruc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** The 61 real padrón lines bundled with Quipu (see SOURCE.md beside the file), read as the real file is. */
public final class PadronSample {

    private static final String RESOURCE = "padron_reducido_ruc.sample.txt";

    private PadronSample() {
    }

    /** The sample's records in file order, header skipped. */
    public static List<PadronRecord> records() {
        try (InputStream in = PadronSample.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the bundled padrón sample is missing");
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.ISO_8859_1));
            List<PadronRecord> records = new ArrayList<>();
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (!line.isEmpty() && !PadronLine.isHeader(line)) {
                    records.add(PadronLine.parse(line));
                }
            }
            return records;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The sample as raw bytes, exactly as SUNAT encodes the file. */
    public static InputStream open() {
        return PadronSample.class.getResourceAsStream(RESOURCE);
    }
}
