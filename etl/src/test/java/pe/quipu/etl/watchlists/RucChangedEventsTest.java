package pe.quipu.etl.watchlists;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.PadronFixtures;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;
import pe.quipu.api.testing.WebhookReceiver;
import pe.quipu.core.ruc.Ruc;
import pe.quipu.etl.padron.PadronDay;
import pe.quipu.etl.testing.EtlRun;
import pe.quipu.etl.testing.EtlRunner;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code ruc.changed} (contract §11) from real loads: one event per account, per load and per watched RUC that
 * changed, naming each list of the account that holds it, written in the publication's transaction from the change
 * log joined to the watchlists, and delivered, signed, to the account's endpoint, where the receiver's own library
 * verifies it. Unwatched and unchanged RUCs give none, an unchanged reload gives none, and neither does an account
 * that cannot receive it. The RUCs 2095xxxxxxx are this class's own; the registry is emptied, and the sample put back
 * at the end.
 */
class RucChangedEventsTest {

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("webhooks.allowPrivateNetworks", "true");
    private static final EtlRunner etl = new EtlRunner(quipu.clock, quipu.bcrp, quipu.database);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String JSON_TYPE = "application/json";

    private static final String ESTADO = ruc(1);
    private static final String CONDICION = ruc(2);
    private static final String REMOVED = ruc(3);
    private static final String ADDED = ruc(4);
    private static final String UNCHANGED = ruc(5);
    private static final String UNWATCHED = ruc(6);
    private static final String LISTED = ruc(7);

    private static WebhookReceiver receiver;
    private static Path dir;

    static String ruc(int i) {
        return Ruc.completing(String.format("2095%06d", i)).value();
    }

    @BeforeAll
    static void setUp() throws IOException {
        receiver = WebhookReceiver.start();
        dir = Files.createTempDirectory("quipu-ruc-changed-test-");
        quipu.database.jdbi().useHandle(h -> h.execute("delete from ruc_registry"));
    }

    @AfterAll
    static void putTheSampleBack() throws IOException {
        receiver.close();
        PadronFixtures.restore(quipu.database, dir);
    }

    /** An account with a key for both features and an endpoint at {@code path} subscribed to {@code events}. */
    private record Watcher(UUID account, String key, String secret) {
    }

    private static Watcher watcher(String path, String events) {
        String key = quipu.accounts.newKey(Scope.WEBHOOKS_MANAGE, Scope.WATCHLISTS_MANAGE);
        HttpResponse<String> created = quipu.post("/v1/webhooks", key, JSON_TYPE,
                "{\"url\":\"" + receiver.url(path) + "\",\"events\":" + events + "}");
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return new Watcher(quipu.accounts.accountOf(key), key, quipu.body(created).get("secret").asText());
    }

    private static void watch(String key, String list, String... rucs) {
        HttpResponse<String> put = quipu.put("/v1/watchlists/" + list, key, JSON_TYPE,
                "{\"rucs\":[\"" + String.join("\",\"", rucs) + "\"]}");
        assertThat(put.statusCode()).as(put.body()).isIn(200, 201);
    }

    /** The run's ruc.changed events of an account, by RUC: their data as JSON. */
    private static Map<String, JsonNode> events(UUID account, long runId) {
        Map<String, JsonNode> byRuc = new TreeMap<>();
        for (String data : quipu.database.texts("select data::text from events where type = 'ruc.changed'"
                + " and account_id = ? and (data->>'loadRunId')::bigint = ?", account, runId)) {
            JsonNode node = read(data);
            assertThat(byRuc.put(node.get("ruc").asText(), node)).as("one event per RUC").isNull();
        }
        return byRuc;
    }

    private static JsonNode read(String text) {
        try {
            return JSON.readTree(text);
        } catch (IOException e) {
            throw new AssertionError(text, e);
        }
    }

    @Test
    void a_padron_load_tells_each_watching_account_once_per_changed_ruc_and_the_deliveries_verify()
            throws Exception {
        // Near the real time: the receiver's library refuses a signature more than five minutes away from it.
        Instant day2 = Instant.now().truncatedTo(ChronoUnit.SECONDS).plusNanos(123_456_000);
        Instant day1 = day2.minus(Duration.ofDays(1)).truncatedTo(ChronoUnit.SECONDS);
        Watcher a = watcher("/a", "[\"ruc.changed\"]");
        Watcher b = watcher("/b", "[\"ruc.changed\",\"key.created\"]");
        Watcher notSubscribed = watcher("/c", "[\"key.created\"]");
        TestAccounts.Session deletedSession = quipu.accounts.newSession();
        assertThat(quipu.task("set-plan", "email", deletedSession.email(), "plan", "pro").statusCode()).isEqualTo(200);
        String deletedKey = quipu.accounts.issueKey(deletedSession.accountId(), Scope.WEBHOOKS_MANAGE,
                Scope.WATCHLISTS_MANAGE);
        assertThat(quipu.post("/v1/webhooks", deletedKey, JSON_TYPE, "{\"url\":\"" + receiver.url("/deleted")
                + "\",\"events\":[\"ruc.changed\"]}").statusCode()).isEqualTo(201);

        watch(a.key(), "proveedores", ESTADO, CONDICION, REMOVED, ADDED, UNCHANGED);
        watch(a.key(), "criticos", ESTADO);
        watch(b.key(), "compras", ESTADO);
        watch(notSubscribed.key(), "todo", ESTADO, CONDICION);
        watch(deletedKey, "todo", ESTADO);
        assertThat(quipu.send(HttpRequest.newBuilder(quipu.uri("/v1/me"))
                .method("DELETE", HttpRequest.BodyPublishers.ofString("{\"confirmation\":\"BORRAR MI CUENTA\"}"))
                .header("Content-Type", JSON_TYPE), deletedSession.accessToken()).statusCode()).isEqualTo(204);

        PadronDay first = new PadronDay(500, 95)
                .put(ESTADO, "ANTA WASI S.A.C.", "ACTIVO", "HABIDO", "150101")
                .put(CONDICION, "QORI SUNQU E.I.R.L.", "ACTIVO", "HABIDO", "150101")
                .put(REMOVED, "PUKA RUMI S.A.", "ACTIVO", "HABIDO", "150101")
                .put(UNCHANGED, "YURAQ PATA S.A.C.", "ACTIVO", "HABIDO", "150101")
                .put(UNWATCHED, "SACHA WASI S.A.C.", "ACTIVO", "HABIDO", "150101");
        quipu.clock.set(day1);
        EtlRun load1 = etl.run("padron", "--file", first.writeTo(dir.resolve("day1.txt")).toString());
        assertThat(load1.exitCode()).as(load1.stdout()).isZero();
        assertThat(quipu.database.texts("select count(*) from events where type = 'ruc.changed'"
                + " and (data->>'loadRunId')::bigint = ?", load1.runId())).as("the first load records nothing")
                .containsExactly("0");

        PadronDay second = first.next()
                .set(ESTADO, 2, "BAJA DE OFICIO")
                .set(CONDICION, 3, "NO HABIDO")
                .remove(REMOVED)
                .put(ADDED, "MAYU PATA S.A.", "ACTIVO", "HABIDO", "150101")
                .set(UNWATCHED, 2, "SUSPENSION TEMPORAL");
        quipu.clock.set(day2);
        Path day2File = second.writeTo(dir.resolve("day2.txt"));
        EtlRun load2 = etl.run("padron", "--file", day2File.toString());
        assertThat(load2.exitCode()).as(load2.stdout()).isZero();
        long run = load2.runId();

        Map<String, JsonNode> ofA = events(a.account(), run);
        assertThat(ofA.keySet()).containsExactlyInAnyOrder(ESTADO, CONDICION, REMOVED, ADDED);
        assertThat(ofA.get(ESTADO).get("watchlists").toString()).isEqualTo("[\"criticos\",\"proveedores\"]");
        assertThat(ofA.get(CONDICION).get("watchlists").toString()).isEqualTo("[\"proveedores\"]");
        assertThat(ofA.get(ESTADO).get("kind").asText()).isEqualTo("changed");
        assertThat(ofA.get(ESTADO).get("changes").toString())
                .isEqualTo("{\"estado\":{\"to\":\"BAJA DE OFICIO\",\"from\":\"ACTIVO\"}}");
        assertThat(ofA.get(ESTADO).get("padrones").isNull()).isTrue();
        assertThat(ofA.get(ESTADO).get("loadRunId").asLong()).isEqualTo(run);
        assertThat(ofA.get(ESTADO).get("at").asText()).isEqualTo(day2.toString());
        assertThat(ofA.get(REMOVED).get("kind").asText()).isEqualTo("removed");
        assertThat(ofA.get(REMOVED).get("changes").isNull()).isTrue();
        assertThat(ofA.get(ADDED).get("kind").asText()).isEqualTo("added");
        Map<String, JsonNode> ofB = events(b.account(), run);
        assertThat(ofB.keySet()).containsExactly(ESTADO);
        assertThat(ofB.get(ESTADO).get("watchlists").toString()).isEqualTo("[\"compras\"]");
        assertThat(events(notSubscribed.account(), run)).as("no endpoint subscribed").isEmpty();
        assertThat(events(deletedSession.accountId(), run)).as("a deleted account").isEmpty();
        assertThat(quipu.database.texts("select count(*) from events where type = 'ruc.changed' and data->>'ruc' = ?",
                UNWATCHED)).containsExactly("0");
        // The event's change is the log's, as the changes API answers it.
        JsonNode page = quipu.body(quipu.get("/v1/watchlists/proveedores/changes?since="
                + day1.toString(), a.key()));
        assertThat(page.get("items")).hasSize(4);
        for (JsonNode change : page.get("items")) {
            JsonNode event = ofA.get(change.get("ruc").asText());
            for (String member : List.of("ruc", "kind", "changes", "padrones", "loadRunId", "at")) {
                assertThat(event.get(member)).as(member).isEqualTo(change.get(member));
            }
        }

        // Delivered: five events, each to its account's endpoint, each verified with the receiver's own library.
        List<WebhookReceiver.Received> received = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            received.add(receiver.next(Duration.ofSeconds(30)));
        }
        assertThat(received).extracting(WebhookReceiver.Received::path)
                .containsExactlyInAnyOrder("/a", "/a", "/a", "/a", "/b");
        for (WebhookReceiver.Received r : received) {
            String secret = r.path().equals("/a") ? a.secret() : b.secret();
            new com.standardwebhooks.Webhook(secret).verify(r.bodyText(), r.headerMap());
            JsonNode envelope = read(r.bodyText());
            assertThat(envelope.get("type").asText()).isEqualTo("ruc.changed");
            assertThat(r.header("x-quipu-event")).isEqualTo("ruc.changed");
            assertThat(envelope.get("createdAt").asText()).isEqualTo(day2.toString());
            Watcher to = r.path().equals("/a") ? a : b;
            assertThat(envelope.get("data")).isEqualTo(events(to.account(), run).get(envelope.get("data").get("ruc")
                    .asText()));
        }
        assertThat(receiver.anyWithin(Duration.ofSeconds(2))).as("nothing more").isFalse();

        // The same file again: nothing changed, nothing is told.
        quipu.clock.set(day2.plusSeconds(60));
        EtlRun again = etl.run("padron", "--file", day2File.toString());
        assertThat(again.exitCode()).as(again.stdout()).isZero();
        assertThat(quipu.database.texts("select count(*) from events where type = 'ruc.changed'"
                + " and (data->>'loadRunId')::bigint = ?", again.runId())).containsExactly("0");
    }

    @Test
    void a_ruc_joining_one_of_sunat_s_lists_is_told_as_padrones() throws Exception {
        Watcher a = watcher("/lists", "[\"ruc.changed\"]");
        watch(a.key(), "buenos", LISTED);
        List<String> saved = quipu.database.texts("select ruc || '|' || desde || '|' || coalesce(resolucion, '')"
                + " from sunat_padrones where padron = 'buenos_contribuyentes'");
        quipu.database.jdbi().useHandle(h -> h.execute("delete from sunat_padrones"
                + " where padron = 'buenos_contribuyentes'"));
        try {
            EtlRun first = etl.run("buenos-contribuyentes", "--file", list("first.txt", ruc(8)).toString());
            assertThat(first.exitCode()).as(first.stdout()).isZero();
            quipu.clock.advance(Duration.ofDays(1));
            EtlRun second = etl.run("buenos-contribuyentes", "--file", list("second.txt", ruc(8), LISTED)
                    .toString());
            assertThat(second.exitCode()).as(second.stdout()).isZero();
            Map<String, JsonNode> told = events(a.account(), second.runId());
            assertThat(told.keySet()).containsExactly(LISTED);
            assertThat(told.get(LISTED).get("kind").asText()).isEqualTo("padrones");
            assertThat(told.get(LISTED).get("padrones").toString())
                    .isEqualTo("{\"left\":[],\"joined\":[\"buenos_contribuyentes\"]}");
            assertThat(told.get(LISTED).get("watchlists").toString()).isEqualTo("[\"buenos\"]");
            assertThat(receiver.next(Duration.ofSeconds(30)).path()).isEqualTo("/lists");
        } finally {
            quipu.database.jdbi().useHandle(h -> {
                h.execute("delete from sunat_padrones where padron = 'buenos_contribuyentes'");
                for (String row : saved) {
                    String[] parts = row.split("\\|", -1);
                    h.execute("insert into sunat_padrones (ruc, padron, desde, resolucion)"
                            + " values (?, 'buenos_contribuyentes', cast(? as date), nullif(?, ''))",
                            parts[0], parts[1], parts[2]);
                }
            });
        }
    }

    @Test
    void a_ruc_whose_tipo_changes_in_the_extended_padron_is_told() throws Exception {
        String ruc = ruc(9);
        boolean loadedBefore = !quipu.database.texts("select 1 from dataset_loads where dataset = 'padron-extendido'")
                .isEmpty();
        quipu.database.jdbi().useHandle(h -> h.execute("insert into ruc_registry (ruc, razon_social, estado, condicion,"
                + " actualizado) values (?, 'TIPO CAMBIANTE S.A.C.', 'ACTIVO', 'HABIDO', ?)", ruc, quipu.clock.instant()));
        try {
            Watcher a = watcher("/extendido", "[\"ruc.changed\"]");
            watch(a.key(), "tipos", ruc);
            // The first load of the extended padrón records nothing; the second records what it changes.
            EtlRun first = etl.run("padron-extendido", "--file", extendido("tipo1.csv", ruc, "SOCIEDAD ANONIMA").toString());
            assertThat(first.exitCode()).as(first.stdout()).isZero();
            quipu.clock.advance(Duration.ofDays(1));
            EtlRun second = etl.run("padron-extendido", "--file",
                    extendido("tipo2.csv", ruc, "SOCIEDAD ANONIMA CERRADA").toString());
            assertThat(second.exitCode()).as(second.stdout()).isZero();
            Map<String, JsonNode> told = events(a.account(), second.runId());
            assertThat(told.keySet()).containsExactly(ruc);
            assertThat(told.get(ruc).get("kind").asText()).isEqualTo("changed");
            assertThat(told.get(ruc).get("changes").toString())
                    .isEqualTo("{\"tipo\":{\"to\":\"SOCIEDAD ANONIMA CERRADA\",\"from\":\"SOCIEDAD ANONIMA\"}}");
            assertThat(receiver.next(Duration.ofSeconds(30)).path()).isEqualTo("/extendido");
        } finally {
            quipu.database.jdbi().useHandle(h -> {
                h.execute("delete from ruc_registry where ruc = ?", ruc);
                if (!loadedBefore) {
                    h.execute("delete from dataset_loads where dataset = 'padron-extendido'");
                }
            });
        }
    }

    /** An extended padrón CSV (PadronRUC) with one line: this RUC of this tipo. */
    private static Path extendido(String name, String ruc, String tipo) throws IOException {
        String text = "RUC,Estado,Condicion,Tipo,Actividad_Economica_CIIU_revision3_Principal,"
                + "Actividad_Economica_CIIU_revision3_Secundaria,Actividad_Economica_CIIU_revision4_Principal,NroTrab,"
                + "TipoFacturacion,TipoContabilidad,ComercioExterior,UBIGEO,Departamento,Provincia,Distrito,"
                + "PERIODO_PUBLICACION\r\n"
                + ruc + ",ACTIVO,HABIDO," + tipo + ",NO DISPONIBLE,NO DISPONIBLE,46900,5,,,,,,,,202609\r\n";
        Path file = dir.resolve(name);
        Files.write(file, text.getBytes(StandardCharsets.UTF_8));
        return file;
    }

    /** A SUNAT list file (Latin-1, '|'-separated, a header, a trailing '|') holding these RUCs. */
    private static Path list(String name, String... rucs) throws IOException {
        StringBuilder text = new StringBuilder("Ruc|Razon Social|A partir del|Resolucion|\r\n");
        for (String ruc : rucs) {
            text.append(ruc).append("|EMPRESA ").append(ruc).append("|01/10/2026|R.S. 0001|\r\n");
        }
        Path file = dir.resolve(name);
        Files.write(file, text.toString().getBytes(StandardCharsets.ISO_8859_1));
        return file;
    }
}
