package pe.quipu.api.health;

import com.codahale.metrics.health.HealthCheck;
import org.jdbi.v3.core.Jdbi;

/** The database answers a query. */
public final class DatabaseHealthCheck extends HealthCheck {

    private final Jdbi jdbi;

    public DatabaseHealthCheck(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    @Override
    protected Result check() {
        int one = jdbi.withHandle(h -> h.createQuery("select 1").mapTo(Integer.class).one());
        return one == 1 ? Result.healthy() : Result.unhealthy("unexpected answer " + one);
    }
}
