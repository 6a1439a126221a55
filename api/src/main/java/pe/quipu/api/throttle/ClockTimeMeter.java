package pe.quipu.api.throttle;

import io.github.bucket4j.TimeMeter;

import java.time.Clock;
import java.util.concurrent.TimeUnit;

/** Bucket4j's time, read from the injected clock, so that throttles are tested by moving the clock. */
public final class ClockTimeMeter implements TimeMeter {

    private final Clock clock;

    public ClockTimeMeter(Clock clock) {
        this.clock = clock;
    }

    @Override
    public long currentTimeNanos() {
        return TimeUnit.MILLISECONDS.toNanos(clock.millis());
    }

    @Override
    public boolean isWallClockBased() {
        return true;
    }
}
