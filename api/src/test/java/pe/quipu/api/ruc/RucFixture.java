package pe.quipu.api.ruc;

import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuClient;
import pe.quipu.api.testing.QuipuExtension;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the RUC tests share: the padrón sample in the registry, a key with {@code ruc:read}, the lookups they make with
 * it, and a change to a record written straight into {@code ruc_registry}, as the ETL writes it.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final QuipuExtension quipu = new QuipuExtension();
 * private static RucFixture registry;
 *
 * @BeforeAll
 * static void load() {
 *     registry = RucFixture.load(quipu);
 * }
 * }</pre>
 */
final class RucFixture {

    private final QuipuExtension quipu;
    private final String key;

    private RucFixture(QuipuExtension quipu, String key) {
        this.quipu = quipu;
        this.key = key;
    }

    /**
     * Loads the sample (an upsert: rows another test changed are put back as published) and issues a key with
     * {@code ruc:read} on an account of its own.
     */
    static RucFixture load(QuipuExtension quipu) {
        PadronFixtures.load(quipu.database, QuipuExtension.START);
        return new RucFixture(quipu, quipu.accounts.newKey(Scope.RUC_READ));
    }

    String key() {
        return key;
    }

    /** {@code GET /v1/ruc/{path}} with the key; {@code path} is a RUC and any query string. */
    HttpResponse<String> lookup(String path, String... headers) {
        return lookup(quipu, path, headers);
    }

    /** The same lookup, of another instance (a peer sharing the database). */
    HttpResponse<String> lookup(QuipuClient instance, String path, String... headers) {
        return instance.get("/v1/ruc/" + path, key, headers);
    }

    /** {@code POST /v1/ruc/batch} with the key and this JSON body. */
    HttpResponse<String> batch(String body) {
        return batch(quipu, body);
    }

    HttpResponse<String> batch(QuipuClient instance, String body) {
        return instance.post("/v1/ruc/batch", key, "application/json", body);
    }

    /** The ETag of a 200 or a 304. */
    static String etag(HttpResponse<String> response) {
        assertThat(response.statusCode()).as(response.body()).isIn(200, 304);
        return response.headers().firstValue("ETag").orElseThrow();
    }

    /**
     * Changes one record's {@code estado} in the table, as a load does; every instance hears of it when it commits
     * (NOTIFY), a few milliseconds later, which the caller waits for as it needs.
     */
    void setEstado(String ruc, String estado) throws SQLException {
        try (Connection c = quipu.database.connection();
             PreparedStatement update = c.prepareStatement("update ruc_registry set estado = ? where ruc = ?")) {
            update.setString(1, estado);
            update.setString(2, ruc);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
    }
}
