package pe.quipu.api.metering;

import pe.quipu.api.domain.Allowance;
import pe.quipu.api.plans.AccountLimits;

/**
 * One admitted request's place in its account's counts: one request in the minute, and the quota units it holds
 * until its answer says whether they are spent (2xx, 304 and 404 spend them; anything else gives them back). Its
 * answer is counted in the Lima day it was admitted in.
 */
public final class Ticket {

    private final UsageMeter meter;
    final AccountLimits limits;
    final Counter minute;
    final Counter month;
    final Counter dayRequests;
    final Counter dayUnits;
    long reserved;
    private Allowance settled;

    Ticket(UsageMeter meter, AccountLimits limits, Counter minute, Counter month, Counter dayRequests,
           Counter dayUnits, long reserved) {
        this.meter = meter;
        this.limits = limits;
        this.minute = minute;
        this.month = month;
        this.dayRequests = dayRequests;
        this.dayUnits = dayUnits;
        this.reserved = reserved;
    }

    /**
     * Makes this request hold {@code units} quota units in all (a batch of N RUCs costs N), or throws
     * {@link pe.quipu.api.domain.DomainException.QuotaExceeded} when fewer are left.
     */
    public void reserve(long units) {
        if (units > reserved) {
            meter.reserve(this, units - reserved);
        }
    }

    /** Settles the request by its answer's status, once, and returns what that answer says is left. */
    synchronized Allowance settle(int status) {
        if (settled == null) {
            settled = meter.settle(this, spendsUnits(status), status == 429);
        }
        return settled;
    }

    /**
     * Whether an answer spends the units its request holds: 2xx, 304 and 404 alike (contract §2); an answer that
     * refused the request (400, 401, 403, 413, 415, 429, ...) or failed (5xx) gives them back.
     */
    static boolean spendsUnits(int status) {
        return status >= 200 && status < 300 || status == 304 || status == 404;
    }
}
