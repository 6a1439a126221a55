package pe.quipu.core.db;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class EmbeddedPostgresServerTest {

    @TempDir
    Path temp;

    @Test
    void a_second_process_attaches_and_the_server_stops_only_after_the_last_client_leaves() throws Exception {
        Path data = temp.resolve("postgres");
        EmbeddedPostgresServer api = EmbeddedPostgresServer.acquire(data, 0, "api");
        EmbeddedPostgresServer command = EmbeddedPostgresServer.acquire(data, 0, "cli");

        assertThat(command.port()).isEqualTo(api.port());
        assertThat(query(api, "select 1")).isEqualTo("1");

        // The command ends while the API still uses the server: it must keep running.
        command.close();
        assertThat(accepts(api.port())).isTrue();
        assertThat(query(api, "select 2")).isEqualTo("2");

        // The last client leaves: the postmaster process ends and its pid file goes away. (Checked by process,
        // not by port: another program may take the freed port at once.)
        long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).getFirst().strip());
        api.close();
        assertThat(Files.exists(data.resolve("postmaster.pid"))).isFalse();
        // pg_ctl returns once the pid file is gone; the process itself ends a moment later.
        ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(10, java.util.concurrent.TimeUnit.SECONDS).join());
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    }

    @Test
    void data_survives_a_restart() throws Exception {
        Path data = temp.resolve("postgres");
        try (EmbeddedPostgresServer first = EmbeddedPostgresServer.acquire(data, 0, "test")) {
            execute(first, "create table kept (v text); insert into kept values ('still here')");
        }
        try (EmbeddedPostgresServer second = EmbeddedPostgresServer.acquire(data, 0, "test")) {
            assertThat(query(second, "select v from kept")).isEqualTo("still here");
        }
    }

    @Test
    void a_server_left_running_by_a_killed_process_is_reused_not_started_twice() throws Exception {
        Path data = temp.resolve("postgres");
        EmbeddedPostgresServer crashed = EmbeddedPostgresServer.acquire(data, 0, "api");
        String pidBefore = Files.readAllLines(data.resolve("postmaster.pid")).getFirst();
        // A process killed with SIGKILL never releases: simulate by simply not closing 'crashed' first.
        try (EmbeddedPostgresServer next = EmbeddedPostgresServer.acquire(data, 0, "api")) {
            assertThat(next.port()).isEqualTo(crashed.port());
            assertThat(Files.readAllLines(data.resolve("postmaster.pid")).getFirst()).isEqualTo(pidBefore);
            crashed.close();
            assertThat(accepts(next.port())).isTrue();
        }
    }

    @Test
    void a_server_it_starts_runs_with_the_extra_settings() throws Exception {
        Path data = temp.resolve("postgres");
        java.util.Map<String, String> settings = DatabaseSettings.parseServerSettings(
                "shared_preload_libraries=pg_stat_statements  work_mem=7MB");
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.acquire(data, 0, settings, "test")) {
            assertThat(query(server, "show shared_preload_libraries")).isEqualTo("pg_stat_statements");
            assertThat(query(server, "show work_mem")).isEqualTo("7MB");
        }
    }

    @Test
    void settings_that_could_reach_the_shell_are_refused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DatabaseSettings.parseServerSettings(
                "work_mem=7MB;touch x")).isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DatabaseSettings.parseServerSettings("work_mem"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(DatabaseSettings.parseServerSettings(" ")).isEmpty();
    }

    @Test
    void the_superuser_verifier_has_few_rounds_and_an_older_one_is_lightened_when_quipu_starts_the_server()
            throws Exception {
        Path data = temp.resolve("postgres");
        try (EmbeddedPostgresServer first = EmbeddedPostgresServer.acquire(data, 0, "test")) {
            assertThat(query(first, "select rolpassword from pg_authid where rolname = 'postgres'"))
                    .startsWith("SCRAM-SHA-256$" + EmbeddedPostgresServer.SCRAM_ROUNDS + ":");
            // As an older Quipu set it: PostgreSQL's 4,096 rounds, the same password.
            execute(first, "set scram_iterations = 4096; alter user postgres password '" + first.password() + "'");
            assertThat(query(first, "select rolpassword from pg_authid where rolname = 'postgres'"))
                    .startsWith("SCRAM-SHA-256$4096:");
        }
        try (EmbeddedPostgresServer second = EmbeddedPostgresServer.acquire(data, 0, "test")) {
            assertThat(query(second, "select rolpassword from pg_authid where rolname = 'postgres'"))
                    .startsWith("SCRAM-SHA-256$" + EmbeddedPostgresServer.SCRAM_ROUNDS + ":");
            assertThatThrownBy(() -> connectAs(second.jdbcUrl(), "not-the-password"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("password authentication failed");
        }
    }

    @Test
    void a_connection_without_the_password_or_with_a_wrong_one_is_refused() throws Exception {
        Path data = temp.resolve("postgres");
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.acquire(data, 0, "test")) {
            // Any local user can reach 127.0.0.1: with trust, they were the superuser.
            assertThatThrownBy(() -> connectAs(server.jdbcUrl(), null)).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> connectAs(server.jdbcUrl(), "")).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> connectAs(server.jdbcUrl(), "not-the-password"))
                    .isInstanceOf(SQLException.class).hasMessageContaining("password authentication failed");

            Path passwordFile = temp.resolve("postgres.password");
            assertThat(Files.getPosixFilePermissions(passwordFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            String password = Files.readString(passwordFile).strip();
            assertThat(password).hasSizeGreaterThanOrEqualTo(32).isEqualTo(server.password());
            try (Connection c = connectAs(server.jdbcUrl(), password); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("select rolpassword like 'SCRAM-SHA-256$%' from pg_authid"
                         + " where rolname = 'postgres'")) {
                rs.next();
                assertThat(rs.getBoolean(1)).isTrue();
            }
            assertThat(Files.readString(data.resolve("pg_hba.conf"))).doesNotContainPattern("(?m)^[^#]*\\btrust\\b");
        }
    }

    @Test
    void a_data_directory_initialised_with_trust_is_migrated_at_its_next_start_and_keeps_its_data() throws Exception {
        Path data = temp.resolve("postgres");
        OldServer.initdb(data);
        int port = OldServer.start(data);
        OldServer.psql(port, "create table kept (v text); insert into kept values ('still here')");
        OldServer.stop(data);

        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.acquire(data, 0, "test")) {
            assertThat(query(server, "select v from kept")).isEqualTo("still here");
            assertThatThrownBy(() -> connectAs(server.jdbcUrl(), null)).isInstanceOf(SQLException.class);
            assertThatThrownBy(() -> connectAs(server.jdbcUrl(), "wrong")).isInstanceOf(SQLException.class);
            assertThat(Files.getPosixFilePermissions(temp.resolve("postgres.password")))
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        }
        // And on the start after that, from the stored password alone.
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.acquire(data, 0, "test")) {
            assertThat(query(server, "select v from kept")).isEqualTo("still here");
            assertThatThrownBy(() -> connectAs(server.jdbcUrl(), null)).isInstanceOf(SQLException.class);
        }
    }

    @Test
    void a_server_running_with_trust_started_by_an_older_quipu_is_migrated_while_it_runs() throws Exception {
        Path data = temp.resolve("postgres");
        OldServer.initdb(data);
        int port = OldServer.start(data);
        long pid = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).getFirst().strip());
        try {
            try (EmbeddedPostgresServer server = EmbeddedPostgresServer.acquire(data, 0, "test")) {
                assertThat(server.port()).isEqualTo(port);
                // Not restarted: the running server reloaded its pg_hba.conf.
                assertThat(Files.readAllLines(data.resolve("postmaster.pid")).getFirst().strip())
                        .isEqualTo(Long.toString(pid));
                assertThatThrownBy(() -> connectAs(server.jdbcUrl(), null)).isInstanceOf(SQLException.class);
                assertThat(query(server, "select 1")).isEqualTo("1");
            }
        } finally {
            OldServer.stopIfRunning(data);
        }
    }

    @Test
    void a_protection_interrupted_after_pg_hba_was_rewritten_is_completed_at_the_next_start() throws Exception {
        Path data = temp.resolve("postgres");
        OldServer.initdb(data);
        int port = OldServer.start(data);
        try {
            // What a start killed between the rewrite and the reload leaves: the pending password set on the role,
            // pg_hba.conf asking for it, and a server that has not read that file again, so still lets anyone in.
            Path pending = temp.resolve("postgres.password.new");
            Files.writeString(Files.createFile(pending, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rw-------"))), "pending-password-0123456789abcdef\n");
            OldServer.psql(port, "alter role postgres password 'pending-password-0123456789abcdef'");
            Path hba = data.resolve("pg_hba.conf");
            Files.writeString(hba, Files.readString(hba).replaceAll("(?m)^([^#].*\\s)trust$", "$1scram-sha-256"));
            assertThat(EmbeddedPostgresServer.trusts(data)).isFalse();
            try (Connection stillTrusting = connectAs("jdbc:postgresql://127.0.0.1:" + port + "/postgres", null)) {
                assertThat(stillTrusting.isValid(1)).isTrue();
            }

            try (EmbeddedPostgresServer server = EmbeddedPostgresServer.acquire(data, 0, "test")) {
                assertThat(server.password()).isEqualTo("pending-password-0123456789abcdef");
                assertThatThrownBy(() -> connectAs(server.jdbcUrl(), null)).isInstanceOf(SQLException.class);
                assertThat(query(server, "select 1")).isEqualTo("1");
            }
            assertThat(Files.exists(pending)).isFalse();
            assertThat(Files.readString(temp.resolve("postgres.password")).strip())
                    .isEqualTo("pending-password-0123456789abcdef");
        } finally {
            OldServer.stopIfRunning(data);
        }
    }

    @Test
    void a_password_file_others_may_read_is_refused() throws Exception {
        Path data = temp.resolve("postgres");
        try (EmbeddedPostgresServer ignored = EmbeddedPostgresServer.acquire(data, 0, "test")) {
            // created and stopped
        }
        Path passwordFile = temp.resolve("postgres.password");
        Files.setPosixFilePermissions(passwordFile, PosixFilePermissions.fromString("rw-r--r--"));

        assertThatThrownBy(() -> EmbeddedPostgresServer.acquire(data, 0, "test"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("chmod 600 " + passwordFile);
    }

    @Test
    void only_rules_whose_method_is_trust_count_as_trusting() {
        assertThat(EmbeddedPostgresServer.trustsRule("host    all   all   127.0.0.1/32   trust")).isTrue();
        assertThat(EmbeddedPostgresServer.trustsRule("local all all trust  # from initdb")).isTrue();
        assertThat(EmbeddedPostgresServer.trustsRule("host all all 127.0.0.1 255.255.255.255 trust map=x")).isTrue();
        assertThat(EmbeddedPostgresServer.trustsRule("# host all all 127.0.0.1/32 trust")).isFalse();
        assertThat(EmbeddedPostgresServer.trustsRule("host trust all 127.0.0.1/32 scram-sha-256")).isFalse();
        assertThat(EmbeddedPostgresServer.trustsRule("host all all ::1/128 scram-sha-256 # not trust")).isFalse();
    }

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /**
     * As the user {@code postgres} with {@code password} (none when null), tagged like every connection Quipu opens,
     * so that the server knows it belongs to this process.
     */
    private static Connection connectAs(String url, String password) throws SQLException {
        java.util.Properties props = new java.util.Properties();
        props.setProperty("user", EmbeddedPostgresServer.USER);
        if (password != null) {
            props.setProperty("password", password);
        }
        props.setProperty("ApplicationName", QuipuDatabase.applicationName("test"));
        return DriverManager.getConnection(url, props);
    }

    private static String query(EmbeddedPostgresServer server, String sql) throws SQLException {
        try (Connection c = connectAs(server.jdbcUrl(), server.password());
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void execute(EmbeddedPostgresServer server, String sql) throws SQLException {
        try (Connection c = connectAs(server.jdbcUrl(), server.password());
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
