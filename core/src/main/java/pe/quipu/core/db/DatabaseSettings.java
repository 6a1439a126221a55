package pe.quipu.core.db;

import java.nio.file.Path;

/**
 * Where Quipu's PostgreSQL is. With a {@code url} it is an external server; without one Quipu runs
 * the embedded server over {@code embeddedDataDirectory} (kept across restarts).
 *
 * @param embeddedPort port for an embedded server this process starts; 0 picks a free one.
 *                     Processes that attach to a running server read its port from {@code postmaster.pid}.
 */
public record DatabaseSettings(String url, String user, String password, Path embeddedDataDirectory, int embeddedPort) {

    public boolean external() {
        return url != null && !url.isBlank();
    }
}
