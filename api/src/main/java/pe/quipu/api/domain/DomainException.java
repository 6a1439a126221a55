package pe.quipu.api.domain;

import java.util.List;

/**
 * A service's refusal, in the domain's words: what went wrong and, where it helps, which fields and how long to
 * wait. Services throw these (or return results); only the HTTP edge chooses a status for them, and operator tasks
 * and commands print them. Carries no stack trace: it is an answer, not a failure of the code.
 */
public abstract sealed class DomainException extends RuntimeException
        permits DomainException.InvalidInput, DomainException.Unauthenticated, DomainException.ScopeRequired,
        DomainException.PlanForbids, DomainException.NotFound, DomainException.Conflict,
        DomainException.LimitReached, DomainException.UpstreamUnavailable, DomainException.Gone {

    private final Text detail;

    private DomainException(Text detail) {
        super(null, null, false, false);
        this.detail = detail;
    }

    /** What went wrong, for the caller to read in their language. */
    public Text text() {
        return detail;
    }

    /** What went wrong, in English: what commands print and logs show. */
    public String detail() {
        return detail.english();
    }

    @Override
    public String getMessage() {
        return detail();
    }

    /** The request is not valid: each fault with its field; the detail names the first and counts the rest. */
    public static final class InvalidInput extends DomainException {
        private final List<FieldError> errors;

        public InvalidInput(String field, Text message) {
            this(List.of(new FieldError(field, message)));
        }

        public InvalidInput(List<FieldError> errors) {
            super(summary(errors));
            this.errors = List.copyOf(errors);
        }

        /** A refusal of the whole request rather than of one field. */
        public static InvalidInput of(Text detail) {
            return new InvalidInput(detail, List.of());
        }

        private InvalidInput(Text detail, List<FieldError> errors) {
            super(detail);
            this.errors = errors;
        }

        /** Empty when the request as a whole is refused. */
        public List<FieldError> errors() {
            return errors;
        }

        private static Text summary(List<FieldError> errors) {
            if (errors.isEmpty()) {
                throw new IllegalArgumentException("no field errors");
            }
            FieldError first = errors.getFirst();
            return errors.size() == 1
                    ? Text.of("domain.invalid.one", first.field(), first.message())
                    : Text.of("domain.invalid.many", first.field(), first.message(), errors.size() - 1);
        }
    }

    /** The caller is not who it must be: no account behind its credentials, or wrong credentials. */
    public static final class Unauthenticated extends DomainException {
        public Unauthenticated(Text detail) {
            super(detail);
        }
    }

    /** The API key lacks the scope the operation needs. */
    public static final class ScopeRequired extends DomainException {
        public ScopeRequired(Text detail) {
            super(detail);
        }
    }

    /** The account's plan does not allow this (a batch over its cap). */
    public static final class PlanForbids extends DomainException {
        public PlanForbids(Text detail) {
            super(detail);
        }
    }

    /** No such thing, or not the caller's. */
    public static final class NotFound extends DomainException {
        public NotFound(Text detail) {
            super(detail);
        }
    }

    /** The account was deleted (it is waiting for its purge): {@code deletedAt} says when. */
    public static final class Gone extends DomainException {
        private final java.time.Instant deletedAt;

        public Gone(Text detail, java.time.Instant deletedAt) {
            super(detail);
            this.deletedAt = deletedAt;
        }

        public java.time.Instant deletedAt() {
            return deletedAt;
        }
    }

    /** The request contradicts the state it would change (a taken email, a key that is not active). */
    public static final class Conflict extends DomainException {
        public Conflict(Text detail) {
            super(detail);
        }
    }

    /**
     * A limit of the account's plan is spent for now: wait {@code retryAfterSeconds}. {@code allowance} is what the
     * account has left, when metering refused the request.
     */
    public abstract static sealed class LimitReached extends DomainException permits RateLimited, QuotaExceeded {
        private final long retryAfterSeconds;
        private final Allowance allowance;

        private LimitReached(Text detail, long retryAfterSeconds, Allowance allowance) {
            super(detail);
            this.retryAfterSeconds = retryAfterSeconds;
            this.allowance = allowance;
        }

        public long retryAfterSeconds() {
            return retryAfterSeconds;
        }

        /** Null when the refusal is not metering's (login throttling). */
        public Allowance allowance() {
            return allowance;
        }
    }

    /** Too many requests for now (per minute, or login attempts). */
    public static final class RateLimited extends LimitReached {
        public RateLimited(Text detail, long retryAfterSeconds) {
            this(detail, retryAfterSeconds, null);
        }

        public RateLimited(Text detail, long retryAfterSeconds, Allowance allowance) {
            super(detail, retryAfterSeconds, allowance);
        }
    }

    /** The month's quota is spent; it renews in {@code retryAfterSeconds}. */
    public static final class QuotaExceeded extends LimitReached {
        public QuotaExceeded(Text detail, long retryAfterSeconds, Allowance allowance) {
            super(detail, retryAfterSeconds, allowance);
        }
    }

    /** A source Quipu depends on did not answer, and nothing Quipu keeps answers instead. */
    public static final class UpstreamUnavailable extends DomainException {
        public UpstreamUnavailable(Text detail) {
            super(detail);
        }
    }
}
