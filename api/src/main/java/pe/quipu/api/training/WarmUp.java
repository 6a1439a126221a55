package pe.quipu.api.training;

import ch.qos.logback.access.common.spi.IAccessEvent;
import com.codahale.metrics.MetricRegistry;
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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Sends the lookups through the whole server (the application connector, Jetty's socket path and HTTP parser,
 * Dropwizard's handlers and request log, the servlets, Jersey, the credential, scope and metering filters, the
 * resources, the answer caches, Jackson) while the server starts, before it accepts clients, until the JIT
 * compilers have settled, so that the JIT has compiled that path, as clients use it, when the first one arrives:
 * a restarted instance behind a load balancer serves at speed from its first request instead of after a minute of
 * load.
 *
 * <p>It is a bean of the Jetty server added after its handlers: Jetty starts beans in order and the connectors
 * last. The warm-up starts the application connector itself, accepting nothing from its port (a client that
 * connects meanwhile waits), opens a free port of the loopback interface, and hands each connection made to that
 * port to the connector as its acceptor would: a keep-alive connection over which it sends requests as a real
 * client does. Then the connector accepts from its port, and Jetty starts the other connectors. The request log
 * takes the requests as it takes any (the same code compiles) but writes none of them: its appenders deny them. The
 * requests carry a key that exists only in this process's memory while the warm-up runs
 * ({@code ApiKeyPrincipal.WARM_UP_ACCOUNT}), metered on a meter of its own that nothing syncs; it is forgotten
 * before the connectors open. Jetty's and Jersey's request metrics do count them. An application connector that
 * speaks TLS, or that is not a TCP connector, is not warmed up.
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
    static final Duration SETTLED_WINDOW = Duration.ofSeconds(3);
    private static final double SETTLED_SHARE = 0.05;

    /** A key that exists in this process's memory only, until {@link #forget} runs. */
    public record Key(String secret, Runnable forget) {
    }

    private final Duration duration;
    private final Supplier<Key> admitKey;
    private final Supplier<List<String>> rucs;
    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    /** Whether the request log's appenders deny what they are given: while the warm-up runs. */
    private volatile boolean silent;
    private volatile Server server;
    private volatile long millis;
    /** Whether the application connector was given its placeholder channel before Jetty opened it. */
    private volatile boolean held;

    /**
     * @param duration the longest the requests may go on (they stop once the JIT has settled); zero skips the warm-up
     * @param admitKey makes a new key with every read scope, in memory only
     * @param rucs     some RUCs of the registry (none when it is empty: the not-found path is used)
     */
    public WarmUp(Duration duration, Supplier<Key> admitKey, Supplier<List<String>> rucs) {
        this.duration = duration;
        this.admitKey = admitKey;
        this.rucs = rucs;
    }

    /**
     * Warms the server of {@code environment} up as it starts, with a key of every read scope admitted to
     * {@code apiKeys} in memory only, over {@code rucs}; its counts are gauges ({@code …WarmUp.requests},
     * {@code .failures}, {@code .millis}).
     */
    public static void install(Environment environment, Duration duration, ApiKeyAuthenticator apiKeys,
                               Supplier<List<String>> rucs) {
        WarmUp warmUp = new WarmUp(duration, () -> {
            String secret = ApiKeySecret.generate().reveal();
            return new Key(secret, apiKeys.admitInMemory(secret, new ApiKeyPrincipal(UUID.randomUUID(),
                    ApiKeyPrincipal.WARM_UP_ACCOUNT, "qk_live_warm", Set.of(Scope.RUC_READ, Scope.UBIGEOS_READ),
                    null)));
        }, rucs);
        environment.metrics().registerGauge(MetricRegistry.name(WarmUp.class, "requests"), warmUp::requests);
        environment.metrics().registerGauge(MetricRegistry.name(WarmUp.class, "failures"), warmUp::failures);
        environment.metrics().registerGauge(MetricRegistry.name(WarmUp.class, "millis"), warmUp::millis);
        // A bean added after the handlers: Jetty starts the connectors last.
        environment.lifecycle().addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle lifeCycle) {
                if (lifeCycle instanceof Server jetty) {
                    jetty.addBean(warmUp.of(jetty));
                }
            }
        });
    }

    /** The server to warm up, whose bean this becomes. */
    public WarmUp of(Server server) {
        this.server = server;
        if (!duration.isZero()) {
            Optional<ServerConnector> connector = applicationConnector(server);
            try {
                if (connector.isPresent()) {
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
        Server target = server;
        if (duration.isZero() || target == null) {
            return;
        }
        Optional<ServerConnector> found = applicationConnector(target);
        if (found.isEmpty()) {
            LOG.info("No warm-up: the application connector is not plain HTTP over TCP with an acceptor thread");
            return;
        }
        ServerConnector connector = found.get();
        long started = System.nanoTime();
        silence(target.getRequestLog());
        Key key = admitKey.get();
        silent = true;
        // Started, but accepting nothing: the warm-up's connections are handed to it one by one. Its own port is not
        // even bound meanwhile (its accept channel is a loopback one nobody knows of, given it in of(Server)): a load
        // balancer's connection is refused, and goes to another instance, instead of waiting in the backlog.
        connector.setAccepting(false);
        if (!held) {
            holdPort(connector);
        }
        boolean jitSettled = false;
        try (ServerSocketChannel loopback = ServerSocketChannel.open()) {
            connector.start();
            loopback.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Thread acceptor = Thread.ofPlatform().name("quipu-warm-up-acceptor").start(() -> handOver(loopback,
                    connector));
            JitSettled settled = JitSettled.within(duration.minusNanos(System.nanoTime() - started));
            send(((InetSocketAddress) loopback.getLocalAddress()).getPort(), requests(rucs.get(), key.secret()),
                    settled);
            jitSettled = settled.settled();
            loopback.close();
            acceptor.join();
            // The request log takes an answer once it is sent: the last ones, before it writes lines again.
            Thread.sleep(100);
        } finally {
            key.forget().run();
            silent = false;
            // Bound to its port only now: restarted on a channel of the configured address (the warm-up's
            // connections are closed; what the JIT compiled stays).
            connector.stop();
            connector.open(publicChannel(connector));
            connector.setAccepting(true);
            connector.start();
        }
        millis = (System.nanoTime() - started) / 1_000_000;
        LOG.info("Warmed up the lookups with {} requests in {} ms ({} failed; {})", sent.get(), millis, failed.get(),
                jitSettled ? "the JIT compilers had settled" : "the longest warm-up configured");
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
        } catch (IOException closed) {
            // the warm-up is over
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

    /** Sends requests over {@link #CONNECTIONS} keep-alive connections to this port until the JIT has settled. */
    private void send(int port, List<byte[]> requests, JitSettled settled) throws InterruptedException {
        AtomicLong next = new AtomicLong();
        List<Thread> clients = new ArrayList<>();
        for (int c = 0; c < CONNECTIONS; c++) {
            clients.add(Thread.ofPlatform().name("quipu-warm-up-client-" + c).start(() -> {
                while (!settled.over()) {
                    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                        socket.setSoTimeout(5_000);
                        socket.setTcpNoDelay(true);
                        OutputStream out = socket.getOutputStream();
                        InputStream in = new BufferedInputStream(socket.getInputStream());
                        while (!settled.over()) {
                            out.write(requests.get((int) (next.getAndIncrement() % requests.size())));
                            out.flush();
                            int status = readResponse(in);
                            sent.incrementAndGet();
                            if (status >= 500) {
                                failed.incrementAndGet();
                            }
                        }
                    } catch (IOException | RuntimeException e) {
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
     * that denies what it is given while the warm-up runs: the request threads do their share of the logging as
     * for any request, and no line is written.
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
                        return silent ? FilterReply.DENY : FilterReply.NEUTRAL;
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
