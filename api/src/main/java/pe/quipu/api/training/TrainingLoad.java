package pe.quipu.api.training;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import pe.quipu.core.ruc.InvalidRucException;
import pe.quipu.core.ruc.PadronRecord;
import pe.quipu.core.ruc.PadronSample;
import pe.quipu.core.ruc.Ruc;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * The training's requests: real HTTP to the API's own port from several clients at once, the way clients call it,
 * over every data endpoint and the usual errors, weighted towards single RUC lookups. Every answer is checked; the
 * first one that is not what it should be stops the load and fails the run.
 */
final class TrainingLoad {

    static final int DEFAULT_SECONDS = 20;
    static final int DEFAULT_REQUESTS = 10_000;
    static final int DEFAULT_CLIENTS = 8;
    /** However slow the machine, the load stops after this long (or after the minimum duration asked, if longer). */
    static final Duration LONGEST = Duration.ofMinutes(2);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final String[] UBIGEO_QUERIES = {"", "?q=lima", "?q=huanuco", "?q=san&limit=100",
            "?departamento=15&limit=20", "?departamento=08", "?provincia=1501&q=mira", "?limit=200&cursor=150143",
            "?provincia=0401&limit=10", "?q=ayacucho&departamento=05"};
    /** The capital district of the capital province of each department: all in INEI's catalogue. */
    private static final String[] UBIGEO_CODES = {"010101", "040101", "050101", "080101", "130101", "150101",
            "200101", "220101", "250101"};
    private static final String[] MALFORMED_RUCS = {"123", "2010022746X", "30100227461", "20100227460",
            "201002274611"};
    private static final String[] BAD_QUERIES = {"/v1/ubigeos?limit=500", "/v1/ubigeos?q=a",
            "/v1/tipo-cambio?moneda=GBP", "/v1/tipo-cambio?fecha=2026-13-01", "/v1/ubigeos/15010"};

    /** The kinds of request, with their weights in the mix. */
    enum Kind {
        RUC(40), RUC_NOT_MODIFIED(12), RUC_UNKNOWN(3), RUC_MALFORMED(2), BATCH(8), UBIGEO_LIST(10), UBIGEO(6),
        UBIGEO_UNKNOWN(1), TIPO_CAMBIO_LATEST(6), TIPO_CAMBIO_FECHA(5), TIPO_CAMBIO_RANGE(2), STATUS(3), USAGE(1),
        NO_KEY(2), BAD_QUERY(1);

        final int weight;

        Kind(int weight) {
            this.weight = weight;
        }
    }

    /** What a run sent. */
    record Summary(long requests, Duration took, Map<Kind, Long> byKind) {
        @Override
        public String toString() {
            return String.format("%d requests in %.1f s (%.0f/s): %s", requests, took.toMillis() / 1000.0,
                    requests * 1000.0 / Math.max(1, took.toMillis()), byKind);
        }
    }

    private final String base;
    private final String admin;
    private final String adminToken;
    private final String key;
    private final TrainingData.Plan plan;
    private final ObjectMapper json;
    private final LocalDate today;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final List<String> known;
    private final List<String> unknown;
    private final Map<String, String> etags = new ConcurrentHashMap<>();
    private final Kind[] mix;
    private final AtomicReference<String> failure = new AtomicReference<>();
    private final Map<Kind, LongAdder> sent = new EnumMap<>(Kind.class);

    TrainingLoad(int port, int adminPort, String adminToken, String key, TrainingData.Plan plan, ObjectMapper json,
                 LocalDate today) {
        this.base = "http://127.0.0.1:" + port;
        this.admin = "http://127.0.0.1:" + adminPort;
        this.adminToken = adminToken;
        this.key = key;
        this.plan = plan;
        this.json = json;
        this.today = today;
        this.known = PadronSample.records().stream().map(PadronRecord::ruc).map(Ruc::value).distinct().toList();
        this.unknown = unknownRucs(new HashSet<>(known), 40);
        List<Kind> weighted = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            sent.put(kind, new LongAdder());
            for (int i = 0; i < kind.weight; i++) {
                weighted.add(kind);
            }
        }
        this.mix = weighted.toArray(Kind[]::new);
    }

    /**
     * Lifts the account's limits, then sends the mix from {@code clients} threads for at least {@code duration} and
     * at least {@code requests} requests (a slow or busy machine takes longer to give the JIT as much to see), but no
     * longer than {@link #LONGEST}.
     */
    Summary run(Duration duration, long requests, int clients) throws InterruptedException {
        liftLimits();
        for (String ruc : known) {
            send(Kind.RUC, new SplittableRandom(0), ruc);
        }
        failIfFailed();
        long start = System.nanoTime();
        long minimum = start + duration.toNanos();
        long longest = start + Math.max(duration.toNanos(), LONGEST.toNanos());
        AtomicLong answered = new AtomicLong();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            SplittableRandom random = new SplittableRandom(i);
            threads.add(Thread.ofPlatform().name("quipu-train-" + i).start(() -> {
                while (failure.get() == null) {
                    long now = System.nanoTime();
                    if (now >= longest || now >= minimum && answered.get() >= requests) {
                        break;
                    }
                    send(mix[random.nextInt(mix.length)], random, null);
                    answered.incrementAndGet();
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        failIfFailed();
        Map<Kind, Long> byKind = new EnumMap<>(Kind.class);
        sent.forEach((kind, count) -> byKind.put(kind, count.sum()));
        return new Summary(byKind.values().stream().mapToLong(Long::longValue).sum(),
                Duration.ofNanos(System.nanoTime() - start), byKind);
    }

    private void failIfFailed() {
        if (failure.get() != null) {
            throw new IllegalStateException("train: an unexpected answer: " + failure.get());
        }
    }

    /** The set-plan task, as an operator calls it: the plan with the largest batch cap, and limits that never bind. */
    private void liftLimits() {
        String query = "email=" + URLEncoder.encode(TrainingData.EMAIL, StandardCharsets.UTF_8) + "&plan="
                + URLEncoder.encode(plan.name(), StandardCharsets.UTF_8)
                + "&monthlyQuota=1000000000000&rateLimitRpm=2000000000";
        HttpResponse<String> answer = exchange(HttpRequest.newBuilder(URI.create(admin + "/tasks/set-plan?" + query))
                .header("Authorization", "Bearer " + adminToken).POST(HttpRequest.BodyPublishers.noBody()));
        if (answer == null || answer.statusCode() != 200) {
            throw new IllegalStateException("train: the set-plan task answered "
                    + (answer == null ? failure.get() : answer.statusCode() + " " + answer.body()));
        }
    }

    private void send(Kind kind, SplittableRandom random, String chosenRuc) {
        sent.get(kind).increment();
        switch (kind) {
            case RUC -> {
                String ruc = chosenRuc != null ? chosenRuc : pick(known, random);
                HttpResponse<String> r = get("/v1/ruc/" + ruc, true);
                if (expect(kind, r, 200) && r.body().contains("\"ruc\":\"" + ruc + "\"")) {
                    r.headers().firstValue("ETag").ifPresentOrElse(etag -> etags.put(ruc, etag),
                            () -> fail(kind, "no ETag on " + ruc));
                } else if (r != null && r.statusCode() == 200) {
                    fail(kind, "the answer for " + ruc + " is another record: " + r.body());
                }
            }
            case RUC_NOT_MODIFIED -> {
                String ruc = pick(known, random);
                String etag = etags.get(ruc);
                if (etag == null) {
                    fail(kind, "no ETag known for " + ruc);
                    return;
                }
                expect(kind, exchange(request("/v1/ruc/" + ruc, true).header("If-None-Match", etag).GET()), 304);
            }
            case RUC_UNKNOWN -> expect(kind, get("/v1/ruc/" + pick(unknown, random), true), 404);
            case RUC_MALFORMED -> expect(kind, get("/v1/ruc/" + MALFORMED_RUCS[random.nextInt(MALFORMED_RUCS.length)],
                    true), 400);
            case BATCH -> batch(random);
            case UBIGEO_LIST -> {
                HttpResponse<String> r = get("/v1/ubigeos" + UBIGEO_QUERIES[random.nextInt(UBIGEO_QUERIES.length)],
                        true);
                if (expect(kind, r, 200) && read(kind, r).path("items").isEmpty()) {
                    fail(kind, "an empty page: " + r.uri());
                }
            }
            case UBIGEO -> {
                String code = UBIGEO_CODES[random.nextInt(UBIGEO_CODES.length)];
                HttpResponse<String> r = get("/v1/ubigeos/" + code, true);
                if (expect(kind, r, 200) && !code.equals(read(kind, r).path("code").asText())) {
                    fail(kind, "another ubigeo than " + code + ": " + r.body());
                }
            }
            case UBIGEO_UNKNOWN -> expect(kind, get("/v1/ubigeos/999999", true), 404);
            case TIPO_CAMBIO_LATEST -> {
                String moneda = random.nextBoolean() ? "USD" : "EUR";
                // USD from BCRP (with or without the parameters), from SBS or from SUNAT; EUR from BCRP.
                String[] usd = {"/v1/tipo-cambio", "/v1/tipo-cambio?moneda=USD", "/v1/tipo-cambio?fuente=sbs",
                        "/v1/tipo-cambio?fuente=sunat", "/v1/tipo-cambio?moneda=USD&fuente=bcrp"};
                HttpResponse<String> r = get(moneda.equals("USD") ? usd[random.nextInt(usd.length)]
                        : "/v1/tipo-cambio?moneda=" + moneda, true);
                if (expect(kind, r, 200) && !moneda.equals(read(kind, r).path("moneda").asText())) {
                    fail(kind, "not a " + moneda + " rate: " + r.body());
                }
            }
            case TIPO_CAMBIO_FECHA -> {
                String moneda = random.nextBoolean() ? "USD" : "EUR";
                LocalDate fecha = today.minusDays(random.nextInt(TrainingData.RATE_DAYS));
                HttpResponse<String> r = get("/v1/tipo-cambio?moneda=" + moneda + "&fecha=" + fecha, true);
                if (expect(kind, r, 200) && !fecha.toString().equals(read(kind, r).path("fecha").asText())) {
                    fail(kind, "not the rate of " + fecha + ": " + r.body());
                }
            }
            case TIPO_CAMBIO_RANGE -> {
                String fuente = new String[] {"bcrp", "sbs", "sunat"}[random.nextInt(3)];
                int days = 1 + random.nextInt(TrainingData.RATE_DAYS);
                HttpResponse<String> r = get("/v1/tipo-cambio?fuente=" + fuente + "&desde=" + today.minusDays(days - 1L)
                        + "&hasta=" + today, true);
                if (expect(kind, r, 200) && read(kind, r).path("items").size() != days) {
                    fail(kind, "not " + days + " rates: " + r.body());
                }
            }
            case STATUS -> expect(kind, get("/v1/status", false), 200);
            case USAGE -> expect(kind, get("/v1/usage", true), 200);
            case NO_KEY -> expect(kind, get(random.nextBoolean() ? "/v1/ruc/" + pick(known, random)
                    : "/v1/ubigeos?q=lima", false), 401);
            case BAD_QUERY -> expect(kind, get(BAD_QUERIES[random.nextInt(BAD_QUERIES.length)], true), 400);
            default -> throw new IllegalStateException("unreachable: " + kind);
        }
    }

    /** 10 to 100 RUCs (within the plan's cap), about one in ten unknown: each answered in order. */
    private void batch(SplittableRandom random) {
        int size = 10 + random.nextInt(Math.max(1, Math.min(100, plan.batchCap()) - 9));
        List<String> rucs = new ArrayList<>(size);
        int unknowns = 0;
        for (int i = 0; i < size; i++) {
            boolean miss = random.nextInt(10) == 0;
            unknowns += miss ? 1 : 0;
            rucs.add(pick(miss ? unknown : known, random));
        }
        String body;
        try {
            body = json.writeValueAsString(Map.of("rucs", rucs));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        HttpResponse<String> r = exchange(request("/v1/ruc/batch", true).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
        if (!expect(Kind.BATCH, r, 200)) {
            return;
        }
        JsonNode result = read(Kind.BATCH, r);
        if (result.path("total").asInt() != size || result.path("errors").asInt() != unknowns
                || result.path("results").size() != size
                || !rucs.getFirst().equals(result.path("results").path(0).path("ruc").asText())) {
            fail(Kind.BATCH, "a batch of " + size + " RUCs (" + unknowns + " unknown) answered " + r.body());
        }
    }

    private HttpResponse<String> get(String path, boolean withKey) {
        return exchange(request(path, withKey).GET());
    }

    private HttpRequest.Builder request(String path, boolean withKey) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(base + path)).timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json");
        return withKey ? builder.header("Authorization", "Bearer " + key) : builder;
    }

    /** The answer, or null when the exchange failed (and the run with it). */
    private HttpResponse<String> exchange(HttpRequest.Builder request) {
        HttpRequest built = request.build();
        try {
            return http.send(built, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            fail(null, built.method() + " " + built.uri() + " failed: " + e);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(null, "interrupted");
            return null;
        }
    }

    private boolean expect(Kind kind, HttpResponse<String> answer, int status) {
        if (answer == null) {
            return false;
        }
        if (answer.statusCode() != status) {
            fail(kind, answer.request().method() + " " + answer.uri() + " answered " + answer.statusCode()
                    + " instead of " + status + ": " + answer.body());
            return false;
        }
        return true;
    }

    private JsonNode read(Kind kind, HttpResponse<String> answer) {
        try {
            return json.readTree(answer.body());
        } catch (IOException e) {
            fail(kind, "not JSON from " + answer.uri() + ": " + answer.body());
            return json.missingNode();
        }
    }

    private void fail(Kind kind, String what) {
        failure.compareAndSet(null, (kind == null ? "" : kind + ": ") + what);
    }

    private static String pick(List<String> from, SplittableRandom random) {
        return from.get(random.nextInt(from.size()));
    }

    /** Valid RUCs (prefix and check digit) that are not in the sample: looked up, they are 404. */
    static List<String> unknownRucs(Set<String> known, int count) {
        List<String> rucs = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(42);
        while (rucs.size() < count) {
            String firstTen = (random.nextBoolean() ? "20" : "10") + String.format("%08d", random.nextInt(100_000_000));
            for (int digit = 0; digit <= 9; digit++) {
                try {
                    String ruc = Ruc.parse(firstTen + digit).value();
                    if (!known.contains(ruc)) {
                        rucs.add(ruc);
                    }
                    break;
                } catch (InvalidRucException wrongCheckDigit) {
                    // the next digit
                }
            }
        }
        return rucs;
    }
}
