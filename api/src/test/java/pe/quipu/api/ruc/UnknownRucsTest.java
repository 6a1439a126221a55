package pe.quipu.api.ruc;

import com.codahale.metrics.Gauge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.core.ruc.Ruc;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A RUC the registry does not hold is answered from memory once looked up, exactly as the first time (the same 404,
 * no ETag, metered), until a write adds it; and a flood of such RUCs, kept in a budget of their own, leaves the real
 * answers in memory. A small {@code ruc.answerCache} (64 KiB: 8 KiB, some 40 RUCs, for the unknown ones) lets a
 * flood of a few hundred fill it. The RUCs 2096xxxxxxx are this class's own.
 */
class UnknownRucsTest {

    private static final String KNOWN = "20100227461";
    private static final String ADDED = ruc(1);
    private static final String UNKNOWN = ruc(2);

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension().with("ruc.answerCache", "64KiB");

    private static RucFixture registry;

    @BeforeAll
    static void load() {
        registry = RucFixture.load(quipu);
    }

    @AfterEach
    void removeTheAdded() {
        quipu.database.jdbi().useHandle(h -> h.execute("delete from ruc_registry where ruc like '2096%'"));
    }

    private static String ruc(int i) {
        return Ruc.completing(String.format("2096%06d", i)).value();
    }

    @Test
    void an_unknown_ruc_is_answered_from_memory_with_the_same_404_until_a_write_adds_it() throws Exception {
        long unknownHits = gauge("unknown.hits");
        HttpResponse<String> first = registry.lookup(ADDED);
        HttpResponse<String> again = registry.lookup(ADDED, "If-None-Match", "*");
        HttpResponse<String> batch = registry.batch("{\"rucs\":[\"" + ADDED + "\",\"" + KNOWN + "\"]}");

        assertThat(first.statusCode()).isEqualTo(404);
        assertThat(again.statusCode()).as("a RUC that does not exist matches no tag, not even *").isEqualTo(404);
        assertThat(withoutRequestId(again.body())).isEqualTo(withoutRequestId(first.body()))
                .isEqualTo("{\"type\":\"not_found\",\"title\":\"Not found\",\"status\":404,\"detail\":\"No taxpayer"
                        + " with RUC " + ADDED + " in the registry\"}");
        assertThat(headers(again)).isEqualTo(headers(first));
        assertThat(first.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(first.headers().firstValue("Cache-Control")).hasValue("no-store");
        assertThat(first.headers().firstValue("ETag")).isEmpty();
        assertThat(batch.body()).contains("{\"ruc\":\"" + ADDED + "\",\"status\":\"error\",\"error\":{\"type\":"
                + "\"not_found\",\"status\":404,\"detail\":\"No taxpayer with RUC " + ADDED + " in the registry\"}}");
        // From memory: the lookup again and the batch. A drop of everything that a write of an earlier test sets off
        // (its NOTIFY is heard asynchronously) may land between them, and then the two go once more.
        long hits = gauge("unknown.hits") - unknownHits;
        if (hits != 2) {
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                long before = gauge("unknown.hits");
                registry.lookup(ADDED, "If-None-Match", "*");
                registry.batch("{\"rucs\":[\"" + ADDED + "\",\"" + KNOWN + "\"]}");
                assertThat(gauge("unknown.hits") - before).as("the lookup again and the batch, from memory")
                        .isEqualTo(2);
            });
        }

        addCopyOf(KNOWN, ADDED);

        // Its notification reaches the instance a moment after the commit.
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                assertThat(registry.lookup(ADDED).statusCode()).isEqualTo(200));
        assertThat(registry.batch("{\"rucs\":[\"" + ADDED + "\"]}").body()).contains("\"status\":\"ok\"");
    }

    @Test
    void a_flood_of_unknown_rucs_evicts_only_unknown_rucs() {
        assertThat(registry.lookup(KNOWN).statusCode()).isEqualTo(200);
        long unknownEvictions = gauge("unknown.evictions");
        long answerEvictions = gauge("answers.evictions");

        for (int batch = 0; batch < 4; batch++) {
            List<String> rucs = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                rucs.add('"' + ruc(1000 + batch * 100 + i) + '"');
            }
            HttpResponse<String> answer = registry.batch("{\"rucs\":[" + String.join(",", rucs) + "]}");
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        }

        assertThat(gauge("unknown.bytes")).isLessThanOrEqualTo(RucAnswers.unknownBytes(64 * 1024));
        assertThat(gauge("unknown.evictions")).as("the flood evicted unknown RUCs").isGreaterThan(unknownEvictions);
        assertThat(gauge("answers.evictions")).as("and no answer").isEqualTo(answerEvictions);
        long answerHits = gauge("answers.hits");
        assertThat(registry.lookup(KNOWN).statusCode()).isEqualTo(200);
        assertThat(gauge("answers.hits") - answerHits).as("the known RUC, still from memory").isEqualTo(1);
    }

    private static long gauge(String name) {
        Gauge<?> gauge = quipu.environment().metrics().getGauges().get("pe.quipu.api.ruc.Rucs." + name);
        assertThat(gauge).as(name).isNotNull();
        return ((Number) gauge.getValue()).longValue();
    }

    /** Adds a copy of a record under another RUC, as a writer other than a load's publication would. */
    private static void addCopyOf(String ruc, String as) throws Exception {
        try (Connection c = quipu.database.connection()) {
            c.setAutoCommit(false);
            try (PreparedStatement copy = c.prepareStatement(
                    "create temporary table unknown_rucs_copy on commit drop as select * from ruc_registry where ruc = ?");
                 PreparedStatement rename = c.prepareStatement("update unknown_rucs_copy set ruc = ?");
                 PreparedStatement insert = c.prepareStatement("insert into ruc_registry select * from unknown_rucs_copy")) {
                copy.setString(1, ruc);
                copy.execute();
                rename.setString(1, as);
                rename.execute();
                assertThat(insert.executeUpdate()).isEqualTo(1);
            }
            c.commit();
        }
    }

    private static String withoutRequestId(String body) {
        return body.replaceAll(",\"requestId\":\"[^\"]*\"", "");
    }

    /** The headers but those that differ from one answer to the next. */
    private static Map<String, List<String>> headers(HttpResponse<String> response) {
        Map<String, List<String>> headers = new TreeMap<>(response.headers().map());
        headers.keySet().removeIf(name -> name.equalsIgnoreCase("date") || name.equalsIgnoreCase("x-request-id")
                || name.toLowerCase().startsWith("ratelimit") || name.toLowerCase().startsWith("x-quota"));
        return headers;
    }
}
