package pe.quipu.api.http;

import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.Text;

/** The {@code limit} query parameter of a paged list: a page's size, from 1 to the list's maximum. */
public final class PageLimit {

    private PageLimit() {
    }

    /**
     * {@code value} as a page size, or {@code whenAbsent} when the parameter is absent.
     *
     * @throws InvalidInput on the field {@code limit} for anything but plain decimal digits (no sign, spaces,
     *                      decimals or exponent) naming a number from 1 to {@code max}
     */
    public static int parse(String value, int whenAbsent, int max) {
        if (value == null) {
            return whenAbsent;
        }
        // At most 9 digits keeps parseInt safe.
        if (value.isEmpty() || value.length() > 9 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new InvalidInput("limit", Text.of("http.limit.not_integer", max));
        }
        int limit = Integer.parseInt(value);
        if (limit < 1 || limit > max) {
            throw new InvalidInput("limit", Text.of("http.limit.out_of_range", max, limit));
        }
        return limit;
    }
}
