package pe.quipu.core.db;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * An embedded data directory and server as Quipu made them before it kept a password: {@code initdb -A trust}, and
 * {@code pg_ctl start} with the options it passed. For the tests of the migration to a password.
 */
final class OldServer {

    private OldServer() {
    }

    static void initdb(Path dir) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        run(List.of(bin("initdb"), "-A", "trust", "-U", EmbeddedPostgresServer.USER, "-D", dir.toString(),
                "-E", "UTF-8", "--locale=C", "--no-instructions"));
    }

    /** Starts the server over {@code dir} on a free port, as the older Quipu did, and creates its database. */
    static int start(Path dir) throws IOException, InterruptedException, SQLException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        run(List.of(bin("pg_ctl"), "-D", dir.toString(), "-o", "-p " + port + " -c listen_addresses=127.0.0.1 "
                        + "-c unix_socket_directories= -c max_connections=200 -c timezone=UTC",
                "-l", dir.resolveSibling(dir.getFileName() + ".log").toString(), "-w", "-t", "120", "start"));
        sql(port, "postgres", "create database " + EmbeddedPostgresServer.DATABASE);
        return port;
    }

    /** Runs {@code sql} in Quipu's database, connected without a password as trust lets anyone. */
    static void psql(int port, String sql) throws SQLException {
        sql(port, EmbeddedPostgresServer.DATABASE, sql);
    }

    static void stop(Path dir) throws IOException, InterruptedException {
        run(List.of(bin("pg_ctl"), "-D", dir.toString(), "stop", "-m", "fast", "-w", "-t", "60"));
    }

    static void stopIfRunning(Path dir) throws IOException, InterruptedException {
        if (Files.exists(dir.resolve("postmaster.pid"))) {
            stop(dir);
        }
    }

    private static void sql(int port, String database, String sql) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", EmbeddedPostgresServer.USER);
        // Named like Quipu's own connections of this process, so that a release does not count it as a client.
        props.setProperty("ApplicationName", QuipuDatabase.applicationName("old server"));
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/" + database, props);
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static String bin(String name) {
        return PostgresBinaries.unpacked().resolve("bin").resolve(name).toString();
    }

    /** As root, in a user namespace, as Quipu runs the tools. */
    private static void run(List<String> command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (new com.sun.security.auth.module.UnixSystem().getUid() == 0) {
            full.addAll(List.of("unshare", "-U"));
        }
        full.addAll(command);
        Process process = new ProcessBuilder(full).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(180, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(command + " failed: " + output);
        }
    }
}
