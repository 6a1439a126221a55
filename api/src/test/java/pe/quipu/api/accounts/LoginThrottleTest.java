package pe.quipu.api.accounts;

import org.junit.jupiter.api.Test;
import pe.quipu.core.testing.MutableClock;

import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** The throttle's arithmetic on a clock moved by hand, with config.yml's numbers. */
class LoginThrottleTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-10-07T15:00:00Z"));
    private final LoginThrottle throttle = new LoginThrottle(
            new LoginThrottle.Limit(5, Duration.ofMinutes(15)), new LoginThrottle.Limit(30, Duration.ofMinutes(1)), clock);

    @Test
    void an_address_gets_30_attempts_a_minute_then_one_every_2_seconds() {
        for (int i = 0; i < 30; i++) {
            assertThat(throttle.admit("user" + i + "@quipu.test", "203.0.113.7")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(throttle.admit("another@quipu.test", "203.0.113.7")).isEqualTo(new LoginThrottle.Admission.Throttled(2));
        // Another address is counted on its own.
        assertThat(throttle.admit("another@quipu.test", "203.0.113.8")).isInstanceOf(LoginThrottle.Admission.Admitted.class);

        clock.advance(Duration.ofMillis(1500));
        assertThat(throttle.admit("another@quipu.test", "203.0.113.7")).isEqualTo(new LoginThrottle.Admission.Throttled(1));
        clock.advance(Duration.ofMillis(500));
        assertThat(throttle.admit("another@quipu.test", "203.0.113.7")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        assertThat(throttle.admit("another@quipu.test", "203.0.113.7")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
    }

    @Test
    void signups_share_the_address_allowance_with_logins() {
        for (int i = 0; i < 20; i++) {
            assertThat(throttle.refuseSignup("203.0.113.9")).isEmpty();
        }
        for (int i = 0; i < 10; i++) {
            assertThat(throttle.admit("user" + i + "@quipu.test", "203.0.113.9"))
                    .isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(throttle.refuseSignup("203.0.113.9")).contains(2L);
        assertThat(throttle.admit("late@quipu.test", "203.0.113.9")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
        assertThat(throttle.refuseSignup("203.0.113.10")).isEmpty();
    }

    @Test
    void successful_logins_count_against_the_address_too() {
        for (int i = 0; i < 30; i++) {
            LoginThrottle.Admission admission = throttle.admit("same@quipu.test", "198.51.100.1");
            throttle.succeeded((LoginThrottle.Admission.Admitted) admission);
        }
        assertThat(throttle.admit("same@quipu.test", "198.51.100.1")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
    }

    @Test
    void an_email_gets_5_failures_then_one_every_3_minutes_and_successes_do_not_count() {
        for (int i = 0; i < 20; i++) {
            LoginThrottle.Admission admission = throttle.admit("ana@quipu.test", "192.0.2." + i);
            throttle.succeeded((LoginThrottle.Admission.Admitted) admission);
        }
        for (int i = 0; i < 5; i++) {
            assertThat(throttle.admit("ana@quipu.test", "192.0.2." + i)).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        // From any address, and whatever the email's case and surrounding spaces.
        assertThat(throttle.admit(" ANA@quipu.test", "192.0.2.99")).isEqualTo(new LoginThrottle.Admission.Throttled(180));
        clock.advance(Duration.ofMinutes(2));
        assertThat(throttle.admit("ana@quipu.test", "192.0.2.99")).isEqualTo(new LoginThrottle.Admission.Throttled(60));
        clock.advance(Duration.ofMinutes(1));
        assertThat(throttle.admit("ana@quipu.test", "192.0.2.99")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        assertThat(throttle.admit("ana@quipu.test", "192.0.2.99")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
        // After the whole period the email has its 5 failures again.
        clock.advance(Duration.ofMinutes(15));
        for (int i = 0; i < 5; i++) {
            assertThat(throttle.admit("ana@quipu.test", "192.0.2.100")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
    }

    @Test
    void attempts_still_being_verified_hold_their_failure_so_parallel_guesses_cannot_overrun_the_limit() {
        for (int i = 0; i < 5; i++) {
            assertThat(throttle.admit("eve@quipu.test", "192.0.2.1")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
        }
        assertThat(throttle.admit("eve@quipu.test", "192.0.2.2")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
    }

    @Test
    void an_ipv6_client_is_counted_by_its_64_prefix() {
        assertThat(LoginThrottle.addressKey("2001:db8:1:2:aaaa::1"))
                .isEqualTo(LoginThrottle.addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee"))
                .isNotEqualTo(LoginThrottle.addressKey("2001:db8:1:3::1"));
        assertThat(LoginThrottle.addressKey("203.0.113.7")).isEqualTo("203.0.113.7");
        assertThat(LoginThrottle.addressKey("::ffff:203.0.113.7")).isEqualTo("203.0.113.7");
        for (int i = 0; i < 30; i++) {
            throttle.admit("user" + i + "@quipu.test", "2001:db8:1:2::" + Integer.toHexString(i + 1));
        }
        assertThat(throttle.admit("x@quipu.test", "2001:db8:1:2:ffff::9")).isInstanceOf(LoginThrottle.Admission.Throttled.class);
        assertThat(throttle.admit("x@quipu.test", "2001:db8:1:3::9")).isInstanceOf(LoginThrottle.Admission.Admitted.class);
    }
}
