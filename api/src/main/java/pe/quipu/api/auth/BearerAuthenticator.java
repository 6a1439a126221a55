package pe.quipu.api.auth;

import io.dropwizard.auth.Authenticator;
import pe.quipu.core.keys.ApiKeySecret;

import java.util.Optional;

/**
 * Tells the two kinds of bearer credential apart by shape: {@code qk_live_…} is an API key, anything else is
 * tried as an access JWT. Whether the operation accepts that kind is decided afterwards ({@link ScopeFeature},
 * {@link SessionFeature}).
 */
public final class BearerAuthenticator implements Authenticator<String, QuipuPrincipal> {

    private final ApiKeyAuthenticator apiKeys;
    private final AccessTokens accessTokens;

    public BearerAuthenticator(ApiKeyAuthenticator apiKeys, AccessTokens accessTokens) {
        this.apiKeys = apiKeys;
        this.accessTokens = accessTokens;
    }

    @Override
    public Optional<QuipuPrincipal> authenticate(String credentials) {
        if (credentials.startsWith(ApiKeySecret.PREFIX)) {
            return apiKeys.authenticate(credentials).map(QuipuPrincipal.class::cast);
        }
        return accessTokens.verify(credentials).map(QuipuPrincipal.class::cast);
    }
}
