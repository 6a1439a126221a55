package pe.quipu.api.watchlists;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import pe.quipu.api.accounts.AccountPurge;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.testing.QuipuExtension;
import pe.quipu.api.testing.TestAccounts;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A watchlist is the account holder's data (contract §11, Privacy): the export holds every list with every RUC, the
 * deletion makes them inaccessible at once (WatchlistsTest), and the purge 30 days later removes them.
 */
class WatchlistPrivacyTest {

    private static final String JSON = "application/json";

    @RegisterExtension
    static final QuipuExtension quipu = new QuipuExtension();

    @Test
    void the_export_holds_every_list_with_its_rucs_in_ruc_order() {
        TestAccounts.Session session = quipu.accounts.newSession();
        String token = session.accessToken();
        assertThat(quipu.task("set-plan", "email", session.email(), "plan", "pro").statusCode()).isEqualTo(200);
        assertThat(quipu.put("/v1/watchlists/proveedores", token, JSON,
                WatchlistsTest.body(List.of(WatchlistsTest.ruc(3), WatchlistsTest.ruc(1), "mal"))).statusCode())
                .isEqualTo(201);
        quipu.clock.advance(Duration.ofMinutes(1));
        assertThat(quipu.put("/v1/watchlists/vacia", token, JSON, "{\"rucs\":[]}").statusCode()).isEqualTo(201);
        assertThat(quipu.put("/v1/watchlists/otra", quipu.accounts.newKey(Scope.WATCHLISTS_MANAGE), JSON,
                WatchlistsTest.body(List.of(WatchlistsTest.ruc(9)))).statusCode()).isEqualTo(201);

        HttpResponse<String> response = quipu.get("/v1/me/export", token);
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        JsonNode export = quipu.body(response);
        assertThat(export.get("watchlists").toString()).isEqualTo("[{\"name\":\"proveedores\",\"count\":2,"
                + "\"createdAt\":\"" + QuipuExtension.START + "\",\"updatedAt\":\"" + QuipuExtension.START + "\","
                + "\"rucs\":[\"" + WatchlistsTest.ruc(1) + "\",\"" + WatchlistsTest.ruc(3) + "\"]},"
                + "{\"name\":\"vacia\",\"count\":0,\"createdAt\":\"" + QuipuExtension.START.plusSeconds(60) + "\","
                + "\"updatedAt\":\"" + QuipuExtension.START.plusSeconds(60) + "\",\"rucs\":[]}]");
        assertThat(export.at("/_meta/counts/watchlists").asInt()).isEqualTo(2);
        assertThat(export.at("/_meta/counts/watchlists.rucs").asInt()).isEqualTo(2);
    }

    @Test
    void the_purge_removes_the_lists_and_their_rucs() {
        TestAccounts.Session session = quipu.accounts.newSession();
        assertThat(quipu.put("/v1/watchlists/se-va", session.accessToken(), JSON,
                WatchlistsTest.body(WatchlistsTest.rucs(0, 50))).statusCode()).isEqualTo(201);
        String count = "select (select count(*) from watchlists where account_id = ?)"
                + " + (select count(*) from watchlist_rucs where account_id = ?)";
        assertThat(quipu.database.texts(count, session.accountId(), session.accountId())).containsExactly("51");
        assertThat(WatchlistsTest.deleteAccount(quipu, session.accessToken()).statusCode()).isEqualTo(204);
        assertThat(quipu.database.texts(count, session.accountId(), session.accountId())).as("kept until the purge")
                .containsExactly("51");

        quipu.clock.advance(AccountPurge.WINDOW);
        assertThat(quipu.body(quipu.task("purge-deleted")).get("purged").asInt()).isPositive();
        assertThat(quipu.database.texts(count, session.accountId(), session.accountId())).containsExactly("0");
    }
}
