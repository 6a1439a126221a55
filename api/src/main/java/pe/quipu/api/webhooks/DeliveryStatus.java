package pe.quipu.api.webhooks;

/** A delivery's {@code status} (contract §6). */
final class DeliveryStatus {
    /** Not yet attempted (or handed back for a fresh series by a manual retry). */
    static final String PENDING = "pending";
    /** An attempt failed and another is scheduled. */
    static final String RETRYING = "retrying";
    static final String DELIVERED = "delivered";
    /** Every attempt of the schedule failed; kept in the history. */
    static final String FAILED_PERMANENT = "failed_permanent";

    private DeliveryStatus() {
    }
}
