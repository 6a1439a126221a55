package pe.quipu.api.http;

import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Sends the lookups through the application (servlets, Jersey, the credential and scope filters, the resources,
 * the answer caches, Jackson) for a few seconds while the server starts, before its connectors open, so that the
 * JIT has compiled them when the first client arrives: a restarted instance behind a load balancer serves at speed
 * from its first request instead of after a minute of load.
 *
 * <p>It is a bean of the Jetty server added after its handlers: Jetty starts beans in order and the connectors
 * last. The requests go through an in-memory connector of a server of its own, straight to the application
 * context, so they reach neither the request log nor the metrics. They carry a key that exists only in this
 * process's memory while the warm-up runs ({@code ApiKeyPrincipal.WARM_UP_ACCOUNT}, not metered); it is forgotten
 * before the connectors open.
 */
public final class WarmUp extends AbstractLifeCycle {

    private static final Logger LOG = LoggerFactory.getLogger(WarmUp.class);

    /** A key that exists in this process's memory only, until {@link #forget} runs. */
    public record Key(String secret, Runnable forget) {
    }

    private final Handler application;
    private final Duration duration;
    private final Supplier<Key> admitKey;
    private final Supplier<List<String>> rucs;
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private volatile long millis;

    /**
     * @param application the application's context (its routes)
     * @param duration    how long to send requests; zero skips the warm-up
     * @param admitKey    makes a new key with every read scope, in memory only
     * @param rucs        some RUCs of the registry (none when it is empty: the not-found path is used)
     */
    public WarmUp(Handler application, Duration duration, Supplier<Key> admitKey,
                  Supplier<List<String>> rucs) {
        this.application = application;
        this.duration = duration;
        this.admitKey = admitKey;
        this.rucs = rucs;
    }

    @Override
    protected void doStart() throws Exception {
        if (duration.isZero()) {
            return;
        }
        long started = System.nanoTime();
        Key key = admitKey.get();
        String secret = key.secret();
        QueuedThreadPool threads = new QueuedThreadPool(8, 2);
        threads.setName("quipu-warm-up");
        Server local = new Server(threads);
        LocalConnector connector = new LocalConnector(local);
        local.addConnector(connector);
        local.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                return application.handle(request, response, callback);
            }
        });
        try {
            local.start();
            List<String> paths = paths(rucs.get());
            long until = started + duration.toNanos();
            AtomicLong next = new AtomicLong();
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                clients.add(Thread.ofPlatform().name("quipu-warm-up-client-" + c).start(() -> {
                    while (System.nanoTime() < until) {
                        String path = paths.get((int) (next.getAndIncrement() % paths.size()));
                        try {
                            String answer = connector.getResponse("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n"
                                    + "Authorization: Bearer " + secret + "\r\nConnection: close\r\n\r\n", 5,
                                    java.util.concurrent.TimeUnit.SECONDS);
                            sent.incrementAndGet();
                            if (answer == null || answer.startsWith("HTTP/1.1 5")) {
                                failed.incrementAndGet();
                            }
                        } catch (Exception e) {
                            failed.incrementAndGet();
                        }
                    }
                }));
            }
            for (Thread client : clients) {
                client.join();
            }
        } finally {
            key.forget().run();
            local.stop();
        }
        millis = (System.nanoTime() - started) / 1_000_000;
        LOG.info("Warmed up the lookups with {} requests in {} ms ({} failed)", sent.get(), millis, failed.get());
    }

    /** Requests the warm-up sent (a gauge of the admin's metrics). */
    public int requests() {
        return sent.get();
    }

    /** Those answered with a 5xx, or not at all. */
    public int failures() {
        return failed.get();
    }

    /** How long it took, in milliseconds. */
    public long millis() {
        return millis;
    }

    /** The lookups' paths, repeated: RUCs found and not, ubigeo searches and codes, the status. */
    private static List<String> paths(List<String> rucs) {
        List<String> paths = new ArrayList<>();
        for (String ruc : rucs.isEmpty() ? List.of("20123456786") : rucs) {
            paths.add("/v1/ruc/" + ruc);
        }
        for (String q : List.of("lima", "cusco", "arequipa", "san juan", "miraflores")) {
            paths.add("/v1/ubigeos?q=" + q.replace(" ", "%20"));
        }
        paths.add("/v1/ubigeos/150101");
        paths.add("/v1/ubigeos?departamento=15&limit=20");
        paths.add("/v1/status");
        return List.copyOf(paths);
    }
}
