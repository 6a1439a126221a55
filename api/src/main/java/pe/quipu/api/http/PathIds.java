package pe.quipu.api.http;

import pe.quipu.api.domain.DomainException.NotFound;
import pe.quipu.api.domain.Text;

import java.util.UUID;
import java.util.regex.Pattern;

/** Ids in paths: anything but the canonical form is a resource the caller does not have (404, as another's is). */
public final class PathIds {

    private static final Pattern CANONICAL_UUID =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");

    private PathIds() {
    }

    /** The path's UUID; {@link NotFound} with {@code notFound} as its detail when it is not one. */
    public static UUID uuid(String id, Text notFound) {
        if (!CANONICAL_UUID.matcher(id).matches()) {
            throw new NotFound(notFound);
        }
        return UUID.fromString(id);
    }
}
