package pe.quipu.api.auth;

import java.util.Arrays;
import java.util.Optional;

/** The scopes an API key can carry (interface spec, Authentication). */
public enum Scope {
    UBIGEOS_READ("ubigeos:read"),
    RUC_READ("ruc:read"),
    TIPO_CAMBIO_READ("tipo-cambio:read"),
    WEBHOOKS_MANAGE("webhooks:manage"),
    WATCHLISTS_MANAGE("watchlists:manage");

    private final String wireName;

    Scope(String wireName) {
        this.wireName = wireName;
    }

    public String wireName() {
        return wireName;
    }

    public static Optional<Scope> fromWireName(String name) {
        return Arrays.stream(values()).filter(s -> s.wireName.equals(name)).findFirst();
    }
}
