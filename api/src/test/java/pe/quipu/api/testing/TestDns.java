package pe.quipu.api.testing;

import pe.quipu.api.webhooks.Webhooks;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The host names the application under test resolves for new webhook URLs: only those a test set, so that no test
 * depends on real DNS, and a test can change a name's answer (DNS pinning, rebinding), make a name's lookup hang as
 * an unanswering name server does, and count the lookups of a name.
 */
public final class TestDns implements Webhooks.HostResolver {

    private final Map<String, List<InetAddress>> names = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> lookups = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> hanging = new ConcurrentHashMap<>();

    /** {@code host} resolves to these addresses (literals) from now on. */
    public TestDns set(String host, String... addresses) {
        names.put(host.toLowerCase(), Arrays.stream(addresses).map(InetAddress::ofLiteral).toList());
        return this;
    }

    /** A lookup of {@code host} blocks until {@link #release} (and then does not resolve). */
    public TestDns hang(String host) {
        hanging.put(host.toLowerCase(), new CountDownLatch(1));
        return this;
    }

    /** Ends the lookups of {@code host} that {@link #hang} holds. */
    public void release(String host) {
        CountDownLatch latch = hanging.remove(host.toLowerCase());
        if (latch != null) {
            latch.countDown();
        }
    }

    /** As new: no name set, no lookup counted, every hanging lookup released (between the test classes sharing it). */
    public void reset() {
        names.clear();
        lookups.clear();
        List.copyOf(hanging.keySet()).forEach(this::release);
    }

    /** How many times {@code host} was looked up. */
    public int lookups(String host) {
        AtomicInteger count = lookups.get(host.toLowerCase());
        return count == null ? 0 : count.get();
    }

    @Override
    public List<InetAddress> resolve(String host) throws UnknownHostException {
        String name = host.toLowerCase();
        lookups.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
        CountDownLatch latch = hanging.get(name);
        if (latch != null) {
            // As the system's resolver, deaf to interrupts until its answer (the flag is kept).
            boolean interrupted = false;
            while (true) {
                try {
                    latch.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            throw new UnknownHostException(host);
        }
        List<InetAddress> addresses = names.get(name);
        if (addresses == null) {
            throw new UnknownHostException(host);
        }
        return addresses;
    }
}
