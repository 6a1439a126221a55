package pe.quipu.etl.run;

import java.util.Map;

/** The options a run was given on its command line ({@code --file}, {@code --url}, {@code --from}…), by name. */
public record JobOptions(Map<String, String> values) {

    public JobOptions {
        values = Map.copyOf(values);
    }

    /** The value of {@code --name}, or null when it was not given. */
    public String get(String name) {
        return values.get(name);
    }
}
