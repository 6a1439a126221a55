package pe.quipu.api.metering;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import pe.quipu.api.domain.Allowance;
import pe.quipu.api.domain.DomainException.QuotaExceeded;
import pe.quipu.api.plans.AccountLimits;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Which answers spend their quota units (contract §2: 2xx, 304 and 404 do; refusals and failures do not) and what a
 * batch costs, below HTTP: on a real meter that counts in memory, with no sync and no database. MeteringTest checks
 * the same rules over HTTP, through the headers every metered answer carries.
 */
class TicketTest {

    private static final long QUOTA = 1_000;
    private static final int RPM = 60;

    private final UsageMeter meter = new UsageMeter(
            Clock.fixed(Instant.parse("2026-10-07T15:00:00Z"), ZoneOffset.UTC), null);
    /** A fresh account for each test, so that each starts with its whole quota and minute. */
    private final AccountLimits account = new AccountLimits(UUID.randomUUID(), "sub_test", "free", QUOTA, RPM, 100, 0,
            0, 0, 80, Instant.parse("2026-11-01T05:00:00Z"));

    @ParameterizedTest(name = "{0} spends")
    @ValueSource(ints = {200, 201, 202, 204, 299, 304, 404})
    void a_success_a_304_and_a_404_spend_the_unit(int status) {
        assertThat(Ticket.spendsUnits(status)).isTrue();

        Allowance left = meter.admit(account).settle(status);

        assertThat(left.quotaRemaining()).isEqualTo(QUOTA - 1);
        assertThat(left.rateRemaining()).isEqualTo(RPM - 1);
    }

    @ParameterizedTest(name = "{0} gives the unit back")
    @ValueSource(ints = {301, 302, 400, 401, 403, 405, 409, 413, 415, 500, 502, 503, 504})
    void a_refusal_or_a_failure_gives_the_unit_back_and_still_counts_toward_the_rate(int status) {
        assertThat(Ticket.spendsUnits(status)).isFalse();

        Allowance left = meter.admit(account).settle(status);

        assertThat(left.quotaRemaining()).isEqualTo(QUOTA);
        assertThat(left.rateRemaining()).isEqualTo(RPM - 1);
    }

    @Test
    void a_429_gives_back_the_unit_and_its_place_in_the_minute() {
        assertThat(Ticket.spendsUnits(429)).isFalse();

        Allowance left = meter.admit(account).settle(429);

        assertThat(left.quotaRemaining()).isEqualTo(QUOTA);
        assertThat(left.rateRemaining()).isEqualTo(RPM);
    }

    @Test
    void a_batch_of_n_costs_n_units_when_answered_and_none_when_refused() {
        Ticket answered = meter.admit(account);
        answered.reserve(10);
        assertThat(answered.settle(200).quotaRemaining()).isEqualTo(QUOTA - 10);

        Ticket refused = meter.admit(account);
        refused.reserve(10);
        assertThat(refused.settle(400).quotaRemaining()).isEqualTo(QUOTA - 10);
    }

    @Test
    void reserving_again_holds_the_larger_count_not_the_sum() {
        Ticket ticket = meter.admit(account);
        ticket.reserve(5);
        ticket.reserve(5);
        ticket.reserve(1);

        assertThat(ticket.settle(200).quotaRemaining()).isEqualTo(QUOTA - 5);
    }

    @Test
    void a_batch_needs_its_n_units_left_and_a_refused_reservation_leaves_the_ticket_as_it_was() {
        Ticket first = meter.admit(account);
        first.reserve(QUOTA - 2);
        first.settle(200);

        Ticket ticket = meter.admit(account);
        assertThatThrownBy(() -> ticket.reserve(3)).isInstanceOf(QuotaExceeded.class)
                .hasMessageContaining("this request needs 3 units and 2 are left");
        assertThat(ticket.settle(200).quotaRemaining()).isEqualTo(1);
    }

    @Test
    void an_answer_is_settled_once() {
        Ticket ticket = meter.admit(account);

        Allowance first = ticket.settle(200);
        Allowance again = ticket.settle(400);

        assertThat(again).isEqualTo(first);
        assertThat(meter.admit(account).settle(200).quotaRemaining()).isEqualTo(QUOTA - 2);
    }
}
