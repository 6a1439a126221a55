package pe.quipu.api.metering;

import com.codahale.metrics.annotation.Timed;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.dropwizard.auth.Auth;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import pe.quipu.api.domain.LimaCalendar;
import pe.quipu.api.auth.QuipuPrincipal;
import pe.quipu.api.auth.RequiresSession;
import pe.quipu.api.domain.DomainException.InvalidInput;
import pe.quipu.api.domain.DomainException.Unauthenticated;
import pe.quipu.api.domain.FieldError;
import pe.quipu.api.domain.Text;
import pe.quipu.api.http.StrictQueryString;
import pe.quipu.api.plans.AccountLimits;
import pe.quipu.api.plans.AccountLimitsCache;

import java.time.Clock;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code GET /v1/usage} (contract §2): the account's plan, this Lima month's quota use and its per-minute limit;
 * {@code GET /v1/usage/daily}: its requests and units per Lima day. A session's access token or any of the account's
 * API keys; not metered, so they cost nothing.
 */
@Timed
@Path("/v1/usage")
@Produces(MediaType.APPLICATION_JSON)
public final class UsageResource {

    /** The longest range {@code GET /v1/usage/daily} answers, in days (both ends included): a leap year. */
    static final int MAX_DAYS = 366;
    private static final List<String> DAILY_PARAMETERS = List.of("from", "to");
    private static final Pattern ISO_DATE = Pattern.compile("\\d{4}-\\d{2}-\\d{2}");

    private final AccountLimitsCache limits;
    private final UsageMeter meter;
    private final MeteringStore store;
    private final Clock clock;

    public UsageResource(AccountLimitsCache limits, UsageMeter meter, MeteringStore store, Clock clock) {
        this.limits = limits;
        this.meter = meter;
        this.store = store;
        this.clock = clock;
    }

    @GET
    @RequiresSession(orApiKey = true)
    public Response usage(@Auth QuipuPrincipal caller) {
        AccountLimits account = limits.get(caller.accountId())
                .orElseThrow(() -> new Unauthenticated(Text.of("domain.account.gone")));
        Usage usage = Usage.of(account, meter.monthUsed(account), clock.instant());
        return Response.ok(usage).header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    /**
     * The account's requests and quota units per Lima day, {@code from} to {@code to} (both included, at most
     * {@link #MAX_DAYS} days), every day listed, a day without use as 0. By default, this Lima month so far. The counts
     * are those the metering sync has stored: every instance's, this one's up to its last sync
     * ({@code metering.syncInterval}).
     */
    @GET
    @Path("/daily")
    @RequiresSession(orApiKey = true)
    public Response daily(@Auth QuipuPrincipal caller, @Context HttpServletRequest request) {
        Map<String, String> query = StrictQueryString.single(request, DAILY_PARAMETERS);
        LocalDate today = LimaCalendar.date(clock.instant());
        Range range = Range.of(query.get("from"), query.get("to"), today);
        Map<LocalDate, MeteringStore.DayCount> stored = new HashMap<>();
        for (MeteringStore.DayCount day : store.days(caller.accountId(), range.from(), range.to())) {
            stored.put(day.day(), day);
        }
        List<Day> days = new ArrayList<>();
        long requests = 0;
        long units = 0;
        for (LocalDate date = range.from(); !date.isAfter(range.to()); date = date.plusDays(1)) {
            MeteringStore.DayCount count = stored.get(date);
            Day day = count == null ? new Day(date, 0, 0) : new Day(date, count.requests(), count.units());
            days.add(day);
            requests += day.requests();
            units += day.units();
        }
        Daily daily = new Daily(range.from(), range.to(), LimaCalendar.ZONE.getId(), new Totals(requests, units), days);
        return Response.ok(daily).header(HttpHeaders.CACHE_CONTROL, "no-store").build();
    }

    /** The dates asked for, checked; {@code to} defaults to today, {@code from} to the first day of {@code to}'s month. */
    record Range(LocalDate from, LocalDate to) {

        static Range of(String fromParameter, String toParameter, LocalDate today) {
            List<FieldError> errors = new ArrayList<>();
            LocalDate to = toParameter == null ? today : date("to", toParameter, errors);
            LocalDate from = fromParameter == null ? (to == null ? null : to.withDayOfMonth(1))
                    : date("from", fromParameter, errors);
            if (to != null && to.isAfter(today)) {
                errors.add(new FieldError("to", Text.of("domain.date.not_after_today", today)));
            }
            if (from != null && to != null && errors.isEmpty()) {
                if (from.isAfter(to)) {
                    errors.add(new FieldError("from", Text.of("metering.daily.from_after_to", to)));
                } else if (ChronoUnit.DAYS.between(from, to) >= MAX_DAYS) {
                    errors.add(new FieldError("to", Text.of("metering.daily.too_long", MAX_DAYS - 1, from, MAX_DAYS)));
                }
            }
            if (!errors.isEmpty()) {
                throw new InvalidInput(errors);
            }
            return new Range(from, to);
        }

        private static LocalDate date(String name, String value, List<FieldError> errors) {
            if (!ISO_DATE.matcher(value).matches()) {
                errors.add(new FieldError(name, Text.of("domain.date.form")));
                return null;
            }
            try {
                return LocalDate.parse(value);
            } catch (DateTimeParseException e) {
                errors.add(new FieldError(name, Text.of("domain.date.calendar")));
                return null;
            }
        }
    }

    /** {@code GET /v1/usage/daily}'s answer: the dates are Lima days ({@code timeZone}). */
    @JsonPropertyOrder({"from", "to", "timeZone", "total", "days"})
    public record Daily(LocalDate from, LocalDate to, String timeZone, Totals total, List<Day> days) {
    }

    /**
     * One Lima day: the metered requests answered that day, whatever the answer but for 429s (as the per-minute rate
     * counts them), and the quota units they spent (2xx, 304, 404: 1 each, N for a batch of N).
     */
    @JsonPropertyOrder({"fecha", "requests", "units"})
    public record Day(LocalDate fecha, long requests, long units) {
    }

    /** The range's sums. */
    @JsonPropertyOrder({"requests", "units"})
    public record Totals(long requests, long units) {
    }
}
