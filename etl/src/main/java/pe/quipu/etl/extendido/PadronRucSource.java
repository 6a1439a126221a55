package pe.quipu.etl.extendido;

import pe.quipu.etl.source.SourceFile;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Reads a {@code padron-extendido} file: the CSV itself or a zip holding it ({@link SourceFile}), decoded as
 * UTF-8. A {@code --url} is downloaded first with {@link pe.quipu.etl.source.Download}, as the padrón is.
 */
final class PadronRucSource {

    private PadronRucSource() {
    }

    /** The CSV's lines, decoded as UTF-8 (malformed bytes replaced rather than failing the whole run). */
    static BufferedReader open(Path file) throws IOException {
        InputStream in = SourceFile.open(file, ".csv");
        return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE)), 1 << 16);
    }
}
