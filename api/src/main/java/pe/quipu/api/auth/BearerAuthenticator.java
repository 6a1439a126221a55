package pe.quipu.api.auth;

import io.dropwizard.auth.Authenticator;

import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Tells the two kinds of bearer credential apart by shape: an API key ({@code qk_live_…}) or, anything else, an
 * access JWT. Whether the operation accepts that kind is decided afterwards ({@link ScopeFeature},
 * {@link SessionFeature}).
 */
public final class BearerAuthenticator implements Authenticator<String, QuipuPrincipal> {

    private final Predicate<String> isApiKey;
    private final Function<String, Optional<ApiKeyPrincipal>> apiKeys;
    private final Function<String, Optional<SessionPrincipal>> accessTokens;

    /**
     * @param isApiKey     whether a credential has an API key's shape
     * @param apiKeys      the key behind a credential of that shape, if any
     * @param accessTokens the session behind any other credential, if any
     */
    public BearerAuthenticator(Predicate<String> isApiKey, Function<String, Optional<ApiKeyPrincipal>> apiKeys,
                               Function<String, Optional<SessionPrincipal>> accessTokens) {
        this.isApiKey = isApiKey;
        this.apiKeys = apiKeys;
        this.accessTokens = accessTokens;
    }

    @Override
    public Optional<QuipuPrincipal> authenticate(String credentials) {
        if (isApiKey.test(credentials)) {
            return apiKeys.apply(credentials).map(QuipuPrincipal.class::cast);
        }
        return accessTokens.apply(credentials).map(QuipuPrincipal.class::cast);
    }
}
