package pe.quipu.api.operations;

import io.dropwizard.core.setup.Environment;
import pe.quipu.api.http.AdminTaskGuard;

/**
 * Running Quipu like any other service (contract §13): the operator tasks behind the admin token.
 */
public final class Operations {

    private Operations() {
    }

    public static void serve(Environment environment, AdminSettings admin, boolean production) {
        AdminTaskGuard.install(environment.admin(), environment.getObjectMapper(), AdminToken.load(admin, production));
    }
}
