package pe.quipu.api.accounts;

import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.MutableClock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The throttle's arithmetic on a clock moved by hand, with config.yml's numbers. */
class LoginThrottleTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-10-07T15:00:00Z"));
    private final LoginThrottle throttle = new LoginThrottle(new LoginThrottle.Limit(5, Duration.ofMinutes(15)),
            new LoginThrottle.Limit(30, Duration.ofMinutes(1)), new LoginThrottle.Limit(20, Duration.ofHours(1)), clock);
    /** The addresses asked about, as "email address". */
    private final List<String> asked = new ArrayList<>();
    /** Where ana@quipu.test logged in from before. */
    private final LoginThrottle.UsualAddresses usual = (email, address) -> {
        asked.add(email + " " + address);
        return email.equals("ana@quipu.test") && Set.of("198.51.100.7", LoginThrottle.addressKey("2001:db8:7:7::1"))
                .contains(LoginThrottle.addressKey(address));
    };

    @Test
    void an_address_gets_30_attempts_a_minute_then_one_every_2_seconds() {
        for (int i = 0; i < 30; i++) {
            assertThat(admit("user" + i + "@quipu.test", "203.0.113.7")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(admit("another@quipu.test", "203.0.113.7")).isEqualTo(new LoginThrottle.Admission.Throttled(2));
        // Another address is counted on its own.
        assertThat(admit("another@quipu.test", "203.0.113.8")).isInstanceOf(LoginThrottle.Admission.Admitted.class);

        clock.advance(Duration.ofMillis(1500));
        assertThat(admit("another@quipu.test", "203.0.113.7")).isEqualTo(new LoginThrottle.Admission.Throttled(1));
        clock.advance(Duration.ofMillis(500));
        assertThat(admit("another@quipu.test", "203.0.113.7")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        assertThat(admit("another@quipu.test", "203.0.113.7")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
    }

    @Test
    void signups_share_the_address_allowance_with_logins() {
        for (int i = 0; i < 20; i++) {
            assertThat(throttle.refuseSignup("203.0.113.9")).isEmpty();
        }
        for (int i = 0; i < 10; i++) {
            assertThat(admit("user" + i + "@quipu.test", "203.0.113.9"))
                    .isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(throttle.refuseSignup("203.0.113.9")).contains(2L);
        assertThat(admit("late@quipu.test", "203.0.113.9")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
        assertThat(throttle.refuseSignup("203.0.113.10")).isEmpty();
    }

    @Test
    void successful_logins_count_against_the_address_too() {
        for (int i = 0; i < 30; i++) {
            throttle.giveBack((LoginThrottle.Admission.Admitted) admit("same@quipu.test", "198.51.100.1"));
        }
        assertThat(admit("same@quipu.test", "198.51.100.1")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
    }

    @Test
    void an_email_and_address_get_5_failures_then_one_every_3_minutes_and_successes_do_not_count() {
        for (int i = 0; i < 20; i++) {
            throttle.giveBack((LoginThrottle.Admission.Admitted) admit("ana@quipu.test", "192.0.2.1"));
        }
        for (int i = 0; i < 5; i++) {
            assertThat(admit("ana@quipu.test", "192.0.2.1")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        // Whatever the email's case and surrounding spaces.
        assertThat(admit(" ANA@quipu.test", "192.0.2.1")).isEqualTo(new LoginThrottle.Admission.Throttled(180));
        clock.advance(Duration.ofMinutes(2));
        assertThat(admit("ana@quipu.test", "192.0.2.1")).isEqualTo(new LoginThrottle.Admission.Throttled(60));
        clock.advance(Duration.ofMinutes(1));
        assertThat(admit("ana@quipu.test", "192.0.2.1")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        assertThat(admit("ana@quipu.test", "192.0.2.1")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
        // After the whole period the pair has its 5 failures again.
        clock.advance(Duration.ofMinutes(15));
        for (int i = 0; i < 5; i++) {
            assertThat(admit("ana@quipu.test", "192.0.2.1")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
    }

    @Test
    void failures_from_one_address_leave_the_same_email_from_another_address_alone() {
        for (int i = 0; i < 5; i++) {
            assertThat(admit("ana@quipu.test", "203.0.113.66")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(admit("ana@quipu.test", "203.0.113.66")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
        assertThat(admit("ana@quipu.test", "192.0.2.50")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        // A pair's allowance was enough: the usual addresses were never looked up.
        assertThat(asked).isEmpty();
    }

    @Test
    void the_ceiling_per_email_holds_back_new_addresses_and_spares_the_usual_ones() {
        for (int i = 0; i < 20; i++) {
            assertThat(admit("ana@quipu.test", "203.0.113." + i)).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(asked).isEmpty();
        assertThat(admit("ana@quipu.test", "203.0.113.20")).isEqualTo(new LoginThrottle.Admission.Throttled(180));
        assertThat(asked).containsExactly("ana@quipu.test 203.0.113.20");

        // A usual address goes ahead, on its own pair's allowance, IPv6 by its /64.
        LoginThrottle.Admission usualOne = admit("ana@quipu.test", "198.51.100.7");
        assertThat(usualOne).isEqualTo(new LoginThrottle.Admission.Admitted("198.51.100.7 ana@quipu.test", null));
        assertThat(admit("ana@quipu.test", "2001:db8:7:7:1234::1")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        for (int i = 0; i < 4; i++) {
            assertThat(admit("ana@quipu.test", "198.51.100.7")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(admit("ana@quipu.test", "198.51.100.7")).isInstanceOf(LoginThrottle.Admission.Throttled.class);

        // The ceiling refills one failure every 3 minutes, for any address.
        clock.advance(Duration.ofMinutes(3));
        assertThat(admit("ana@quipu.test", "203.0.113.21")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        assertThat(admit("ana@quipu.test", "203.0.113.22")).isEqualTo(new LoginThrottle.Admission.Throttled(180));
        // Another email has a ceiling of its own.
        assertThat(admit("bob@quipu.test", "203.0.113.22")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
    }

    @Test
    void an_attempt_held_back_by_the_ceiling_spends_nothing_of_its_pair() {
        for (int i = 0; i < 20; i++) {
            admit("eve@quipu.test", "203.0.113." + i);
        }
        for (int i = 0; i < 10; i++) {
            assertThat(admit("eve@quipu.test", "192.0.2.9")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
        }
        clock.advance(Duration.ofHours(1));
        for (int i = 0; i < 5; i++) {
            assertThat(admit("eve@quipu.test", "192.0.2.9")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
    }

    @Test
    void a_success_gives_back_what_its_attempt_reserved_of_the_ceiling() {
        for (int i = 0; i < 19; i++) {
            admit("ana@quipu.test", "203.0.113." + i);
        }
        for (int i = 0; i < 10; i++) {
            throttle.giveBack((LoginThrottle.Admission.Admitted) admit("ana@quipu.test", "192.0.2.77"));
        }
        assertThat(admit("ana@quipu.test", "192.0.2.78")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        assertThat(admit("ana@quipu.test", "192.0.2.79")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
    }

    @Test
    void attempts_still_being_verified_hold_their_failure_so_parallel_guesses_cannot_overrun_the_limit() {
        for (int i = 0; i < 5; i++) {
            assertThat(admit("eve@quipu.test", "192.0.2.1")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(admit("eve@quipu.test", "192.0.2.1")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
        for (int i = 2; i < 17; i++) {
            assertThat(admit("eve@quipu.test", "192.0.2." + i)).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(admit("eve@quipu.test", "192.0.2.99")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
    }

    @Test
    void an_ipv6_client_is_counted_by_its_64_prefix() {
        assertThat(LoginThrottle.addressKey("2001:db8:1:2:aaaa::1"))
                .isEqualTo(LoginThrottle.addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee"))
                .isNotEqualTo(LoginThrottle.addressKey("2001:db8:1:3::1"));
        assertThat(LoginThrottle.addressKey("203.0.113.7")).isEqualTo("203.0.113.7");
        assertThat(LoginThrottle.addressKey("::ffff:203.0.113.7")).isEqualTo("203.0.113.7");
        for (int i = 0; i < 30; i++) {
            admit("user" + i + "@quipu.test", "2001:db8:1:2::" + Integer.toHexString(i + 1));
        }
        assertThat(admit("x@quipu.test", "2001:db8:1:2:ffff::9")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
        assertThat(admit("x@quipu.test", "2001:db8:1:3::9")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        // A pair is counted by the /64 too.
        for (int i = 0; i < 5; i++) {
            admit("y@quipu.test", "2001:db8:9:9::" + (i + 1));
        }
        assertThat(admit("y@quipu.test", "2001:db8:9:9::ff")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
    }

    private LoginThrottle.Admission admit(String email, String address) {
        return throttle.admit(email, address, usual);
    }
}
