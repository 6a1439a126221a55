package pe.quipu.api.watchlists;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.domain.Language;
import pe.quipu.api.domain.DomainException.InvalidInput;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The watchlists' rules without a server: the body's entries and rejections, the name, and the cursors. */
class WatchlistRulesTest {

    private final WatchlistBody bodies = new WatchlistBody(new ObjectMapper());

    private WatchlistBody.Entries read(String body, int max) {
        return bodies.read(body.getBytes(StandardCharsets.UTF_8), max, Language.ENGLISH);
    }

    @Test
    void well_formed_rucs_are_kept_once_in_request_order_and_the_rest_rejected_with_their_index() {
        WatchlistBody.Entries entries = read("""
                {"rucs": ["20131312955", "20100227461", "20131312955", "2010022746", 7, null, "20100227462", ""]}""",
                10);
        assertThat(entries.rucs()).containsExactly("20131312955", "20100227461");
        assertThat(entries.rejected()).extracting(WatchlistBody.Rejected::index).containsExactly(3, 4, 5, 6, 7);
        assertThat(entries.rejected()).extracting(WatchlistBody.Rejected::ruc)
                .containsExactly("2010022746", "7", null, "20100227462", "");
        assertThat(entries.rejected().get(3).detail()).contains("check digit");
    }

    @Test
    void the_call_s_limit_counts_elements_before_any_is_read() {
        assertThat(read("{\"rucs\":[\"x\",\"y\"]}", 2).rejected()).hasSize(2);
        assertThatThrownBy(() -> read("{\"rucs\":[\"x\",\"y\",\"z\"]}", 2)).isInstanceOf(InvalidInput.class)
                .hasMessageContaining("at most 2");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "[]", "{}", "{\"rucs\":null}", "{\"rucs\":{}}", "{\"rucs\":[],\"x\":1}",
            "{\"rucs\":[]}{}", "{\"rucs\":[],\"rucs\":[]}", "{\"rucs\":["})
    void a_body_that_is_not_one_rucs_array_is_refused_whole(String body) {
        assertThatThrownBy(() -> read(body, 10)).isInstanceOf(InvalidInput.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a", "proveedores", "lista-2026_q4", "0"})
    void names_of_the_rule(String name) {
        assertThat(AccountWatchlists.NAME.matcher(name).matches()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "A", "con espacio", "punto.", "ñ", "x/y"})
    void names_outside_the_rule(String name) {
        assertThat(AccountWatchlists.NAME.matcher(name).matches()).isFalse();
        assertThat(AccountWatchlists.NAME.matcher("a".repeat(65)).matches()).isFalse();
    }

    @Test
    void a_cursor_reads_back_only_with_its_own_list_and_kind() {
        Instant at = Instant.parse("2026-10-07T15:00:00.123456Z");
        String changes = WatchlistCursors.changes("prov", at, 42);
        assertThat(WatchlistCursors.changesAfter(changes, "prov"))
                .isEqualTo(new WatchlistCursors.ChangesAfter(at, 42));
        assertThatThrownBy(() -> WatchlistCursors.changesAfter(changes, "otra")).isInstanceOf(InvalidInput.class)
                .hasMessageContaining("another list");
        assertThatThrownBy(() -> WatchlistCursors.rucsAfter(changes, "prov")).isInstanceOf(InvalidInput.class);
        String rucs = WatchlistCursors.rucs("prov", "20100227461");
        assertThat(WatchlistCursors.rucsAfter(rucs, "prov")).isEqualTo("20100227461");
        assertThatThrownBy(() -> WatchlistCursors.rucsAfter("%%%", "prov")).isInstanceOf(InvalidInput.class);
        assertThatThrownBy(() -> WatchlistCursors.rucsAfter("a".repeat(200), "prov"))
                .isInstanceOf(InvalidInput.class);
    }
}
