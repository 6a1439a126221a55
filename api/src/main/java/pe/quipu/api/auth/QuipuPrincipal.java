package pe.quipu.api.auth;

import java.security.Principal;
import java.util.UUID;

/**
 * Whoever sent {@code Authorization: Bearer …}: an API key (data endpoints) or a session's JWT (account
 * endpoints). Which one an operation accepts is said by {@link RequiresScope} or {@link RequiresSession}.
 */
public sealed interface QuipuPrincipal extends Principal permits ApiKeyPrincipal, SessionPrincipal {

    UUID accountId();
}
