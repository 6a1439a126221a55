package pe.quipu.api.testing;

import pe.quipu.core.ruc.PadronRecord;
import pe.quipu.core.ruc.PadronSample;
import pe.quipu.core.ruc.RegistryUpsert;
import pe.quipu.core.testing.TestDatabase;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * The 61 real lines of SUNAT's padrón sample bundled with Quipu, read as the ETL reads the real file
 * (ISO-8859-1, the core parser) and written into {@code ruc_registry}. Loading is an upsert, so every test
 * class may call it: the database is shared by the whole test JVM.
 */
public final class PadronFixtures {

    private PadronFixtures() {
    }

    /** The sample's records in file order, header skipped. */
    public static List<PadronRecord> records() {
        return PadronSample.records();
    }

    /**
     * Upserts every sample record (no tipo/ciiu: the padrón has neither) with {@code actualizado} for the rows
     * it inserts or changes, and records the load. Rows a test changed are put back as published.
     */
    public static void load(TestDatabase database, Instant actualizado) {
        database.jdbi().useTransaction(h -> RegistryUpsert.upsert(h, records(), actualizado));
    }

    /**
     * For a test class that replaced the registry with files of its own: the sample back as the registry's only
     * records (as at {@link QuipuExtension#START}), and the class's folder of files deleted.
     */
    public static void restore(TestDatabase database, Path files) throws IOException {
        database.jdbi().useHandle(h -> h.execute("delete from ruc_registry"));
        load(database, QuipuExtension.START);
        try (var paths = Files.walk(files)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
