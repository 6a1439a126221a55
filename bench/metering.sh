#!/usr/bin/env bash
# Benchmarks what metering costs on the hot path: RUC lookups with metering on against the
# same lookups with metering off (QUIPU_METERING_ENABLED=false), in one run, and shows with pg_stat_statements that
# metering adds no query per request.
#
#   ./mvnw -q -B -DskipTests package && bench/metering.sh [SECONDS] [CONNECTIONS]     (defaults: 20 s, 16)
#
# In a temporary folder (QUIPU_DATA_DIR), on the embedded PostgreSQL the API starts, with pg_stat_statements
# preloaded (QUIPU_EMBEDDED_DB_SETTINGS, config.yml's database.embeddedServerSettings):
#   1. starts the API from api/target/quipu-api.jar (metering on), loads the padrón sample (sample-padron),
#      creates a key (create-key) and lifts its account's limits so that they never bind (the set-plan task);
#   2. warms the JVM up with WARMUP s (default 15) of the same lookups, resets pg_stat_statements, runs wrk on
#      GET /v1/ruc/20100227461 for SECONDS, and reads pg_stat_statements;
#   3. stops the API gracefully (which flushes its counts: usage_counters then holds every lookup it answered),
#      starts it again with QUIPU_METERING_ENABLED=false, warms it up and runs the same load;
#   4. prints both throughputs and their ratio (target >= 0.90), and the calls of the metering statements
#      (those on usage_counters, usage_days, rate_windows, metering_instances) against the requests served.
# Exits non-zero when a check fails: an answer other than 200, or metering statements numbering 1 % of the
# requests or more (a per-request query). Throughput depends on whatever else the machine runs: compare runs
# made on the same, otherwise idle, machine.
# Needs wrk (Debian: apt-get install wrk), psql and curl. Ports 18280 (API), 18281 (admin), 18282 (embedded
# PostgreSQL). Everything started is stopped at the end.
set -euo pipefail

SECONDS_RUN=${1:-20}
CONNECTIONS=${2:-16}
WARMUP=${WARMUP:-15}
THREADS=${THREADS:-2}
REPO=$(cd "$(dirname "$0")/.." && pwd)
API_PORT=18280
ADMIN_PORT=18281
DB_PORT=18282
RUC=20100227461
EMAIL=bench-metering@quipu.test

for tool in wrk psql curl awk; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "bench: $tool is missing (Debian: apt-get install wrk postgresql-client curl)" >&2; exit 2; }
done
. "$REPO/bench/common.sh"
bench_java
API_JAR="$REPO/api/target/quipu-api.jar"
bench_require_jars "$API_JAR"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quipu-bench-metering.XXXXXX")
export QUIPU_DATA_DIR="$WORK/data" QUIPU_PORT=$API_PORT QUIPU_ADMIN_PORT=$ADMIN_PORT QUIPU_EMBEDDED_DB_PORT=$DB_PORT
export QUIPU_EMBEDDED_DB_SETTINGS="shared_preload_libraries=pg_stat_statements"
# The API's captures of exchange rates fail at once: nothing listens there, and nothing leaves the machine.
export BCRP_BASE_URL=http://127.0.0.1:9 SUNAT_FX_BASE_URL=http://127.0.0.1:9
unset DATABASE_URL DATABASE_USER DATABASE_PASSWORD QUIPU_METERING_ENABLED
API_PID=""

stop_api() {
  if [ -n "$API_PID" ]; then
    # SIGTERM: Dropwizard's graceful stop, in which the metering sync flushes and the embedded server stops.
    kill -TERM "$API_PID" 2>/dev/null || true
    wait "$API_PID" 2>/dev/null || true
    API_PID=""
  fi
}

cleanup() {
  stop_api
  bench_stop_leftover_server
  rm -rf "$WORK"
}
trap cleanup EXIT


start_api() { # $1: log name; the environment says whether metering is on
  "$JAVA" -jar "$API_JAR" server config.yml > "$WORK/$1.log" 2>&1 &
  API_PID=$!
  for _ in $(seq 1 180); do
    curl -fs "http://127.0.0.1:$API_PORT/v1/status" >/dev/null 2>&1 && return 0
    kill -0 "$API_PID" 2>/dev/null || { echo "bench: the API did not start:" >&2; tail -n 30 "$WORK/$1.log" >&2; exit 1; }
    sleep 1
  done
  echo "bench: the API did not answer within 180 s" >&2; exit 1
}

# Runs wrk on the lookup; $1: seconds, $2: output file. Prints "requests non2xx requests_per_second".
load() {
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"${1}s" -H "Authorization: Bearer $KEY" \
    "http://127.0.0.1:$API_PORT/v1/ruc/$RUC" > "$2"
  awk '/requests in/ { n = $1 } /Non-2xx or 3xx responses:/ { bad = $NF } /^Requests\/sec:/ { rps = $2 }
       END { printf "%d %d %.0f\n", n, bad + 0, rps }' "$2"
}

# Statement calls in the quipu database since the last reset: "metering_calls all_calls".
statement_calls() {
  sql -F ' ' -c "select coalesce(sum(calls) filter (where query ~* '(usage_counters|usage_days|rate_windows|metering_instances)'), 0),
                        coalesce(sum(calls), 0)
                   from pg_stat_statements
                  where dbid = (select oid from pg_database where datname = 'quipu')
                    and query !~* 'pg_stat_statements'"
}

cd "$REPO"
echo "bench: ${SECONDS_RUN} s per run after ${WARMUP} s of warm-up, wrk -t$THREADS -c$CONNECTIONS, $(nproc) CPUs," \
  "$("$JAVA" -version 2>&1 | head -n 1), work folder $WORK"

# --- metering on
start_api api-metered
"$JAVA" -jar "$API_JAR" sample-padron config.yml 2>/dev/null
KEY=$("$JAVA" -jar "$API_JAR" create-key --email "$EMAIL" --scopes ruc:read config.yml 2>/dev/null | tail -n 1)
# Limits that never bind: the benchmark measures the cost of counting, not refusals.
curl -fsS -o /dev/null -X POST -H "$(admin_auth)" \
  "http://127.0.0.1:$ADMIN_PORT/tasks/set-plan?email=$EMAIL&plan=enterprise&monthlyQuota=1000000000000&rateLimitRpm=2000000000"
sql -c "create extension if not exists pg_stat_statements"
ACCOUNT=$(sql -c "select id from accounts where email = '$EMAIL'")

read -r WARM_ON _ _ < <(load "$WARMUP" "$WORK/warmup-metered.txt")
sql -c "select pg_stat_statements_reset()" >/dev/null
read -r REQ_ON BAD_ON RPS_ON < <(load "$SECONDS_RUN" "$WORK/metered.txt")
read -r METER_CALLS ALL_CALLS < <(statement_calls)
sql -F ' | ' -c "select calls, regexp_replace(left(query, 90), '\s+', ' ', 'g')
                   from pg_stat_statements
                  where dbid = (select oid from pg_database where datname = 'quipu')
                    and query ~* '(usage_counters|usage_days|rate_windows|metering_instances)'
                  order by calls desc" > "$WORK/metering-statements.txt"
stop_api
echo "metering on:  $REQ_ON requests in ${SECONDS_RUN} s, $RPS_ON requests/s, $BAD_ON answers other than 2xx/3xx"

# --- metering off, same data, same key
QUIPU_METERING_ENABLED=false start_api api-unmetered
# The graceful stop flushed: every lookup answered with metering on is in usage_counters.
UNITS=$(sql -c "select coalesce(sum(used), 0) from usage_counters where account_id = '$ACCOUNT'")
read -r WARM_OFF _ _ < <(load "$WARMUP" "$WORK/warmup-unmetered.txt")
read -r REQ_OFF BAD_OFF RPS_OFF < <(load "$SECONDS_RUN" "$WORK/unmetered.txt")
stop_api
echo "metering off: $REQ_OFF requests in ${SECONDS_RUN} s, $RPS_OFF requests/s, $BAD_OFF answers other than 2xx/3xx"

RATIO=$(ratio "$RPS_ON" "$RPS_OFF")
PER_REQUEST=$(awk -v m="$METER_CALLS" -v r="$REQ_ON" 'BEGIN { printf "%.5f", m / r }')
echo
echo "throughput, metering on / off:     $RPS_ON / $RPS_OFF requests/s = $RATIO (target >= 0.90)"
echo "metering statements, metered run:  $METER_CALLS calls for $REQ_ON requests = $PER_REQUEST per request" \
  "(all statements in the quipu database: $ALL_CALLS)"
sed 's/^/  /' "$WORK/metering-statements.txt"
echo "usage_counters after the graceful stop: $UNITS units; wrk counted $((WARM_ON + REQ_ON)) answers" \
  "(requests cut off when wrk stops are answered but not counted by wrk)"
[ "$BAD_ON" = 0 ] && [ "$BAD_OFF" = 0 ] && [ $((METER_CALLS * 100)) -lt "$REQ_ON" ]
