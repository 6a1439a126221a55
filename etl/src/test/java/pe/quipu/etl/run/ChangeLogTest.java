package pe.quipu.etl.run;

import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.TestDatabase;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The SQL of a {@code changed} row's {@code changes}, evaluated by PostgreSQL on rows of values. */
class ChangeLogTest {

    private static final TestDatabase DATABASE = TestDatabase.get();
    /** Two plain fields, and a third composed of two parts, computed only when a part differs. */
    private static final List<ChangeLog.Field> FIELDS = List.of(
            new ChangeLog.Field("estado", "o.estado", "n.estado"),
            new ChangeLog.Field("condicion", "o.condicion", "n.condicion"),
            new ChangeLog.Field("direccion", "concat_ws(' ', o.via, o.numero)", "concat_ws(' ', n.via, n.numero)",
                    "(o.via, o.numero) is distinct from (n.via, n.numero)"));

    private static String changes(String old, String now) {
        return DATABASE.texts("select coalesce(cast(" + ChangeLog.changes(FIELDS) + " as text), 'NULL') || ' '"
                + " || cast(" + ChangeLog.differ(FIELDS) + " as text)"
                + " from (values " + old + ") o (estado, condicion, via, numero),"
                + " (values " + now + ") n (estado, condicion, via, numero)").getFirst();
    }

    @Test
    void exactlyTheFieldsThatDiffer() {
        assertThat(changes("('ACTIVO', 'HABIDO', 'AV. SOL', '12')", "('BAJA DE OFICIO', 'HABIDO', 'AV. SOL', '12')"))
                .isEqualTo("{\"estado\": {\"to\": \"BAJA DE OFICIO\", \"from\": \"ACTIVO\"}} true");
        assertThat(changes("('ACTIVO', 'HABIDO', 'AV. SOL', '12')", "('ACTIVO', 'NO HABIDO', 'JR. LUNA', '12')"))
                .isEqualTo("{\"condicion\": {\"to\": \"NO HABIDO\", \"from\": \"HABIDO\"},"
                        + " \"direccion\": {\"to\": \"JR. LUNA 12\", \"from\": \"AV. SOL 12\"}} true");
    }

    @Test
    void nothingDiffersIsNull() {
        assertThat(changes("('ACTIVO', 'HABIDO', 'AV. SOL', '12')", "('ACTIVO', 'HABIDO', 'AV. SOL', '12')"))
                .isEqualTo("NULL false");
    }

    @Test
    void nullsAreValuesOnEitherSide() {
        assertThat(changes("('ACTIVO', null, 'AV. SOL', '12')", "('ACTIVO', 'HABIDO', 'AV. SOL', '12')"))
                .isEqualTo("{\"condicion\": {\"to\": \"HABIDO\", \"from\": null}} true");
        assertThat(changes("('ACTIVO', 'HABIDO', 'AV. SOL', '12')", "('ACTIVO', null, 'AV. SOL', '12')"))
                .isEqualTo("{\"condicion\": {\"to\": null, \"from\": \"HABIDO\"}} true");
    }

    @Test
    void partsThatMoveButComposeTheSameValueAreNoChange() {
        assertThat(changes("('ACTIVO', 'HABIDO', 'AV. SOL', '12')", "('ACTIVO', 'HABIDO', 'AV.', 'SOL 12')"))
                .isEqualTo("NULL false");
    }
}
