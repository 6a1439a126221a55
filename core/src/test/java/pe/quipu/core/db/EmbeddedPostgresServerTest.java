package pe.quipu.core.db;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedPostgresServerTest {

    @TempDir
    Path temp;

    @Test
    void a_second_process_attaches_and_the_server_stops_only_after_the_last_client_leaves() throws Exception {
        Path data = temp.resolve("postgres");
        EmbeddedPostgresServer api = EmbeddedPostgresServer.acquire(data, 0, "api");
        EmbeddedPostgresServer command = EmbeddedPostgresServer.acquire(data, 0, "cli");

        assertThat(command.port()).isEqualTo(api.port());
        assertThat(query(api.jdbcUrl(), "select 1")).isEqualTo("1");

        // The command ends while the API still uses the server: it must keep running.
        command.close();
        assertThat(accepts(api.port())).isTrue();
        assertThat(query(api.jdbcUrl(), "select 2")).isEqualTo("2");

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
            execute(first.jdbcUrl(), "create table kept (v text); insert into kept values ('still here')");
        }
        try (EmbeddedPostgresServer second = EmbeddedPostgresServer.acquire(data, 0, "test")) {
            assertThat(query(second.jdbcUrl(), "select v from kept")).isEqualTo("still here");
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
            assertThat(query(server.jdbcUrl(), "show shared_preload_libraries")).isEqualTo("pg_stat_statements");
            assertThat(query(server.jdbcUrl(), "show work_mem")).isEqualTo("7MB");
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

    private static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** Tagged like every connection Quipu opens, so that the server knows it belongs to this process. */
    private static Connection connect(String url) throws SQLException {
        java.util.Properties props = new java.util.Properties();
        props.setProperty("user", EmbeddedPostgresServer.USER);
        props.setProperty("ApplicationName", QuipuDatabase.applicationName("test"));
        return DriverManager.getConnection(url, props);
    }

    private static String query(String url, String sql) throws SQLException {
        try (Connection c = connect(url);
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static void execute(String url, String sql) throws SQLException {
        try (Connection c = connect(url);
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
