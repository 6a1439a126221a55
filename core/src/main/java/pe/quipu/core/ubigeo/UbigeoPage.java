package pe.quipu.core.ubigeo;

import java.util.List;

/**
 * One page of a catalogue search.
 *
 * @param items      in code order
 * @param nextCursor the last item's code when at least one more matching item follows it; {@code null}
 *                   exactly when none does
 */
public record UbigeoPage(List<Ubigeo> items, String nextCursor) {

    public static final UbigeoPage EMPTY = new UbigeoPage(List.of(), null);

    public UbigeoPage {
        items = List.copyOf(items);
    }
}
