package pe.quipu.api.http;

import ch.qos.logback.access.common.spi.IAccessEvent;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A request log pattern's header words ({@code %i{Name}}) never write a credential or an Idempotency-Key. */
class RequestHeaderRedactionTest {

    private static String logged(String header) {
        IAccessEvent event = (IAccessEvent) Proxy.newProxyInstance(IAccessEvent.class.getClassLoader(),
                new Class<?>[] {IAccessEvent.class}, (proxy, method, args) ->
                        method.getName().equals("getRequestHeader") ? "value-of-" + args[0] : null);
        RedactingRequestLogLayout.RequestHeader converter = new RedactingRequestLogLayout.RequestHeader();
        converter.setOptionList(List.of(header));
        converter.start();
        return converter.convert(event);
    }

    @Test
    void secrets_are_redacted_and_other_headers_written() {
        for (String secret : List.of("Authorization", "Cookie", "Idempotency-Key", "idempotency-key")) {
            assertThat(logged(secret)).as(secret).isEqualTo(QueryRedaction.REDACTED);
        }
        assertThat(logged("User-Agent")).isEqualTo("value-of-User-Agent");
    }
}
