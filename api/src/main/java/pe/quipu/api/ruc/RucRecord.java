package pe.quipu.api.ruc;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

import java.time.Instant;

/**
 * The RUC record of the interface spec, exactly its fields in its order. Nulls are written, not omitted: a
 * client can tell "no address published" from a field it does not know. The fixed order also keeps the
 * serialised bytes, and so the ETag, stable.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
@JsonPropertyOrder({"ruc", "razonSocial", "estado", "condicion", "tipo", "ubigeo", "direccion", "ciiu", "actualizado"})
public record RucRecord(String ruc, String razonSocial, String estado, String condicion, String tipo,
                        String ubigeo, String direccion, String ciiu, Instant actualizado) {
}
