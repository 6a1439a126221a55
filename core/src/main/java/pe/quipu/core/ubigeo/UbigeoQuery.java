package pe.quipu.core.ubigeo;

/**
 * One page request against a {@link UbigeoCatalogue}. Every filter is optional ({@code null}); the ones given
 * must all hold.
 *
 * @param q            case- and accent-insensitive substring of the district, province or department name
 * @param departamento 2-digit department code: the first two digits of the code
 * @param provincia    4-digit province code: the first four digits of the code
 * @param cursor       6-digit code; only codes greater than it are returned
 * @param limit        the most items on the page, at least 1
 */
public record UbigeoQuery(String q, String departamento, String provincia, String cursor, int limit) {

    public UbigeoQuery {
        if (departamento != null && !Ubigeo.isCode(departamento, 2)) {
            throw new IllegalArgumentException("departamento is 2 digits, not " + departamento);
        }
        if (provincia != null && !Ubigeo.isCode(provincia, 4)) {
            throw new IllegalArgumentException("provincia is 4 digits, not " + provincia);
        }
        if (cursor != null && !Ubigeo.isCode(cursor, 6)) {
            throw new IllegalArgumentException("cursor is 6 digits, not " + cursor);
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit is at least 1, not " + limit);
        }
    }

    /** The first page of the whole catalogue. */
    public static UbigeoQuery all(int limit) {
        return new UbigeoQuery(null, null, null, null, limit);
    }

    public UbigeoQuery withQ(String value) {
        return new UbigeoQuery(value, departamento, provincia, cursor, limit);
    }

    public UbigeoQuery withDepartamento(String value) {
        return new UbigeoQuery(q, value, provincia, cursor, limit);
    }

    public UbigeoQuery withProvincia(String value) {
        return new UbigeoQuery(q, departamento, value, cursor, limit);
    }

    public UbigeoQuery withCursor(String value) {
        return new UbigeoQuery(q, departamento, provincia, value, limit);
    }
}
