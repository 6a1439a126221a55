#!/usr/bin/env bash
# Benchmarks the lookup path: GET /v1/ruc/{ruc} right after a start and once warm, POST /v1/ruc/batch, GET
# /v1/ubigeos?q= and GET /v1/tipo-cambio, against a bare Dropwizard application and nginx serving the very same answer
# bytes; SUNAT's rate against BCRP's and a 31-day range of rates; and the API's memory meanwhile.
#
#   ./mvnw -q -B -DskipTests package && bench/lookups.sh
#
#   Environment: ROWS (padrón rows, default 200000); SECONDS_RUN (each measurement, default 30); ROUNDS (the turns
#   of each measurement of B, default 3); STEADY_WARMUP (seconds of load after the first 10 s, in 10 s windows, before
#   the steady measurements, default 60); THREADS and CONNECTIONS (wrk -t/-c, default 2 and 64); KEEP=1 keeps the
#   work folder (wrk outputs, logs, Lua scripts, the answers); JFR=1 records the measured API with JDK Flight
#   Recorder (settings=profile) into WORK/steady.jfr and keeps the folder; FIRST_ONLY=N measures only the first 10 s
#   after a start, N times (start, 10 s of ruc.lua, /readyz waited for, 10 s more, stop; after A's launch times), for
#   work on the warm-up (with JFR=1, one recording per start, WORK/first-K.jfr); CACHE_ONLY=1 measures only B2, the
#   answer cache. QUIPU_JAVA_OPTS, when set, reaches the API's JVM through ./quipu as it would a user's.
#
# The API under test is started with `./quipu server config.yml` (but for the java -jar start timed in A), so that it
# runs with the launcher's JVM options (the heap cap, and whatever ./quipu adds later): the benchmark measures what a
# user gets. In a temporary
# folder (QUIPU_DATA_DIR), on the embedded PostgreSQL the API starts:
#   Setup
#   1. generates a padrón of ROWS rows (./quipu generate-padron, seed 42); starts the API, loads the padrón
#      (./quipu etl padron), creates a key with the read scopes ruc:read, ubigeos:read and tipo-cambio:read
#      (./quipu create-key) and lifts its account's limits so that they never bind (the set-plan task);
#   2. exchange rates: inserts synthetic rates of every series (BCRP's USD and EUR, SBS's and SUNAT's USD, each under
#      its fuente, as the captures write them) into exchange_rates for every day of the last 40, today and tomorrow
#      in Lima, so that GET /v1/tipo-cambio (latest, of any source) is answered from the database: a publication
#      dated today needs no question upstream, and tomorrow's row keeps that true should the run cross midnight in
#      Lima; and the 31 days up to today are each a publication, so that a range of them is proven from the
#      database alone. config.yml's bcrp.captureEnabled and sunatFx.captureEnabled are true and have no override, so
#      BCRP_BASE_URL and SUNAT_FX_BASE_URL point at a closed local port (http://127.0.0.1:9): the captures the API
#      runs after its start fail at once and nothing leaves the machine;
#      Then SUNAT's four lists and premises of that padrón (./quipu generate-sunat-lists, same rows and seed), each
#      loaded by its ETL job;
#   3. picks 1,000 random RUCs of the registry (setseed, so the same padrón gives the same RUCs) and writes the wrk
#      Lua scripts: ruc.lua cycles through them for GET /v1/ruc/{ruc} (each thread from its own place in the list),
#      ruc-include.lua the same with ?include=padrones,anexos, unknown.lua and ruc-kept.lua for B2 (below),
#      batch.lua POSTs {"rucs": [...]} with 100 of them as application/json; every request carries the key;
#   4. captures with curl the exact answers (which must be 200) of GET /v1/ruc/{the first of them}, GET
#      /v1/ubigeos?q=lima and GET /v1/tipo-cambio into WORK/answers, checks that GET /v1/tipo-cambio?fuente=sunat and
#      the 31-day range (fuente=sunat, desde 30 days before today, hasta today) answer 200, the range with 31 items;
#      stops the API (SIGTERM).
#   A. Starts, and the warm-up after a start. Launch to the first 200 of GET /v1/status of three ways of starting, the
#      first stopped once it answered: the first ./quipu start after a build (the AOT cache moved aside, as a build
#      leaves none: ./quipu starts without it and trains one in the background, waited for after the stop; skipped with
#      QUIPU_AOT=off), java -jar api/target/quipu-api.jar with the JVM's defaults (no option of ./quipu's), which runs
#      30 s of ruc.lua for its resident memory and stops, and ./quipu with its cache present, which then at once runs
#      10 s of ruc.lua ("first 10 s", while the warm-up runs beside it), then STEADY_WARMUP s more in 10 s windows (each
#      window's throughput printed). The first window that begins with /readyz answering 200 is "once /readyz is 200"
#      (if none within STEADY_WARMUP s, /readyz is waited for without load and one more window runs). Every other start
#      of the benchmark runs with the cache (QUIPU_AOT=wait, unless set: trained before the setup's start if this build
#      has none).
#   B. Quipu against the bare Dropwizard application (bench/bare/BareApp.java compiled with javac against the API's fat
#      jar, run from that jar's classes with -Xmx256m, Dropwizard's defaults but the ports, bench/bare/bare.yml), which
#      answers the same paths with the captured bytes (checked with curl first). The bare application starts beside the
#      API, which stays up but idle, and the two are measured in turns: for GET /v1/ruc/{ruc} (ruc.lua; 60 s of warm-up
#      on the bare application, then 10 s on Quipu), then GET /v1/ubigeos?q=lima and GET /v1/tipo-cambio (10 s of
#      warm-up on the bare application, then 30 s on Quipu, so that the compilations the bare application's warm-up sets
#      off end before Quipu's first measured round), ROUNDS rounds (default 3) of SECONDS_RUN/ROUNDS s on Quipu, then as
#      long on the bare application. A change in the machine's speed during the run (another guest on the host) so
#      reaches both sides alike, where measuring one side after the other let it tilt the ratio. Each side's figure is
#      the mean of its rounds; its p50 and p99, the highest of its rounds. The bare application stops. Then the cost of
#      SUNAT's lists and premises: ruc-include.lua (10 s of warm-up), then ROUNDS rounds alternating ruc.lua and
#      ruc-include.lua on Quipu (target: at least 80 % of the lookups' throughput: including them costs at most 20 %).
#      Then the sources and ranges of exchange rates, on Quipu: GET /v1/tipo-cambio?fuente=sunat (10 s of warm-up), then
#      2 x ROUNDS rounds of GET /v1/tipo-cambio?fuente=bcrp (BCRP's, the default's answer, asked with a query string as
#      SUNAT's is, so that only the source differs) and ?fuente=sunat in turns, each pair in the other order than the
#      one before (bcrp sunat, sunat bcrp, ...), so that a machine slowing down or speeding up during the run favours
#      neither (target: SUNAT's at least 90 % of BCRP's); then the 31-day range: 10 s of warm-up (its throughput shown),
#      then ROUNDS rounds with one connection (wrk -t1 -c1, as the batch: the time one answer takes, which 64
#      connections on 2 cores would bury under their own queue; target: p99 at most 10 ms, the highest of its rounds).
#      B2, the answer cache: unknown.lua, over 1,000 valid RUCs that are not in the registry (drawn with a fixed seed
#      and checked absent; every answer must be a 404 not_found, metered like any lookup): 10 s of warm-up, then ROUNDS
#      rounds alternating ruc.lua and unknown.lua (target: unknown at least 80 % of known). Then ROUNDS publications:
#      setup 3 also generated the next ROUNDS days' padrones, each with 1 % of the day before's records changed (./quipu
#      generate-padron --changes-from --change-rate 0.01, seeds 43, 44, ...) and ruc-kept.lua, ruc.lua less the RUCs any
#      of those files lacks; for each day, ruc-kept.lua runs 10 s (the steady figure), then again while ./quipu etl
#      padron loads that day's file (not measured), and 10 s from the end of the load (target: the mean of the 10 s
#      after at least 90 % of the mean of the 10 s before). CACHE_ONLY=1 runs the setup, 10 s of ruc.lua and B2 alone,
#      for work on the answer cache.
#   C. Batch: batch.lua with wrk -t1 -c1, 5 s of warm-up, then 15 s measured: p50 and p99 of a 100-RUC batch. The
#      API stops.
#   D. The ceiling, shown and not a target: nginx (worker_processes 2, its access log on, to a file in WORK), the same
#      bytes as static files (checked with curl), 5 s of warm-up then SECONDS_RUN s on each path.
#   E. Memory: the API's RSS (ps, every second) from its launch in A to the end of C; prints its maximum and the
#      JVM options the API ran with (jcmd VM.command_line).
#   F. Summary: one line per target with the figure, the ratio and PASS or FAIL, then "targets: N of M met".
# Every wrk run is wrk -tTHREADS -cCONNECTIONS --latency --timeout 10s (the batch -t1 -c1), one after another:
# nothing else of the benchmark runs meanwhile but the RSS sampler. p50/p99 are wrk's Latency Distribution; wrk leaves
# a request that times out out of it (a socket error), hence 10 s rather than its default 2 s, so that the slow
# answers of a cold start count in the p99 instead of vanishing from it.
# Exits non-zero when an answer of Quipu is not 2xx/3xx (a correctness failure), when a baseline does not answer
# its bytes, or when something fails to start; a missed performance target is printed, not an exit status.
# Figures depend on whatever else the machine runs (API, PostgreSQL, wrk share its CPUs): compare runs made on the
# same, otherwise idle, machine.
# Needs wrk, nginx, psql, curl, unzip (Debian: apt-get install wrk nginx postgresql-client curl unzip). Ports 18580 (API), 18581
# (its admin), 18582 (embedded PostgreSQL), 18583 (bare application), 18584 (its admin), 18585 (nginx). Everything
# started is stopped at the end.
set -euo pipefail

ROWS=${ROWS:-200000}
SECONDS_RUN=${SECONDS_RUN:-30}
ROUNDS=${ROUNDS:-3}
ROUND_S=$((SECONDS_RUN / ROUNDS))
STEADY_WARMUP=${STEADY_WARMUP:-60}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-64}
JFR=${JFR:-0}
KEEP=${KEEP:-0}
FIRST_ONLY=${FIRST_ONLY:-0}
CACHE_ONLY=${CACHE_ONLY:-0}
[ "$JFR" = 1 ] && KEEP=1
BATCH_SECONDS=15
REPO=$(cd "$(dirname "$0")/.." && pwd)
API_PORT=18580
ADMIN_PORT=18581
DB_PORT=18582
BARE_PORT=18583
BARE_ADMIN_PORT=18584
NGINX_PORT=18585
EMAIL=bench-lookups@quipu.test
UBIGEO_PATH="/v1/ubigeos?q=lima"
FX_PATH="/v1/tipo-cambio"
FX_SUNAT_PATH="/v1/tipo-cambio?fuente=sunat"
FX_BCRP_PATH="/v1/tipo-cambio?fuente=bcrp"
RANGE_DAYS=31

for tool in wrk nginx psql curl awk unzip; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "bench: $tool is missing (Debian: apt-get install wrk nginx postgresql-client curl unzip)" >&2; exit 2; }
done
. "$REPO/bench/common.sh"
bench_java
JAVAC="$JAVA_HOME/bin/javac"
JCMD="$JAVA_HOME/bin/jcmd"
[ -x "$JAVAC" ] || { echo "bench: $JAVAC is missing (the bare application is compiled at bench time)" >&2; exit 2; }
API_JAR="$REPO/api/target/quipu-api.jar"
bench_require_jars "$API_JAR" "$REPO/etl/target/quipu-etl.jar"
bench_require_free_ports $API_PORT $ADMIN_PORT $DB_PORT $BARE_PORT $BARE_ADMIN_PORT $NGINX_PORT

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quipu-bench-lookups.XXXXXX")
mkdir -p "$WORK/wrk" "$WORK/answers" "$WORK/nginx"
export QUIPU_DATA_DIR="$WORK/data" QUIPU_PORT=$API_PORT QUIPU_ADMIN_PORT=$ADMIN_PORT QUIPU_EMBEDDED_DB_PORT=$DB_PORT
# Any call to BCRP or SUNAT fails at once: nothing listens there (see step 2).
export BCRP_BASE_URL="http://127.0.0.1:9" SUNAT_FX_BASE_URL="http://127.0.0.1:9"
unset DATABASE_URL DATABASE_USER DATABASE_PASSWORD QUIPU_ENV QUIPU_METERING_ENABLED QUIPU_EMBEDDED_DB_SETTINGS
# Every start but the one measured as the first after a build (A) has the AOT cache, trained in front if there is none.
export QUIPU_AOT=${QUIPU_AOT:-wait}
API_PID=""
BARE_PID=""
NGINX_PID=""
SAMPLER_PID=""

stop_api() {
  if [ -n "$API_PID" ]; then
    # SIGTERM: Dropwizard's graceful stop, in which the embedded PostgreSQL stops too.
    kill -TERM "$API_PID" 2>/dev/null || true
    wait "$API_PID" 2>/dev/null || true
    API_PID=""
  fi
}

stop_sampler() {
  if [ -n "$SAMPLER_PID" ]; then
    kill "$SAMPLER_PID" 2>/dev/null || true
    wait "$SAMPLER_PID" 2>/dev/null || true
    SAMPLER_PID=""
  fi
}

# The most resident memory the sampler saw, in MB.
rss_max_mb() {
  awk '$1 > max { max = $1 } END { printf "%.0f", max / 1024 }' "$WORK/rss.txt"
}

cleanup() {
  local rc=$?
  if [ "$rc" != 0 ]; then
    for log in etl.log api-setup.log api.log bare.log nginx/error.log; do
      [ -s "$WORK/$log" ] && { echo "bench: failed ($rc); the end of $log:" >&2; tail -n 15 "$WORK/$log" >&2; }
    done
  fi
  stop_sampler
  stop_api
  if [ -n "$BARE_PID" ]; then
    kill -TERM "$BARE_PID" 2>/dev/null || true
    wait "$BARE_PID" 2>/dev/null || true
  fi
  if [ -n "$NGINX_PID" ]; then
    kill -QUIT "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
  fi
  bench_stop_leftover_server
  if [ "$KEEP" = 1 ]; then echo "bench: work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# Starts the API with ./quipu (in the background; ./quipu execs java, so $! is the JVM) and waits for GET /v1/status
# to answer 200; $1: log name; $2: "sample" starts the RSS sampler at launch; $3: "jar" starts it with java -jar
# instead. Sets API_PID and STARTUP_S (launch to that first 200).
start_api() {
  local t
  t=$(now)
  if [ "${3:-}" = jar ]; then
    # As a container user runs it: the fat jar with the JVM's defaults, no option of ./quipu's.
    "$JAVA_HOME/bin/java" -jar "$API_JAR" server config.yml > "$WORK/$1" 2>&1 &
  else
    ./quipu server config.yml > "$WORK/$1" 2>&1 &
  fi
  API_PID=$!
  if [ "${2:-}" = sample ]; then
    # The API's resident memory, every second, until stop_sampler.
    ( while kill -0 "$API_PID" 2>/dev/null; do ps -o rss= -p "$API_PID" 2>/dev/null || true; sleep 1; done ) \
      > "$WORK/rss.txt" &
    SAMPLER_PID=$!
  fi
  for _ in $(seq 1 1800); do
    if curl -fs -o /dev/null "http://127.0.0.1:$API_PORT/v1/status" 2>/dev/null; then
      STARTUP_S=$(since "$t")
      return 0
    fi
    kill -0 "$API_PID" 2>/dev/null || { echo "bench: the API did not start" >&2; exit 1; }
    sleep 0.1
  done
  echo "bench: the API did not answer within 180 s" >&2; exit 1
}

# Waits for GET /readyz to answer 200 (at most 180 s); sets READY_S, the time since $1 (a now).
await_ready() {
  for _ in $(seq 1 1800); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$API_PORT/readyz")" = 200 ]; then
      READY_S=$(since "$1")
      return 0
    fi
    sleep 0.1
  done
  echo "bench: /readyz did not answer 200 within 180 s" >&2; exit 1
}

# Waits for the AOT training that ./quipu runs in the background after a start without a cache (its lock folder).
await_aot_training() {
  local lock="$REPO/api/target/quipu-api-aot-training.lock"
  for _ in $(seq 1 300); do
    [ -d "$lock" ] || return 0
    sleep 1
  done
  echo "bench: the background AOT training still runs after 300 s ($lock)" >&2; exit 1
}

# Waits for a baseline to answer its RUC path; $1: port, $2: pid, $3: name.
await() {
  for _ in $(seq 1 600); do
    curl -fs -o /dev/null "http://127.0.0.1:$1/v1/ruc/$RUC" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "bench: $3 did not start" >&2; exit 1; }
    sleep 0.1
  done
  echo "bench: $3 did not answer within 60 s" >&2; exit 1
}

# GET on Quipu with the key; $1: path, $2: file for the body. Exits 1 unless the answer is 200.
fetch_ok() {
  local code
  code=$(curl -sS -o "$2" -w '%{http_code}' -H "Authorization: Bearer $KEY" "http://127.0.0.1:$API_PORT$1")
  [ "$code" = 200 ] || { echo "bench: GET $1 answered $code, not 200:" >&2; head -c 600 "$2" >&2; echo >&2; exit 1; }
}

# Exits 1 unless the server on port $1 answers path $2 with exactly the bytes of file $3; $4: its name.
same_bytes() {
  curl -fsS -H "Authorization: Bearer $KEY" "http://127.0.0.1:$1$2" > "$WORK/check.json"
  cmp -s "$WORK/check.json" "$3" || { echo "bench: $4 does not answer $2 with the bytes captured from Quipu" >&2; exit 1; }
}

QUIPU_BAD=0
QUIPU_ERRORS=0
BASE_BAD=0
# Runs wrk and reads its figures into R_RPS R_P50 R_P99 R_BAD R_ERR R_REQ; the output is kept in WORK/wrk/NAME.txt.
# $1: quipu | unknown (Quipu, where every answer must be a 404) | baseline (whose answers other than 2xx/3xx are
# counted), $2: name, $3: port, $4: seconds, $5: Lua script or "", $6: path; more arguments go to wrk (after -t/-c, so
# -t1 -c1 there win).
load() {
  local who=$1 name=$2 port=$3 seconds=$4 script=$5 path=$6
  shift 6
  local out="$WORK/wrk/$name.txt"
  wrk -t"$THREADS" -c"$CONNECTIONS" --timeout 10s "$@" -d"${seconds}s" --latency ${script:+-s "$script"} \
    -H "Authorization: Bearer $KEY" "http://127.0.0.1:$port$path" > "$out"
  read -r R_RPS R_P50 R_P99 R_BAD R_ERR R_REQ < <(wrk_figures "$out")
  if [ "$who" = baseline ]; then
    BASE_BAD=$((BASE_BAD + R_BAD))
  else
    if [ "$who" = unknown ]; then
      # Lookups of RUCs that are not in the registry: every answer is a 404, which wrk counts as non-2xx/3xx.
      R_BAD=$((R_REQ - R_BAD))
    fi
    QUIPU_BAD=$((QUIPU_BAD + R_BAD)); QUIPU_ERRORS=$((QUIPU_ERRORS + R_ERR))
    if ! kill -0 "$API_PID" 2>/dev/null; then
      local status=0
      wait "$API_PID" 2>/dev/null || status=$?
      API_PID=""
      echo "bench: the API exited (status $status) during $name, without being asked to by this script" \
        "(143: a SIGTERM from elsewhere); its figures are void" >&2
      exit 1
    fi
  fi
  if [ "$R_BAD" != 0 ] || [ "$R_ERR" != 0 ]; then
    echo "  ($name: $R_BAD answers other than 2xx/3xx, $R_ERR socket errors; see $out)"
  fi
}

# The larger of two figures, and the mean of several.
larger() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 >= b + 0 ? a : b) }'; }
mean() { printf '%s\n' "$@" | awk '{ s += $1; n++ } END { printf "%.0f", s / n }'; }

# a / b with 2 decimals, "n/a" when b is 0.
quotient() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.2f", a / b }'; }

cd "$REPO"
echo "bench: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), $("$JAVA" -version 2>&1 | head -n 1)," \
  "wrk -t$THREADS -c$CONNECTIONS, $ROWS rows, ${SECONDS_RUN} s per measurement, work folder $WORK"

# --- Setup 1: padrón, API, load, key
t=$(now)
./quipu generate-padron --rows "$ROWS" --out "$WORK/padron.zip" --seed 42
echo "setup: generated $ROWS rows ($(du -h "$WORK/padron.zip" | cut -f1) zip) in $(since "$t") s"
start_api api-setup.log
t=$(now)
./quipu etl padron --file "$WORK/padron.zip" config.yml 2> "$WORK/etl.log"
echo "setup: loaded the padrón in $(since "$t") s: $(sql -c "select count(*) from ruc_registry") rows in ruc_registry"
# SUNAT's lists and premises of that same padrón (same rows and seed), for GET /v1/ruc/{ruc}?include=padrones,anexos.
t=$(now)
./quipu generate-sunat-lists --rows "$ROWS" --out "$WORK/sunat" --seed 42 > /dev/null
for job in agentes-retencion:AgenRet_TXT.zip buenos-contribuyentes:BueCont_TXT.zip \
    agentes-percepcion:AgenPercVI_TXT.zip agentes-percepcion-combustibles:AgenPerc_TXT.zip \
    locales-anexos:padron_reducido_local_anexo.zip; do
  ./quipu etl "${job%%:*}" --file "$WORK/sunat/${job#*:}" config.yml 2>> "$WORK/etl.log" > /dev/null
done
echo "setup: generated and loaded SUNAT's lists and premises in $(since "$t") s:" \
  "$(sql -c "select count(*) from sunat_padrones") list entries, $(sql -c "select count(*) from locales_anexos") premises"
KEY=$(./quipu create-key --email "$EMAIL" --scopes ruc:read,ubigeos:read,tipo-cambio:read config.yml 2>/dev/null \
  | tail -n 1)
# Limits that never bind: the benchmark measures lookups, not refusals.
curl -fsS -o /dev/null -X POST -H "$(admin_auth)" \
  "http://127.0.0.1:$ADMIN_PORT/tasks/set-plan?email=$EMAIL&plan=enterprise&monthlyQuota=1000000000000&rateLimitRpm=2000000000"

# --- Setup 2: exchange rates of every series dated up to today in Lima (and tomorrow), so that the latest and a range
# of the last 31 days are answered from them
sql -c "insert into exchange_rates (fuente, moneda, fecha, compra, venta, capturado_en)
        select m.fuente, m.moneda, (now() at time zone 'America/Lima')::date + d, m.compra + 0.002 * d,
               m.venta + 0.002 * d, now()
          from (values ('bcrp', 'USD', 3.741, 3.749), ('bcrp', 'EUR', 4.052, 4.163), ('sbs', 'USD', 3.738, 3.746),
                       ('sunat', 'USD', 3.739, 3.747)) as m(fuente, moneda, compra, venta)
          cross join generate_series(-40, 1) as d
        on conflict (fuente, moneda, fecha) do nothing"
TODAY=$(sql -c "select (now() at time zone 'America/Lima')::date")
RANGE_PATH="/v1/tipo-cambio?fuente=sunat&desde=$(date -d "$TODAY - $((RANGE_DAYS - 1)) days" +%F)&hasta=$TODAY"

# --- Setup 3: RUCs and the wrk scripts
mapfile -t RUCS < <(sql -c "select setseed(0.42)" -c "select ruc from ruc_registry order by random() limit 1000" \
  | grep -E '^[0-9]{11}$')
[ "${#RUCS[@]}" = 1000 ] || { echo "bench: expected 1000 RUCs from ruc_registry, got ${#RUCS[@]}" >&2; exit 1; }
RUC=${RUCS[0]}
{
  echo "-- GET /v1/ruc/{ruc} over 1,000 RUCs of the registry; each thread starts at its own place in the list."
  echo "local rucs = {"
  printf '  "%s",\n' "${RUCS[@]}"
  echo "}"
  cat <<'EOF'
local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end
function init(args)
  requests = {}
  for i, ruc in ipairs(rucs) do
    requests[i] = wrk.format(nil, "/v1/ruc/" .. ruc)
  end
  index = (id * 379) % #requests
end
function request()
  index = index % #requests + 1
  return requests[index]
end
EOF
} > "$WORK/ruc.lua"
# The same lookups with SUNAT's lists and premises included.
sed 's|"/v1/ruc/" .. ruc)|"/v1/ruc/" .. ruc .. "?include=padrones,anexos")|' "$WORK/ruc.lua" > "$WORK/ruc-include.lua"
grep -q 'include=padrones,anexos' "$WORK/ruc-include.lua" || { echo "bench: could not write ruc-include.lua" >&2; exit 1; }
BODY=$(printf '"%s",' "${RUCS[@]:0:100}")
BODY="{\"rucs\":[${BODY%,}]}"
printf '%s' "$BODY" > "$WORK/batch.json"
cat > "$WORK/batch.lua" <<EOF
-- POST /v1/ruc/batch with 100 RUCs of the registry.
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '$BODY'
EOF

# RUCs that are not in the registry, with valid check digits (what typos and new taxpayers look like): unknown.lua
# cycles through 1,000 of them as ruc.lua does through known ones.
mapfile -t UNKNOWN < <(sql -c "select setseed(0.29)" -c "
  select ruc from (
    select p || (11 - (select sum(substr(p, i::int, 1)::int * w)
                         from unnest(array[5, 4, 3, 2, 7, 6, 5, 4, 3, 2]) with ordinality as t(w, i)) % 11) % 10 as ruc
      from (select '20' || lpad(floor(random() * 1e8)::bigint::text, 8, '0') as p
              from generate_series(1, 1500)) c) u
   where not exists (select 1 from ruc_registry r where r.ruc = u.ruc)
   limit 1000" | grep -E '^[0-9]{11}$')
[ "${#UNKNOWN[@]}" = 1000 ] || { echo "bench: expected 1000 unknown RUCs, got ${#UNKNOWN[@]}" >&2; exit 1; }
{
  echo "-- GET /v1/ruc/{ruc} over 1,000 valid RUCs that are not in the registry (404 not_found, metered)."
  echo "local rucs = {"
  printf '  "%s",\n' "${UNKNOWN[@]}"
  echo "}"
  sed -n '/^local threads = 0/,$p' "$WORK/ruc.lua"
} > "$WORK/unknown.lua"
# The next ROUNDS days' padrones, each with 1 % of the day before's records changed (added, removed, changed as
# NextDayPadron shares them), and ruc-kept.lua: ruc.lua less the RUCs any of those files lacks, so that the lookups
# around their publications all answer 200.
printf '%s\n' "${RUCS[@]}" | sort > "$WORK/kept-rucs.txt"
previous="$WORK/padron.zip"
for k in $(seq 1 "$ROUNDS"); do
  ./quipu generate-padron --changes-from "$previous" --change-rate 0.01 --seed $((42 + k)) \
    --out "$WORK/padron-next-$k.zip" > /dev/null
  unzip -p "$WORK/padron-next-$k.zip" | cut -d'|' -f1 | grep -E '^[0-9]{11}$' | sort > "$WORK/next-rucs.txt"
  comm -12 "$WORK/kept-rucs.txt" "$WORK/next-rucs.txt" > "$WORK/kept-rucs.next"
  mv "$WORK/kept-rucs.next" "$WORK/kept-rucs.txt"
  previous="$WORK/padron-next-$k.zip"
done
mapfile -t KEPT < "$WORK/kept-rucs.txt"
{
  echo "-- GET /v1/ruc/{ruc} over the RUCs of ruc.lua that the next days' padrones keep."
  echo "local rucs = {"
  printf '  "%s",\n' "${KEPT[@]}"
  echo "}"
  sed -n '/^local threads = 0/,$p' "$WORK/ruc.lua"
} > "$WORK/ruc-kept.lua"

# --- Setup 4: the answers the baselines serve, and a check of every URL benchmarked
fetch_ok "/v1/ruc/$RUC" "$WORK/answers/ruc.json"
fetch_ok "$UBIGEO_PATH" "$WORK/answers/ubigeos.json"
fetch_ok "$FX_PATH" "$WORK/answers/tipo-cambio.json"
fetch_ok "$FX_SUNAT_PATH" "$WORK/sunat.json"
grep -q '"fuente":"sunat"' "$WORK/sunat.json" || { echo "bench: GET $FX_SUNAT_PATH is not SUNAT's rate" >&2; exit 1; }
fetch_ok "$RANGE_PATH" "$WORK/range.json"
[ "$(grep -o '"fecha"' "$WORK/range.json" | wc -l)" = "$RANGE_DAYS" ] || {
  echo "bench: GET $RANGE_PATH did not list $RANGE_DAYS rates:" >&2; head -c 600 "$WORK/range.json" >&2; exit 1; }
code=$(curl -sS -o "$WORK/batch-answer.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $KEY" \
  -H "Content-Type: application/json" --data-binary @"$WORK/batch.json" "http://127.0.0.1:$API_PORT/v1/ruc/batch")
grep -q '"ok":100' "$WORK/batch-answer.json" && [ "$code" = 200 ] || {
  echo "bench: POST /v1/ruc/batch answered $code, not 200 with 100 ok:" >&2; head -c 600 "$WORK/batch-answer.json" >&2; exit 1; }
code=$(curl -sS -o "$WORK/unknown.json" -w '%{http_code}' -H "Authorization: Bearer $KEY" \
  "http://127.0.0.1:$API_PORT/v1/ruc/${UNKNOWN[0]}")
[ "$code" = 404 ] && grep -q '"type":"not_found"' "$WORK/unknown.json" || {
  echo "bench: GET /v1/ruc/${UNKNOWN[0]} answered $code, not 404 not_found:" >&2; head -c 600 "$WORK/unknown.json" >&2; exit 1; }
echo "setup: answers captured: GET /v1/ruc/$RUC $(wc -c < "$WORK/answers/ruc.json") bytes;" \
  "GET $UBIGEO_PATH $(grep -o '"code"' "$WORK/answers/ubigeos.json" | wc -l) districts, $(wc -c < "$WORK/answers/ubigeos.json") bytes;" \
  "GET $FX_PATH $(wc -c < "$WORK/answers/tipo-cambio.json") bytes: $(cat "$WORK/answers/tipo-cambio.json");" \
  "GET $FX_SUNAT_PATH $(wc -c < "$WORK/sunat.json") bytes; GET $RANGE_PATH $RANGE_DAYS rates, $(wc -c < "$WORK/range.json") bytes"
stop_api

# --- B2 (run within B, or alone with CACHE_ONLY=1). The answer cache: unknown RUCs against known ones, and the
# lookups right after a publication that changes 1 % of the registry against the same lookups just before it.
answer_cache() {
  local k known=() unknown=() wrk_pid t
  load unknown unknown-warmup $API_PORT 10 "$WORK/unknown.lua" "/v1/ruc/${UNKNOWN[0]}"
  UNKNOWN_P99=0
  for k in $(seq 1 "$ROUNDS"); do
    load quipu "ruc-known-$k" $API_PORT "$ROUND_S" "$WORK/ruc.lua" "/v1/ruc/$RUC"
    known+=("$R_RPS")
    load unknown "ruc-unknown-$k" $API_PORT "$ROUND_S" "$WORK/unknown.lua" "/v1/ruc/${UNKNOWN[0]}"
    unknown+=("$R_RPS"); UNKNOWN_P99=$(larger "$UNKNOWN_P99" "$R_P99")
  done
  KNOWN_RPS=$(mean "${known[@]}") UNKNOWN_RPS=$(mean "${unknown[@]}")
  echo "   unknown RUCs (404), $ROUNDS rounds of $ROUND_S s each in turns with known ones:" \
    "$(IFS=/; echo "${unknown[*]}") req/s, mean $UNKNOWN_RPS, p99 $UNKNOWN_P99 ms; known: $(IFS=/; echo "${known[*]}")" \
    "req/s, mean $KNOWN_RPS"
  # The publications, ROUNDS of them (the next days in turn): the 10 s just before each, then its padrón loaded while
  # ruc-kept.lua runs (its figures not kept), then the 10 s from the end of the load. One publication against one
  # window before it measured the machine as much as Quipu: 0.86-0.97 in full runs, 1.08-1.13 alone.
  local before=() after=() loads=() changes=()
  AFTER_PUB_P99=0
  for k in $(seq 1 "$ROUNDS"); do
    load quipu "ruc-before-publication-$k" $API_PORT 10 "$WORK/ruc-kept.lua" "/v1/ruc/$RUC"
    before+=("$R_RPS")
    wrk -t"$THREADS" -c"$CONNECTIONS" --timeout 10s -d3600s -s "$WORK/ruc-kept.lua" -H "Authorization: Bearer $KEY" \
      "http://127.0.0.1:$API_PORT/v1/ruc/$RUC" > "$WORK/wrk/ruc-during-publication-$k.txt" 2>&1 &
    wrk_pid=$!
    t=$(now)
    ./quipu etl padron --file "$WORK/padron-next-$k.zip" config.yml 2>> "$WORK/etl.log" > /dev/null
    loads+=("$(since "$t")")
    kill "$wrk_pid" 2>/dev/null; wait "$wrk_pid" 2>/dev/null || true
    load quipu "ruc-after-publication-$k" $API_PORT 10 "$WORK/ruc-kept.lua" "/v1/ruc/$RUC"
    after+=("$R_RPS"); AFTER_PUB_P99=$(larger "$AFTER_PUB_P99" "$R_P99")
    changes+=("$(sql -c "select added || ' added, ' || changed || ' changed, ' || removed || ' removed' \
      from dataset_loads where dataset = 'padron'")")
  done
  BEFORE_PUB_RPS=$(mean "${before[@]}") AFTER_PUB_RPS=$(mean "${after[@]}")
  echo "   $ROUNDS publications of 1 % changes ($(IFS=';'; echo "${changes[*]}" | sed 's/;/; /g'); loaded in" \
    "$(IFS=/; echo "${loads[*]}") s under load): the 10 s after each $(IFS=/; echo "${after[*]}") req/s, mean" \
    "$AFTER_PUB_RPS, p99 $AFTER_PUB_P99 ms; the 10 s before each $(IFS=/; echo "${before[*]}") req/s, mean" \
    "$BEFORE_PUB_RPS"
}

# --- A. Starts, and the warm-up after a start
echo
# Launch to the first answer of the two other ways of starting: the first ./quipu start after a build (the cache moved
# aside, as a build leaves none; ./quipu then starts without it and trains one in the background, which is waited for
# before going on), and java -jar with the JVM's defaults. Each start is stopped at its first answer.
FIRST_BUILD_S=n/a
if [ "${QUIPU_AOT:-on}" != off ]; then
  mkdir -p "$WORK/aot-aside"
  mv "$REPO"/api/target/quipu-api-*.aot "$WORK/aot-aside/" 2>/dev/null || true
  rm -f "$REPO"/api/target/quipu-api-*.aot.failed
  aot=$QUIPU_AOT
  export QUIPU_AOT=on
  start_api api-first-build.log
  export QUIPU_AOT=$aot
  FIRST_BUILD_S=$STARTUP_S
  stop_api
  t=$(now)
  await_aot_training
  if ls "$REPO"/api/target/quipu-api-*.aot > /dev/null 2>&1; then
    rm -rf "$WORK/aot-aside"
  else
    mv "$WORK"/aot-aside/*.aot "$REPO/api/target/" 2>/dev/null || true
  fi
  echo "A. the first ./quipu start after a build (no AOT cache): launch to the first 200 of /v1/status in" \
    "$FIRST_BUILD_S s; the background training, waited for after the stop, ended $(since "$t") s later"
fi
start_api api-jar.log sample jar
JAR_S=$STARTUP_S
# Its resident memory under 30 s of RUC lookups: a container user's figure, beside ./quipu's (E).
load quipu ruc-jar $API_PORT 30 "$WORK/ruc.lua" "/v1/ruc/$RUC"
stop_sampler
JAR_RSS_MB=$(rss_max_mb)
stop_api
echo "A. java -jar api/target/quipu-api.jar server config.yml (the JVM's defaults): launch to the first 200 in" \
  "$JAR_S s; max RSS from its launch to the end of 30 s of ruc.lua: $JAR_RSS_MB MB ($R_RPS req/s)"
if [ "$FIRST_ONLY" -gt 0 ]; then
  OPTS="${QUIPU_JAVA_OPTS:-}"
  for k in $(seq 1 "$FIRST_ONLY"); do
    if [ "$JFR" = 1 ]; then
      # One file name for every start: other JVM options would mean another AOT cache, trained at each start.
      export QUIPU_JAVA_OPTS="${OPTS:+$OPTS }-XX:StartFlightRecording=filename=$WORK/first.jfr,settings=profile"
    fi
    launched=$(now)
    start_api "api-first-$k.log"
    load quipu "ruc-first-$k" $API_PORT 10 "$WORK/ruc.lua" "/v1/ruc/$RUC"
    FIRST_RPS=$R_RPS
    echo "A$k. launch to the first 200 in $STARTUP_S s; first 10 s: $R_RPS req/s, p50 $R_P50 ms, p99 $R_P99 ms" \
      "(load average $(cut -d' ' -f1 /proc/loadavg))"
    await_ready "$launched"
    load quipu "ruc-ready-$k" $API_PORT 10 "$WORK/ruc.lua" "/v1/ruc/$RUC"
    echo "    /readyz 200 at $READY_S s; the 10 s then: $R_RPS req/s, p99 $R_P99 ms; first 10 s / those:" \
      "$(quotient "$FIRST_RPS" "$R_RPS")"
    stop_api
    [ "$JFR" = 1 ] && mv "$WORK/first.jfr" "$WORK/first-$k.jfr"
  done
  exit 0
fi
if [ "$CACHE_ONLY" = 1 ]; then
  start_api api.log
  load quipu ruc-warmup $API_PORT 10 "$WORK/ruc.lua" "/v1/ruc/$RUC"
  echo "B2. The answer cache (alone, after 10 s of ruc.lua):"
  answer_cache
  echo "unknown RUCs / known: $(quotient "$UNKNOWN_RPS" "$KNOWN_RPS");" \
    "the 10 s after a 1 %-change publication / before: $(quotient "$AFTER_PUB_RPS" "$BEFORE_PUB_RPS")"
  stop_api
  [ "$QUIPU_BAD" = 0 ] || { echo "bench: $QUIPU_BAD answers of Quipu were not 2xx/3xx" >&2; exit 1; }
  exit 0
fi
if [ "$JFR" = 1 ]; then
  export QUIPU_JAVA_OPTS="${QUIPU_JAVA_OPTS:+$QUIPU_JAVA_OPTS }-XX:StartFlightRecording=filename=$WORK/steady.jfr,settings=profile"
fi
launched=$(now)
start_api api.log sample
CACHED_S=$STARTUP_S
echo "A. RUC lookups after a start (./quipu server config.yml, its AOT cache present): launch to the first 200 of" \
  "/v1/status in $CACHED_S s"
load quipu ruc-first $API_PORT 10 "$WORK/ruc.lua" "/v1/ruc/$RUC"
FIRST_RPS=$R_RPS FIRST_P99=$R_P99
echo "   first 10 s: $FIRST_RPS req/s, p50 $R_P50 ms, p99 $FIRST_P99 ms"
# Then 10 s windows; the first that begins with /readyz answering 200 is "once ready" (its figures kept); after
# STEADY_WARMUP s of windows, /readyz is waited for without load if it has not said 200 yet, and one window run then.
elapsed=10
window=0
left=$STEADY_WARMUP
READY_RPS=""
READY_S=n/a
while [ "$left" -gt 0 ] || [ -z "$READY_RPS" ]; do
  d=$((left > 0 && left < 10 ? left : 10))
  ready=""
  if [ -z "$READY_RPS" ]; then
    if [ "$left" -le 0 ]; then
      await_ready "$launched"
      ready=1
    elif [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$API_PORT/readyz")" = 200 ]; then
      READY_S=$(since "$launched")
      ready=1
    fi
  fi
  window=$((window + 1))
  load quipu "ruc-warmup-$window" $API_PORT "$d" "$WORK/ruc.lua" "/v1/ruc/$RUC"
  echo "   ${elapsed}-$((elapsed + d)) s: $R_RPS req/s, p99 $R_P99 ms${ready:+ (the first window with /readyz 200, at $READY_S s after the launch)}"
  if [ -n "$ready" ]; then READY_RPS=$R_RPS READY_P99=$R_P99; fi
  elapsed=$((elapsed + d))
  left=$((left - d))
done
# --- B. The bare Dropwizard application, started beside the (idle) API for the paired measurements
"$JAVAC" -nowarn -cp "$API_JAR" -d "$WORK/bare-classes" bench/bare/BareApp.java
"$JAVA" -Xmx256m -Dbare.dir="$WORK/answers" -cp "$API_JAR:$WORK/bare-classes" BareApp server bench/bare/bare.yml \
  > "$WORK/bare.log" 2>&1 &
BARE_PID=$!
await $BARE_PORT "$BARE_PID" "the bare application"
same_bytes $BARE_PORT "/v1/ruc/$RUC" "$WORK/answers/ruc.json" "the bare application"
same_bytes $BARE_PORT "$UBIGEO_PATH" "$WORK/answers/ubigeos.json" "the bare application"
same_bytes $BARE_PORT "$FX_PATH" "$WORK/answers/tipo-cambio.json" "the bare application"

# Measures Quipu and the bare application on one path in ROUNDS alternating rounds of ROUND_S s each (Quipu, bare,
# Quipu, bare, ...), after bwarm s of warm-up on the bare application and then qwarm s on Quipu, so that a change in the
# machine's speed during the run reaches both sides alike. $1: name, $2: Lua script or "", $3: path, $4: qwarm, $5:
# bwarm. Sets Q_RPS and B_RPS (the mean of each side's rounds), Q_P50 and Q_P99, B_P50 and B_P99 (the highest of
# each side's rounds), and prints each round.
paired() {
  local name=$1 script=$2 path=$3 k
  local q=() b=()
  # The bare application's warm-up first: the compilations it sets off in that JVM end during Quipu's, not during
  # Quipu's first measured round.
  [ "$5" -gt 0 ] && load baseline "bare-$name-warmup" $BARE_PORT "$5" "$script" "$path"
  [ "$4" -gt 0 ] && load quipu "$name-warmup" $API_PORT "$4" "$script" "$path"
  Q_P50=0 Q_P99=0 B_P50=0 B_P99=0
  for k in $(seq 1 "$ROUNDS"); do
    load quipu "$name-$k" $API_PORT "$ROUND_S" "$script" "$path"
    q+=("$R_RPS"); Q_P50=$(larger "$Q_P50" "$R_P50"); Q_P99=$(larger "$Q_P99" "$R_P99")
    load baseline "bare-$name-$k" $BARE_PORT "$ROUND_S" "$script" "$path"
    b+=("$R_RPS"); B_P50=$(larger "$B_P50" "$R_P50"); B_P99=$(larger "$B_P99" "$R_P99")
  done
  Q_RPS=$(mean "${q[@]}") B_RPS=$(mean "${b[@]}")
  echo "   $name, $ROUNDS rounds of $ROUND_S s each: Quipu $(IFS=/; echo "${q[*]}") req/s, mean $Q_RPS, p50 $Q_P50 ms," \
    "p99 $Q_P99 ms; bare $(IFS=/; echo "${b[*]}") req/s, mean $B_RPS, p50 $B_P50 ms, p99 $B_P99 ms"
}

echo "B. Quipu against the bare Dropwizard application (java -Xmx256m, the API jar's classes, the same answer bytes),"
echo "   alternating:"
# 60 s on the bare application first: it has no AOT cache, and after 20 or 30 s of load its first measured round still
# ran at half its later ones (7,229 then 21,712 and 17,364 a second), which flattered Quipu's ratio.
paired ruc "$WORK/ruc.lua" "/v1/ruc/$RUC" 10 60
RUC_RPS=$Q_RPS RUC_P50=$Q_P50 RUC_P99=$Q_P99 BARE_RUC_RPS=$B_RPS
# 30 s on Quipu for each of the two: with 10 s its rounds still climbed in two full runs (ubigeo 6,358, 6,796, 9,316 a
# second, then 9,218, 11,986, 11,863), which measured its JIT rather than its steady speed. The bare application's
# path is the one its RUC warm-up compiled.
paired ubigeo "" "$UBIGEO_PATH" 30 10
UBIGEO_RPS=$Q_RPS UBIGEO_P99=$Q_P99 BARE_UBIGEO_RPS=$B_RPS
paired tipo-cambio "" "$FX_PATH" 30 10
FX_RPS=$Q_RPS FX_P99=$Q_P99 BARE_FX_RPS=$B_RPS
kill -TERM "$BARE_PID"; wait "$BARE_PID" 2>/dev/null || true; BARE_PID=""
# The lookups with SUNAT's lists and premises included, in turns with the same lookups without them.
load quipu ruc-include-warmup $API_PORT 10 "$WORK/ruc-include.lua" "/v1/ruc/$RUC?include=padrones,anexos"
plain=() included=() INCLUDE_P99=0
for k in $(seq 1 "$ROUNDS"); do
  load quipu "ruc-plain-$k" $API_PORT "$ROUND_S" "$WORK/ruc.lua" "/v1/ruc/$RUC"
  plain+=("$R_RPS")
  load quipu "ruc-include-$k" $API_PORT "$ROUND_S" "$WORK/ruc-include.lua" "/v1/ruc/$RUC?include=padrones,anexos"
  included+=("$R_RPS"); INCLUDE_P99=$(larger "$INCLUDE_P99" "$R_P99")
done
PLAIN_RPS=$(mean "${plain[@]}") INCLUDE_RPS=$(mean "${included[@]}")
echo "   ruc ?include=padrones,anexos, $ROUNDS rounds of $ROUND_S s each in turns with the same lookups without it:" \
  "$(IFS=/; echo "${included[*]}") req/s, mean $INCLUDE_RPS, p99 $INCLUDE_P99 ms; without: $(IFS=/; echo "${plain[*]}")" \
  "req/s, mean $PLAIN_RPS"
# SUNAT's rate in turns with BCRP's, each pair in the other order than the one before; then a 31-day range. BCRP's is
# asked as ?fuente=bcrp, the same answer as the default's, so that the two differ in their source only: the default
# has no query string to parse, validate and redact in the request log, which is no cost of a source.
load quipu sunat-warmup $API_PORT 10 "" "$FX_SUNAT_PATH"
bcrp=() sunat=() SUNAT_P99=0
for k in $(seq 1 $((2 * ROUNDS))); do
  for which in $([ $((k % 2)) = 1 ] && echo "bcrp sunat" || echo "sunat bcrp"); do
    if [ "$which" = bcrp ]; then
      load quipu "fx-bcrp-$k" $API_PORT "$ROUND_S" "" "$FX_BCRP_PATH"
      bcrp+=("$R_RPS")
    else
      load quipu "fx-sunat-$k" $API_PORT "$ROUND_S" "" "$FX_SUNAT_PATH"
      sunat+=("$R_RPS"); SUNAT_P99=$(larger "$SUNAT_P99" "$R_P99")
    fi
  done
done
FX_BCRP_RPS=$(mean "${bcrp[@]}") FX_SUNAT_RPS=$(mean "${sunat[@]}")
echo "   tipo-cambio?fuente=sunat, $((2 * ROUNDS)) rounds of $ROUND_S s each in turns with ?fuente=bcrp:" \
  "$(IFS=/; echo "${sunat[*]}") req/s, mean $FX_SUNAT_RPS, p99 $SUNAT_P99 ms; bcrp: $(IFS=/; echo "${bcrp[*]}")" \
  "req/s, mean $FX_BCRP_RPS"
load quipu range-warmup $API_PORT 10 "" "$RANGE_PATH"
RANGE_C64_RPS=$R_RPS
ranges=() RANGE_P50=0 RANGE_P99=0
for k in $(seq 1 "$ROUNDS"); do
  load quipu "range-$k" $API_PORT "$ROUND_S" "" "$RANGE_PATH" -t1 -c1
  ranges+=("$R_RPS"); RANGE_P50=$(larger "$RANGE_P50" "$R_P50"); RANGE_P99=$(larger "$RANGE_P99" "$R_P99")
done
RANGE_RPS=$(mean "${ranges[@]}")
echo "   $RANGE_DAYS-day range of SUNAT's rates from the cache: $RANGE_C64_RPS req/s with wrk -t$THREADS" \
  "-c$CONNECTIONS (10 s); with wrk -t1 -c1, $ROUNDS rounds of $ROUND_S s each: $(IFS=/; echo "${ranges[*]}") req/s," \
  "p50 $RANGE_P50 ms, p99 $RANGE_P99 ms"

echo "B2. The answer cache:"
answer_cache

# --- C. Batch, one connection
load quipu batch-warmup $API_PORT 5 "$WORK/batch.lua" /v1/ruc/batch -t1 -c1
load quipu batch $API_PORT $BATCH_SECONDS "$WORK/batch.lua" /v1/ruc/batch -t1 -c1
BATCH_RPS=$R_RPS BATCH_P50=$R_P50 BATCH_P99=$R_P99
echo "C. POST /v1/ruc/batch, 100 RUCs, wrk -t1 -c1: $BATCH_RPS batches/s, p50 $BATCH_P50 ms, p99 $BATCH_P99 ms"

# --- E (measured from the API's launch in A to the end of C). Memory and JVM options, then the API stops.
stop_sampler
RSS_MAX_MB=$(rss_max_mb)
RSS_SAMPLES=$(grep -c . "$WORK/rss.txt" || true)
JVM_ARGS=$("$JCMD" "$API_PID" VM.command_line 2>/dev/null | sed -n 's/^jvm_args: *//p' | sed 's/ *$//' || true)
[ -n "$JVM_ARGS" ] || JVM_ARGS="(jcmd failed) $(ps -o args= -p "$API_PID")"
stop_api

# --- D. The ceiling: nginx
{
  [ "$(id -u)" = 0 ] && echo "user root;"
  echo "worker_processes 2;"
  echo "pid $WORK/nginx/nginx.pid;"
  echo "error_log $WORK/nginx/error.log;"
  echo "events { worker_connections 1024; }"
  echo "http {"
  echo "  types { application/json json; }"
  echo "  access_log $WORK/nginx/access.log;"
  for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $WORK/nginx/$t;"; done
  echo "  server {"
  echo "    listen 127.0.0.1:$NGINX_PORT;"
  echo "    root $WORK/answers;"
  echo "    location ^~ /v1/ruc/ { try_files /ruc.json =404; }"
  echo "    location = /v1/ubigeos { try_files /ubigeos.json =404; }"
  echo "    location = /v1/tipo-cambio { try_files /tipo-cambio.json =404; }"
  echo "  }"
  echo "}"
} > "$WORK/nginx/nginx.conf"
nginx -p "$WORK/nginx" -e "$WORK/nginx/error.log" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' \
  2> "$WORK/nginx/stderr.log" &
NGINX_PID=$!
await $NGINX_PORT "$NGINX_PID" nginx
same_bytes $NGINX_PORT "/v1/ruc/$RUC" "$WORK/answers/ruc.json" nginx
same_bytes $NGINX_PORT "$UBIGEO_PATH" "$WORK/answers/ubigeos.json" nginx
same_bytes $NGINX_PORT "$FX_PATH" "$WORK/answers/tipo-cambio.json" nginx
echo "D. The ceiling: nginx (worker_processes 2, access log on), the same bytes as static files:"
load baseline nginx-ruc-warmup $NGINX_PORT 5 "$WORK/ruc.lua" "/v1/ruc/$RUC"
load baseline nginx-ruc $NGINX_PORT "$SECONDS_RUN" "$WORK/ruc.lua" "/v1/ruc/$RUC"
NGINX_RUC_RPS=$R_RPS
echo "   ruc: $NGINX_RUC_RPS req/s, p50 $R_P50 ms, p99 $R_P99 ms"
load baseline nginx-ubigeo $NGINX_PORT "$SECONDS_RUN" "" "$UBIGEO_PATH"
echo "   ubigeo: $R_RPS req/s, p50 $R_P50 ms, p99 $R_P99 ms"
load baseline nginx-fx $NGINX_PORT "$SECONDS_RUN" "" "$FX_PATH"
echo "   tipo-cambio: $R_RPS req/s, p50 $R_P50 ms, p99 $R_P99 ms"
kill -QUIT "$NGINX_PID"; wait "$NGINX_PID" 2>/dev/null || true; NGINX_PID=""

echo
echo "E. API max RSS from its launch to the end of C: $RSS_MAX_MB MB ($RSS_SAMPLES samples, one a second)"
echo "   API JVM options: $JVM_ARGS"
[ "$JFR" = 1 ] && echo "   JFR recording of A-C: $WORK/steady.jfr ($(du -h "$WORK/steady.jfr" 2>/dev/null | cut -f1 || echo missing))"

# --- F. Summary
TARGETS=0
MET=0
# $1: what, $2: the figures, $3: the value compared, $4: >= or <=, $5: the limit, $6: how the target reads
target() {
  local result
  result=$(awk -v v="$3" -v op="$4" -v l="$5" 'BEGIN {
    if (v == "n/a") { print "FAIL"; exit }
    print ((op == ">=" ? v + 0 >= l + 0 : v + 0 <= l + 0) ? "PASS" : "FAIL") }')
  TARGETS=$((TARGETS + 1))
  [ "$result" = PASS ] && MET=$((MET + 1))
  printf '  %-31s %-36s %-13s %s\n' "$1" "$2" "$6" "$result"
}
echo
echo "F. Summary (wrk -t$THREADS -c$CONNECTIONS, ${SECONDS_RUN} s per measurement, $(nproc) CPUs, load average now" \
  "$(cut -d' ' -f1-3 /proc/loadavg))"
R=$(quotient "$RUC_RPS" "$BARE_RUC_RPS")
target "ruc steady / bare" "$RUC_RPS / $BARE_RUC_RPS req/s = $R" "$R" ">=" 0.90 ">= 0.90"
printf '  %-31s %-36s %-13s %s\n' "ruc steady / nginx (ceiling)" \
  "$RUC_RPS / $NGINX_RUC_RPS req/s = $(quotient "$RUC_RPS" "$NGINX_RUC_RPS")" "" "(shown)"
target "ruc steady p99" "$RUC_P99 ms" "$RUC_P99" "<=" 20 "<= 20 ms"
R=$(quotient "$INCLUDE_RPS" "$PLAIN_RPS")
target "include=padrones,anexos / ruc" "$INCLUDE_RPS / $PLAIN_RPS req/s = $R" "$R" ">=" 0.80 ">= 0.80"
R=$(quotient "$UNKNOWN_RPS" "$KNOWN_RPS")
target "unknown-RUC lookups / known" "$UNKNOWN_RPS / $KNOWN_RPS req/s = $R" "$R" ">=" 0.80 ">= 0.80"
R=$(quotient "$AFTER_PUB_RPS" "$BEFORE_PUB_RPS")
target "10 s after 1 %-change publications / before" "$AFTER_PUB_RPS / $BEFORE_PUB_RPS req/s = $R" "$R" ">=" 0.90 \
  ">= 0.90"
R=$(quotient "$FIRST_RPS" "$RUC_RPS")
target "first 10 s / ruc steady" "$FIRST_RPS / $RUC_RPS req/s = $R" "$R" ">=" 0.50 ">= 0.50"
target "first 10 s p99" "$FIRST_P99 ms" "$FIRST_P99" "<=" 100 "<= 100 ms"
R=$(quotient "$READY_RPS" "$RUC_RPS")
target "once /readyz is 200 / steady" "$READY_RPS / $RUC_RPS req/s = $R (p99 $READY_P99 ms)" "$R" ">=" 0.90 ">= 0.90"
target "launch to 1st answer, cache" "./quipu, cache present: $CACHED_S s" "$CACHED_S" "<=" 5 "<= 5 s"
target "launch to 1st answer, new build" "./quipu, no cache yet: $FIRST_BUILD_S s" "$FIRST_BUILD_S" "<=" 15 "<= 15 s"
target "launch to 1st answer, java -jar" "java -jar, JVM defaults: $JAR_S s" "$JAR_S" "<=" 15 "<= 15 s"
target "batch (100 RUCs) p50" "$BATCH_P50 ms" "$BATCH_P50" "<=" 2 "<= 2 ms"
target "batch (100 RUCs) p99" "$BATCH_P99 ms" "$BATCH_P99" "<=" 10 "<= 10 ms"
R=$(quotient "$UBIGEO_RPS" "$BARE_UBIGEO_RPS")
target "ubigeo / bare-ubigeo" "$UBIGEO_RPS / $BARE_UBIGEO_RPS req/s = $R" "$R" ">=" 0.60 ">= 0.60"
R=$(quotient "$FX_RPS" "$BARE_FX_RPS")
target "tipo-cambio / bare-tipo-cambio" "$FX_RPS / $BARE_FX_RPS req/s = $R" "$R" ">=" 0.60 ">= 0.60"
R=$(quotient "$FX_SUNAT_RPS" "$FX_BCRP_RPS")
target "tipo-cambio sunat / bcrp" "$FX_SUNAT_RPS / $FX_BCRP_RPS req/s = $R" "$R" ">=" 0.90 ">= 0.90"
target "$RANGE_DAYS-day range p99 (-c1)" "$RANGE_P99 ms (p50 $RANGE_P50 ms)" "$RANGE_P99" "<=" 10 "<= 10 ms"
target "API max RSS under load (./quipu)" "$RSS_MAX_MB MB" "$RSS_MAX_MB" "<=" 384 "<= 384 MB"
echo "targets: $MET of $TARGETS met"
echo "answers of Quipu other than 2xx/3xx: $QUIPU_BAD (must be 0); socket errors against Quipu: $QUIPU_ERRORS;" \
  "baselines' answers other than 2xx/3xx: $BASE_BAD (must be 0)"
[ "$QUIPU_BAD" = 0 ] && [ "$BASE_BAD" = 0 ]
