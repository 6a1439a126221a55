package pe.quipu.etl.run;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The registry's change log, {@code ruc_changes} (changeset 022, contract §11), as the loads write it: in the
 * transaction that publishes the change, with the run's id ({@code load_run_id}, the {@code runId} of its
 * {@code etl.run.*} events) and the publication's time ({@code at}). This class builds the SQL of a {@code changed}
 * row's {@code changes}: {@code {field: {from, to}}} for exactly the fields that differ, a null side kept as
 * {@code null}.
 */
public final class ChangeLog {

    /** The table. */
    public static final String TABLE = "ruc_changes";

    /**
     * A field of an answer as the change log names it ({@code razonSocial}), the SQL of its value before and after
     * the change, each of type text, and optionally a cheaper condition without which the two cannot differ (for a
     * composed value such as {@code direccion}: whether any of its parts differs), or null.
     */
    public record Field(String name, String from, String to, String mayDiffer) {
        public Field(String name, String from, String to) {
            this(name, from, to, null);
        }

        private String differs() {
            String differs = "cast(" + from + " as text) is distinct from cast(" + to + " as text)";
            return mayDiffer == null ? differs : "(" + mayDiffer + " and " + differs + ")";
        }
    }

    private ChangeLog() {
    }

    /**
     * A jsonb expression: {@code {name: {from, to}}} for each field whose two values are distinct (nulls compared as
     * values), or null when none is. One object per differing field, concatenated, with no subquery or aggregate per
     * row, and a composed field computed only when its parts differ: on 90,000 changed records this took a quarter
     * of the time of a per-row aggregate over the fields (docs/decisions.md, "Registry changes").
     */
    public static String changes(List<Field> fields) {
        return "nullif(" + fields.stream()
                .map(f -> "case when " + f.differs() + " then jsonb_build_object('" + f.name() + "',"
                        + " jsonb_build_object('from', cast(" + f.from() + " as text), 'to', cast(" + f.to()
                        + " as text))) else '{}'::jsonb end")
                .collect(Collectors.joining(" || ")) + ", '{}'::jsonb)";
    }

    /** A boolean expression: whether any field's two values are distinct (nulls compared as values). */
    public static String differ(List<Field> fields) {
        return "(" + fields.stream().map(Field::differs).collect(Collectors.joining(" or ")) + ")";
    }
}
