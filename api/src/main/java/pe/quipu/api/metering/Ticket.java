package pe.quipu.api.metering;

import jakarta.ws.rs.container.ContainerRequestContext;
import pe.quipu.api.plans.AccountLimits;

import java.util.Map;
import java.util.Optional;

/**
 * One admitted request's place in its account's counts: one request in the minute, and the quota units it holds
 * until its answer says whether they are spent (2xx, 304 and 404 spend them; anything else gives them back).
 */
public final class Ticket {

    static final String PROPERTY = Ticket.class.getName();

    private final UsageMeter meter;
    final AccountLimits limits;
    final Counter minute;
    final Counter month;
    long reserved;
    private Map<String, String> headers;

    Ticket(UsageMeter meter, AccountLimits limits, Counter minute, Counter month, long reserved) {
        this.meter = meter;
        this.limits = limits;
        this.minute = minute;
        this.month = month;
        this.reserved = reserved;
    }

    /** The ticket of a metered request; none when metering is off. */
    public static Optional<Ticket> of(ContainerRequestContext request) {
        return request.getProperty(PROPERTY) instanceof Ticket ticket ? Optional.of(ticket) : Optional.empty();
    }

    /**
     * Makes this request hold {@code units} quota units in all (a batch of N RUCs costs N), or throws 429
     * {@code quota_exceeded} when fewer are left.
     */
    public void reserve(long units) {
        if (units > reserved) {
            meter.reserve(this, units - reserved);
        }
    }

    /** Settles the request by its answer's status, once, and returns the headers that answer carries. */
    synchronized Map<String, String> settle(int status) {
        if (headers == null) {
            boolean charged = status >= 200 && status < 300 || status == 304 || status == 404;
            headers = meter.settle(this, charged, status == 429);
        }
        return headers;
    }
}
