package pe.quipu.api.accounts;

/** The answer of login and refresh (contract §2). */
public record TokenPair(String accessToken, String refreshToken, String tokenType, long expiresIn) {

    public static TokenPair bearer(String accessToken, String refreshToken, long expiresIn) {
        return new TokenPair(accessToken, refreshToken, "Bearer", expiresIn);
    }
}
