package pe.quipu.etl;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** QUIPU_LOG_FORMAT=json in the ETL (contract §13): one JSON object a line, with the API's fields. */
class EtlLoggingTest {

    @Test
    void a_json_line_has_the_contract_fields() throws Exception {
        LoggerContext context = new LoggerContext();
        var encoder = EtlLogging.json(context);
        LoggingEvent event = new LoggingEvent("x", context.getLogger("pe.quipu.etl.padron.PadronJob"), Level.INFO,
                "padron: {} rows", null, new Object[] {42});
        event.setMDCPropertyMap(java.util.Map.of());
        String line = new String(encoder.encode(event), StandardCharsets.UTF_8);
        assertThat(line).endsWith(System.lineSeparator()).doesNotContain("\n{");
        JsonNode json = new ObjectMapper().readTree(line);
        assertThat(json.path("level").asText()).isEqualTo("INFO");
        assertThat(json.path("logger").asText()).isEqualTo("pe.quipu.etl.padron.PadronJob");
        assertThat(json.path("message").asText()).isEqualTo("padron: 42 rows");
        assertThat(json.path("timestamp").asText()).endsWith("Z");
    }
}
