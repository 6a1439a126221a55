package pe.quipu.core.ruc;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ContentHashTest {

    /** The definition: the first 8 bytes of MD5 over the UTF-8 of the fields joined by U+001F, null as U+001E. */
    private static long definition(PadronRecord r) throws Exception {
        Address a = r.address();
        List<String> fields = new ArrayList<>();
        for (String f : new String[] {r.razonSocial(), r.estado(), r.condicion(), r.ubigeo(), a.tipoVia(),
                a.nombreVia(), a.codigoZona(), a.tipoZona(), a.numero(), a.interior(), a.lote(), a.departamento(),
                a.manzana(), a.kilometro()}) {
            fields.add(f == null ? "\u001e" : f);
        }
        byte[] digest = MessageDigest.getInstance("MD5")
                .digest(String.join("\u001f", fields).getBytes(StandardCharsets.UTF_8));
        return ByteBuffer.wrap(digest).getLong();
    }

    @Test
    void every_real_sample_record_hashes_as_defined() throws Exception {
        ContentHash hash = new ContentHash();
        for (PadronRecord r : PadronSample.records()) {
            assertThat(hash.of(r)).as(r.ruc().value()).isEqualTo(definition(r));
        }
    }

    @Test
    void characters_of_every_utf8_length_hash_as_defined() throws Exception {
        PadronRecord base = PadronSample.records().getFirst();
        ContentHash hash = new ContentHash();
        for (String name : List.of("ÑANDÚ S.A.C.", "EURO € SAC", "MÚSICA \uD834\uDD1E E.I.R.L.", "x".repeat(2000))) {
            PadronRecord r = new PadronRecord(base.ruc(), name, base.estado(), base.condicion(), base.ubigeo(),
                    base.address());
            assertThat(hash.of(r)).as(name).isEqualTo(definition(r));
        }
        // Reused across records: a long record does not leak into the next one.
        assertThat(hash.of(base)).isEqualTo(definition(base));
    }

    @Test
    void the_hashed_bytes_of_each_field_are_its_utf8_and_null_stays_null() throws Exception {
        ContentHash hash = new ContentHash();
        for (PadronRecord r : PadronSample.records()) {
            hash.of(r);
            Address a = r.address();
            List<String> fields = java.util.Arrays.asList(r.razonSocial(), r.estado(), r.condicion(), r.ubigeo(),
                    a.tipoVia(), a.nombreVia(), a.codigoZona(), a.tipoZona(), a.numero(), a.interior(), a.lote(),
                    a.departamento(), a.manzana(), a.kilometro());
            for (int i = 0; i < ContentHash.FIELDS; i++) {
                String expected = fields.get(i);
                int length = hash.fieldLength(i);
                String actual = length < 0 ? null : new String(hash.buffer(), hash.fieldStart(i), length,
                        java.nio.charset.StandardCharsets.UTF_8);
                assertThat(actual).as(r.ruc().value() + " field " + i).isEqualTo(expected);
            }
        }
    }
}
