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
            boolean charged = status >= 200 && status < 300 || status == 304 || status == 404;
            settled = meter.settle(this, charged, status == 429);
        }
        return settled;
    }
}
