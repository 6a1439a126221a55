package pe.quipu.api.testing;

import pe.quipu.api.webhooks.Webhooks;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The host names the application under test resolves for new webhook URLs: only those a test set, so that no test
 * depends on real DNS, and a test can change a name's answer (DNS pinning, rebinding).
 */
public final class TestDns implements Webhooks.HostResolver {

    private final Map<String, List<InetAddress>> names = new ConcurrentHashMap<>();

    /** {@code host} resolves to these addresses (literals) from now on. */
    public TestDns set(String host, String... addresses) {
        names.put(host.toLowerCase(), Arrays.stream(addresses).map(InetAddress::ofLiteral).toList());
        return this;
    }

    @Override
    public List<InetAddress> resolve(String host) throws UnknownHostException {
        List<InetAddress> addresses = names.get(host.toLowerCase());
        if (addresses == null) {
            throw new UnknownHostException(host);
        }
        return addresses;
    }
}
