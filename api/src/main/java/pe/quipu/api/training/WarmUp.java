package pe.quipu.api.training;

import ch.qos.logback.access.common.spi.IAccessEvent;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.AppenderAttachable;
import ch.qos.logback.core.spi.FilterReply;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.RequestLog;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import io.dropwizard.core.setup.Environment;
import org.eclipse.jetty.util.component.AbstractLifeCycle;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import pe.quipu.api.auth.ApiKeyPrincipal;
import pe.quipu.api.auth.Scope;
import pe.quipu.api.keys.ApiKeyAuthenticator;
import pe.quipu.api.keys.ApiKeySecret;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Sends the lookups through the whole server (the application connector, Jetty's socket path and HTTP parser,
 * Dropwizard's handlers and request log, the servlets, Jersey, the credential, scope and metering filters, the
 * resources, the answer caches, Jackson) as the server starts, until the JIT compilers have settled, so that the JIT
 * has compiled that path as clients use it.
 *
 * <p>By default the warm-up runs beside the clients: the port is bound and served as soon as the server has started,
 * the warm-up's requests go alongside theirs, and the instance reports itself not ready ({@code ended} runs once the
 * warm-up is over) so that a load balancer that polls readiness sends it nothing before; a single instance's clients
 * are answered at once, slower. While real requests are many ({@link #BUSY_REQUESTS} per {@link #SAMPLE}), the
 * warm-up pauses: they make the JIT compile the same path, and its own requests would only take a processor from
 * them. With {@code holdsPort}, the warm-up runs first and the port stays unbound until it has ended.
 *
 * <p>It is a bean of the Jetty server added after its handlers: Jetty starts beans in order and the connectors last,
 * so that a warm-up that holds the port starts the application connector itself on a loopback placeholder channel
 * nobody knows of (see {@link #holdPort}). Either way the warm-up opens a free port of the loopback interface and
 * hands each connection made to that port to the connector as its acceptor would: a keep-alive connection over which
 * it sends requests as a real client does. The request log takes the requests as it takes any (the same code
 * compiles) but writes none of them: its appenders deny the events of that loopback port. The requests carry a key
 * that exists only in this process's memory while the warm-up runs ({@code ApiKeyPrincipal.WARM_UP_ACCOUNT}),
 * metered on a meter of its own that nothing syncs. Jetty's and Jersey's request metrics do count them. An
 * application connector that speaks TLS, or that is not a TCP connector, is not warmed up.
 */
public final class WarmUp extends AbstractLifeCycle {

    private static final Logger LOG = LoggerFactory.getLogger(WarmUp.class);
    /**
     * One connection: requests one after another leave the other processor to the JIT compiler, which then has
     * compiled what they ran when the connector opens (measured: 1 connection gave 10,100-14,000 lookups a second
     * in the first 10 s after a start, 2 gave 7,900-11,000, 4 gave 8,000-8,900, 12 gave 5,100-6,100).
     */
    private static final int CONNECTIONS = 1;
    /** The shortest warm-up (unless the configured one is shorter). */
    static final Duration MINIMUM = Duration.ofSeconds(5);
    static final Duration SAMPLE = Duration.ofMillis(250);
    /** Beyond the warm-up's longest length, how long a request may still wait at {@link WarmUpGate} (never, in practice). */
    private static final Duration GATE_SLACK = Duration.ofMinutes(1);
    static final Duration SETTLED_WINDOW = Duration.ofSeconds(3);
    private static final double SETTLED_SHARE = 0.05;
    /**
     * Requests of clients in one {@link #SAMPLE} from which the warm-up pauses (200 a second): enough traffic for the
     * JIT to compile the lookups by itself within seconds, and enough that the warm-up's connection would slow it.
     */
    static final int BUSY_REQUESTS = 50;
    /** The timer of the application's servlet context: every request it served, the warm-up's included. */
    static final String SERVED_REQUESTS = "io.dropwizard.jetty.MutableServletContextHandler.requests";

    /** A key that exists in this process's memory only, until {@link #forget} runs. */
    public record Key(String secret, Runnable forget) {
    }

    private final Duration duration;
    private final boolean holdsPort;
    private final Supplier<Key> admitKey;
    private final Supplier<List<String>> rucs;
    /** Requests the application has served so far, the warm-up's included; negative when unknown. */
    private final LongSupplier served;
    private final Runnable ended;
    private final AtomicBoolean endedOnce = new AtomicBoolean();
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private final AtomicLong pausedNanos = new AtomicLong();
    /** The loopback port of the warm-up's connections, whose events the request log's appenders deny; 0: none. */
    private volatile int silencedPort;
    /** Events of that port logged after this time (System.currentTimeMillis) are another's that reused it. */
    private volatile long silencedUntil = Long.MAX_VALUE;
    private volatile boolean stopping;
    private volatile Server server;
    private volatile long millis;
    /** Whether the application connector was given its placeholder channel before Jetty opened it. */
    private volatile boolean held;
    /** With the port held: the connector to bind to its port once the server has started ({@link #release}). */
    private volatile ServerConnector heldBack;

    /**
     * @param duration  the longest the requests may go on (they stop once the JIT has settled); zero skips the warm-up
     * @param holdsPort whether the application port stays unbound until the warm-up has ended
     * @param admitKey  makes a new key with every read scope, in memory only
     * @param rucs      some RUCs of the registry (none when it is empty: the not-found path is used)
     * @param served    requests the application has served so far, the warm-up's included (negative when unknown:
     *                  the warm-up then never pauses)
     * @param ended     run once when the warm-up is over (at once when there is none), whatever ended it
     */
    public WarmUp(Duration duration, boolean holdsPort, Supplier<Key> admitKey, Supplier<List<String>> rucs,
                  LongSupplier served, Runnable ended) {
        this.duration = duration;
        this.holdsPort = holdsPort;
        this.admitKey = admitKey;
        this.rucs = rucs;
        this.served = served;
        this.ended = ended;
        if (duration.isZero()) {
            end();
        }
    }

    /**
     * Warms the server of {@code environment} up as it starts, beside its clients or, with {@code holdsPort}, before
     * its port opens, with a key of every read scope admitted to {@code apiKeys} in memory only, over {@code rucs};
     * runs {@code ended} once it is over. Its counts are gauges ({@code …WarmUp.requests}, {@code .failures},
     * {@code .millis}, {@code .pausedMillis}).
     */
    public static void install(Environment environment, Duration duration, boolean holdsPort,
                               ApiKeyAuthenticator apiKeys, Supplier<List<String>> rucs, Runnable ended) {
        MetricRegistry metrics = environment.metrics();
        WarmUp warmUp = new WarmUp(duration, holdsPort, () -> {
            String secret = ApiKeySecret.generate().reveal();
            return new Key(secret, apiKeys.admitInMemory(secret, new ApiKeyPrincipal(UUID.randomUUID(),
                    ApiKeyPrincipal.WARM_UP_ACCOUNT, "qk_live_warm", Set.of(Scope.RUC_READ, Scope.UBIGEOS_READ),
                    null)));
        }, rucs, servedRequests(metrics), ended);
        metrics.registerGauge(MetricRegistry.name(WarmUp.class, "requests"), warmUp::requests);
        metrics.registerGauge(MetricRegistry.name(WarmUp.class, "failures"), warmUp::failures);
        metrics.registerGauge(MetricRegistry.name(WarmUp.class, "millis"), warmUp::millis);
        metrics.registerGauge(MetricRegistry.name(WarmUp.class, "pausedMillis"), warmUp::pausedMillis);
        // A bean added after the handlers: Jetty starts the connectors last.
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle lifeCycle) {
                if (lifeCycle instanceof Server jetty) {
                    jetty.addBean(warmUp.of(jetty));
                }
            }

            @Override
            public void lifeCycleStopping(LifeCycle lifeCycle) {
                if (lifeCycle instanceof Server) {
                    warmUp.stopping = true;
                }
            }
        });
        // Server lifecycle listeners run in the order they were added, after Jetty has started: the operations'
        // readiness turned SERVING by then, so the first connection the held port accepts is answered "ready".
        environment.lifecycle().addServerLifecycleListener(jetty -> {
            if (holdsPort) {
                warmUp.release();
            } else {
                warmUp.beside();
            }
        });
    }

    /** The application's request timer's count, looked up once it exists (the server factory registers it). */
    private static LongSupplier servedRequests(MetricRegistry metrics) {
        AtomicReference<Timer> timer = new AtomicReference<>();
        return () -> {
            Timer found = timer.get();
            if (found == null) {
                found = metrics.getTimers().get(SERVED_REQUESTS);
                if (found == null) {
                    return -1;
                }
                timer.set(found);
            }
            return found.getCount();
        };
    }

    /** The server to warm up, whose bean this becomes. */
    public WarmUp of(Server server) {
        this.server = server;
        if (!duration.isZero()) {
            silence(server.getRequestLog());
            Optional<ServerConnector> connector = applicationConnector(server);
            if (!holdsPort && connector.isPresent()) {
                // Beside the clients: one request at a time until the warm-up is over, the JIT on the other core.
                server.setHandler(WarmUpGate.around(server.getHandler(), connector.get(), () -> !endedOnce.get(),
                        duration.plus(GATE_SLACK)));
            }
            try {
                if (holdsPort && connector.isPresent()) {
                    holdPort(connector.get());
                    held = true;
                }
            } catch (IOException e) {
                // Jetty binds the configured port, which doStart closes again for the warm-up's length.
                LOG.warn("Could not hold the application port back before the start: {}", e.toString());
            }
        }
        return this;
    }

    /**
     * Gives the connector, before Jetty opens it, an accept channel on a free loopback port that nobody knows of:
     * Jetty then binds nothing of the configured address, whose port stays closed until the warm-up has ended. A
     * client that connects meanwhile is refused (and a load balancer tries another instance) rather than accepted
     * into a backlog that is then dropped.
     */
    private static void holdPort(ServerConnector connector) throws IOException {
        if (connector.isOpen()) {
            connector.close();
        }
        ServerSocketChannel placeholder = ServerSocketChannel.open();
        try {
            placeholder.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            connector.open(placeholder);
        } catch (IOException | RuntimeException e) {
            placeholder.close();
            throw e;
        }
    }

    @Override
    protected void doStart() throws Exception {
        stopping = false;
        if (holdsPort) {
            run(true);
        }
    }

    @Override
    protected void doStop() {
        // The server stops: the warm-up's requests end (a connection refused or closed is no failure then).
        stopping = true;
    }

    /** Once the server has started and its port serves clients: the warm-up beside them, on a thread of its own. */
    void beside() {
        if (duration.isZero() || endedOnce.get()) {
            return;
        }
        Thread.ofPlatform().name("quipu-warm-up").daemon().start(() -> {
            try {
                run(false);
            } catch (Exception | LinkageError e) {
                LOG.warn("The warm-up failed; the instance serves without it", e);
            } finally {
                end();
            }
        });
    }

    /**
     * With the port held, once the server has started (and readiness says so): the application connector restarted
     * on a channel of the configured address (the warm-up's connections are closed; what the JIT compiled stays),
     * once its old acceptor has left. Until then the port refuses connections.
     */
    void release() {
        ServerConnector connector = heldBack;
        heldBack = null;
        if (connector == null || stopping) {
            return;
        }
        try {
            ConnectorRestart.onto(connector, publicChannel(connector));
        } catch (Exception e) {
            LOG.error("Could not open the application port after the warm-up; it stays closed", e);
        }
    }

    private void end() {
        if (endedOnce.compareAndSet(false, true)) {
            ended.run();
        }
    }

    /** The warm-up; {@code holding}: before the connectors start, with the application port unbound meanwhile. */
    private void run(boolean holding) throws Exception {
        Server target = server;
        Optional<ServerConnector> found = duration.isZero() || target == null ? Optional.empty()
                : applicationConnector(target);
        if (found.isEmpty()) {
            if (!duration.isZero()) {
                LOG.info("No warm-up: the application connector is not plain HTTP over TCP with an acceptor thread");
            }
            end();
            return;
        }
        ServerConnector connector = found.get();
        long started = System.nanoTime();
        Key key = null;
        boolean jitSettled = false;
        try (ServerSocketChannel loopback = ServerSocketChannel.open()) {
            loopback.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            int port = ((InetSocketAddress) loopback.getLocalAddress()).getPort();
            silencedUntil = Long.MAX_VALUE;
            silencedPort = port;
            key = admitKey.get();
            if (holding) {
                // Started, but accepting nothing: the warm-up's connections are handed to it one by one. Its own port
                // is not even bound meanwhile (its accept channel is a loopback one nobody knows of, given it in
                // of(Server)): a load balancer's connection is refused, and goes to another instance, instead of
                // waiting in the backlog.
                connector.setAccepting(false);
                if (!held) {
                    holdPort(connector);
                }
                connector.start();
            }
            Thread acceptor = Thread.ofPlatform().name("quipu-warm-up-acceptor").daemon().start(() ->
                    handOver(loopback, connector));
            JitSettled settled = JitSettled.within(duration.minusNanos(System.nanoTime() - started));
            Busy busy = new Busy(System::nanoTime, served, sent::get);
            send(port, requests(rucs.get(), key.secret()), settled, busy);
            jitSettled = settled.settled();
            loopback.close();
            acceptor.join();
            // The request log takes an answer once it is sent: the last ones, before the filter lets that port by.
            Thread.sleep(100);
        } finally {
            silencedUntil = System.currentTimeMillis();
            if (key != null) {
                key.forget().run();
            }
            if (holding) {
                // Bound to its port only once the server has started and the warm-up has ended (release), so that
                // no client meets "starting" or "warming up" on it.
                heldBack = connector;
            }
            millis = (System.nanoTime() - started) / 1_000_000;
            end();
        }
        LOG.info("Warmed up the lookups with {} requests in {} ms ({} failed; paused {} ms for clients; {})",
                sent.get(), millis, failed.get(), pausedMillis(), stopping ? "the server stopped"
                        : jitSettled ? "the JIT compilers had settled" : "the longest warm-up configured");
    }

    /** The configured address's accept channel, with the connector's socket options. */
    private static ServerSocketChannel publicChannel(ServerConnector connector) throws IOException {
        ServerSocketChannel channel = ServerSocketChannel.open();
        try {
            channel.setOption(java.net.StandardSocketOptions.SO_REUSEADDR, connector.getReuseAddress());
            if (connector.isReusePort()) {
                channel.setOption(java.net.StandardSocketOptions.SO_REUSEPORT, true);
            }
            String host = connector.getHost();
            InetSocketAddress address = host == null || host.isEmpty() ? new InetSocketAddress(connector.getPort())
                    : new InetSocketAddress(host, connector.getPort());
            channel.bind(address, connector.getAcceptQueueSize());
            return channel;
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** Gives each connection made to this loopback port to the connector, as its acceptor would, until it closes. */
    private static void handOver(ServerSocketChannel loopback, ServerConnector connector) {
        try {
            while (true) {
                SocketChannel channel = loopback.accept();
                channel.configureBlocking(false);
                channel.socket().setTcpNoDelay(connector.getAcceptedTcpNoDelay());
                connector.getSelectorManager().accept(channel);
            }
        } catch (IOException | RuntimeException closed) {
            // the warm-up is over, or the server stops
        }
    }

    /**
     * Whether the warm-up is over: when the JIT compilers have compiled what it runs (they spent less than
     * {@link #SETTLED_SHARE} of one compiler thread's time over the last {@link #SETTLED_WINDOW}, after at least
     * {@link #MINIMUM}), or at the latest at the deadline. Without compilation-time monitoring, at the deadline.
     */
    static final class JitSettled {

        private final LongSupplier nanoTime;
        /** The compilers' total time so far, in milliseconds; null when the JVM does not measure it. */
        private final LongSupplier compileMillis;
        private final long deadline;
        private final long earliest;
        private final long[] times = new long[(int) (SETTLED_WINDOW.toMillis() / SAMPLE.toMillis()) + 1];
        private long nextSample;
        private int samples;
        private volatile boolean over;
        private volatile boolean settled;

        /** Over this JVM's compilers, until at most {@code duration} from now. */
        static JitSettled within(Duration duration) {
            CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
            LongSupplier compileMillis = jit != null && jit.isCompilationTimeMonitoringSupported()
                    ? jit::getTotalCompilationTime : null;
            return new JitSettled(System::nanoTime, compileMillis, duration);
        }

        JitSettled(LongSupplier nanoTime, LongSupplier compileMillis, Duration duration) {
            this.nanoTime = nanoTime;
            this.compileMillis = compileMillis;
            long now = nanoTime.getAsLong();
            this.deadline = now + duration.toNanos();
            this.earliest = now + Math.min(duration.toNanos(), MINIMUM.toNanos());
            this.nextSample = now;
        }

        /** Whether it ended because the JIT had settled (not at the deadline). */
        boolean settled() {
            return settled;
        }

        /** Called by the clients between requests; cheap but for one sample each {@link #SAMPLE}. */
        boolean over() {
            if (over) {
                return true;
            }
            long now = nanoTime.getAsLong();
            if (now - deadline >= 0) {
                over = true;
                return true;
            }
            if (now - nextSample < 0 || compileMillis == null) {
                return false;
            }
            synchronized (this) {
                if (now - nextSample < 0) {
                    return over;
                }
                nextSample = now + SAMPLE.toNanos();
                times[samples++ % times.length] = compileMillis.getAsLong();
                if (samples >= times.length && now - earliest >= 0) {
                    long spent = times[(samples - 1) % times.length] - times[samples % times.length];
                    settled = spent < SETTLED_WINDOW.toMillis() * SETTLED_SHARE;
                    over = settled;
                }
                return over;
            }
        }
    }

    /**
     * Whether the clients' requests are many: at least {@link #BUSY_REQUESTS} in the last {@link #SAMPLE} (the
     * application's requests less the warm-up's own), sampled at most once per {@link #SAMPLE}.
     */
    static final class Busy {

        private final LongSupplier nanoTime;
        private final LongSupplier served;
        private final LongSupplier own;
        private long nextSample;
        private long lastServed = -1;
        private long lastOwn;
        private boolean busy;

        Busy(LongSupplier nanoTime, LongSupplier served, LongSupplier own) {
            this.nanoTime = nanoTime;
            this.served = served;
            this.own = own;
            this.nextSample = nanoTime.getAsLong();
        }

        /** Called by the warm-up's client between requests (one thread); cheap but for one sample each SAMPLE. */
        boolean busy() {
            long now = nanoTime.getAsLong();
            if (now - nextSample < 0) {
                return busy;
            }
            nextSample = now + SAMPLE.toNanos();
            long total = served.getAsLong();
            long mine = own.getAsLong();
            if (total < 0) {
                return busy = false;
            }
            busy = lastServed >= 0 && (total - lastServed) - (mine - lastOwn) >= BUSY_REQUESTS;
            lastServed = total;
            lastOwn = mine;
            return busy;
        }
    }

    /**
     * Sends requests over {@link #CONNECTIONS} keep-alive connections to this port until the JIT has settled or the
     * server stops, pausing (its connection closed) while the clients' requests are many.
     */
    private void send(int port, List<byte[]> requests, JitSettled settled, Busy busy) throws InterruptedException {
        AtomicLong next = new AtomicLong();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            clients.add(Thread.ofPlatform().name("quipu-warm-up-client-" + c).daemon().start(() -> {
                while (!settled.over() && !stopping) {
                    if (busy.busy()) {
                        long pause = System.nanoTime();
                        try {
                            Thread.sleep(SAMPLE.toMillis() / 5);
                        } catch (InterruptedException stop) {
                            return;
                        }
                        pausedNanos.addAndGet(System.nanoTime() - pause);
                        continue;
                    }
                    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        socket.setSoTimeout(5_000);
                        socket.setTcpNoDelay(true);
                        OutputStream out = socket.getOutputStream();
                        InputStream in = new BufferedInputStream(socket.getInputStream());
                        while (!settled.over() && !stopping && !busy.busy()) {
                            out.write(requests.get((int) (next.getAndIncrement() % requests.size())));
                            out.flush();
                            int status = readResponse(in);
                            sent.incrementAndGet();
                            if (status >= 500) {
                                failed.incrementAndGet();
                            }
                        }
                    } catch (IOException | RuntimeException e) {
                        if (stopping) {
                            return;
                        }
                        failed.incrementAndGet();
                        try {
                            Thread.sleep(50);
                        } catch (InterruptedException stop) {
                            return;
                        }
                    }
                }
            }));
        }
        for (Thread client : clients) {
            client.join();
        }
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

    /** How long it paused for the clients' requests, in milliseconds. */
    public long pausedMillis() {
        return pausedNanos.get() / 1_000_000;
    }

    /**
     * Dropwizard's "application" connector (else the first), when it is plain HTTP over TCP with acceptor threads
     * (which {@link ServerConnector#setAccepting} holds back).
     */
    private static Optional<ServerConnector> applicationConnector(Server server) {
        Connector chosen = null;
        for (Connector connector : server.getConnectors()) {
            if (chosen == null || "application".equals(connector.getName())) {
                chosen = connector;
            }
            if ("application".equals(connector.getName())) {
                break;
            }
        }
        if (!(chosen instanceof ServerConnector connector) || connector.getAcceptors() < 1) {
            return Optional.empty();
        }
        for (ConnectionFactory factory : connector.getConnectionFactories()) {
            if (factory instanceof SslConnectionFactory) {
                return Optional.empty();
            }
        }
        return Optional.of(connector);
    }

    /**
     * Gives every appender of this request log (those at the end of a chain, behind an asynchronous one) a filter
     * that denies the events of the warm-up's connections (by the local port they were accepted on, which an
     * asynchronous appender's deferred event keeps): the request threads do their share of the logging as for any
     * request, and no line is written for them, while the clients' lines are.
     */
    private void silence(RequestLog requestLog) {
        if (requestLog instanceof AppenderAttachable<?> attachable) {
            @SuppressWarnings("unchecked")
            AppenderAttachable<IAccessEvent> appenders = (AppenderAttachable<IAccessEvent>) attachable;
            silence(appenders);
        }
    }

    private void silence(AppenderAttachable<IAccessEvent> appenders) {
        for (Iterator<Appender<IAccessEvent>> it = appenders.iteratorForAppenders(); it.hasNext(); ) {
            Appender<IAccessEvent> appender = it.next();
            if (appender instanceof AppenderAttachable<?> chain) {
                @SuppressWarnings("unchecked")
                AppenderAttachable<IAccessEvent> next = (AppenderAttachable<IAccessEvent>) chain;
                silence(next);
            } else {
                Filter<IAccessEvent> filter = new Filter<>() {
                    @Override
                    public FilterReply decide(IAccessEvent event) {
                        int port = silencedPort;
                        return port != 0 && event.getLocalPort() == port && event.getTimeStamp() <= silencedUntil
                                ? FilterReply.DENY : FilterReply.NEUTRAL;
                    }
                };
                filter.setName("quipu-warm-up");
                filter.start();
                appender.addFilter(filter);
            }
        }
    }

    /** The lookups' requests, repeated: RUCs found and not, ubigeo searches and codes, the status. */
    private static List<byte[]> requests(List<String> rucs, String secret) {
        List<String> paths = new ArrayList<>();
        for (String ruc : rucs) {
            paths.add("/v1/ruc/" + ruc);
        }
        if (rucs.isEmpty()) {
            paths.add("/v1/ruc/20123456786");
        }
        for (String q : List.of("lima", "cusco", "arequipa", "san juan", "miraflores")) {
            paths.add("/v1/ubigeos?q=" + q.replace(" ", "%20"));
        }
        paths.add("/v1/ubigeos/150101");
        paths.add("/v1/ubigeos?departamento=15&limit=20");
        paths.add("/v1/status");
        List<byte[]> requests = new ArrayList<>();
        for (String path : paths) {
            requests.add(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer " + secret
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        return List.copyOf(requests);
    }

    /** Reads one HTTP/1.1 answer (its length given, or chunked) and returns its status. */
    private static int readResponse(InputStream in) throws IOException {
        String statusLine = line(in);
        int status = Integer.parseInt(statusLine.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        for (String header = line(in); !header.isEmpty(); header = line(in)) {
            String lower = header.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(lower.substring(15).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        if (chunked) {
            for (long size = Long.parseLong(line(in).trim(), 16); size > 0; size = Long.parseLong(line(in).trim(), 16)) {
                in.skipNBytes(size);
                line(in);
            }
            line(in);
        } else if (length > 0) {
            in.skipNBytes(length);
        } else if (length < 0 && status != 204 && status != 304) {
            throw new IOException("an answer without a length");
        }
        return status;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new IOException("the connection closed");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
