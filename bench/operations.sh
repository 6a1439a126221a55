#!/usr/bin/env bash
# What request ids and request metrics cost (contract §13; target: lookups with them on at least 0.95 of the same
# lookups with them off), measured in one run against a baseline that runs beside it.
#
#   ./mvnw -q -B -DskipTests package && bench/operations.sh
#
#   Environment: ROUNDS (turns of each side, default 6), ROUND_S (seconds of each turn, default 10), WARMUP_S (seconds
#   of load on each side before the first turn, default 60), THREADS and CONNECTIONS (wrk -t/-c, default 2 and 32),
#   KEEP=1 keeps the work folder.
#
# In a temporary folder (QUIPU_DATA_DIR): starts API A (./quipu server, instrumented as it ships) with its embedded
# PostgreSQL, and API B on the same database with QUIPU_INSTRUMENT_REQUESTS=false (no X-Request-Id, no MDC filter, no
# quipu_requests_* metrics; everything else alike, /prometheus included); both with QUIPU_AOT=off and no warm-up, so
# that neither starts from a cache the other lacks. Creates a ubigeos:read key (./quipu create-key) whose limits are
# lifted (the set-plan task, with the admin token). Warms both up, then alternates A and B, ROUNDS turns each, with
# wrk on GET /v1/ubigeos/150101 (the cheapest lookup: the instrumentation's share of it is the largest), so that a
# change of the machine's speed reaches both alike. Prints each turn, the means, the ratio A/B and PASS or FAIL.
# Needs wrk, curl. Ports 18680-18683 and 18684 (PostgreSQL).
set -euo pipefail

ROUNDS=${ROUNDS:-6}
ROUND_S=${ROUND_S:-10}
WARMUP_S=${WARMUP_S:-60}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
KEEP=${KEEP:-0}
REPO=$(cd "$(dirname "$0")/.." && pwd)
A_PORT=18680 A_ADMIN=18681 B_PORT=18682 B_ADMIN=18683 DB_PORT=18684
EMAIL=bench-operations@quipu.test

for tool in wrk curl awk; do
  command -v "$tool" >/dev/null 2>&1 || { echo "bench: $tool is missing (Debian: apt-get install wrk curl)" >&2; exit 2; }
done
. "$REPO/bench/common.sh"
bench_java
bench_require_jars "$REPO/api/target/quipu-api.jar"
bench_require_free_ports $A_PORT $A_ADMIN $B_PORT $B_ADMIN $DB_PORT
cd "$REPO"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quipu-bench-operations.XXXXXX")
export QUIPU_DATA_DIR="$WORK/data" QUIPU_EMBEDDED_DB_PORT=$DB_PORT QUIPU_AOT=off QUIPU_WARM_UP=0s
export BCRP_BASE_URL="http://127.0.0.1:9"
unset DATABASE_URL DATABASE_USER DATABASE_PASSWORD QUIPU_ENV QUIPU_LOG_FORMAT
A_PID="" B_PID=""

cleanup() {
  local rc=$?
  [ "$rc" != 0 ] && for log in a.log b.log; do
    [ -s "$WORK/$log" ] && { echo "bench: failed ($rc); the end of $log:" >&2; tail -n 15 "$WORK/$log" >&2; }
  done
  for pid in $B_PID $A_PID; do
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  bench_stop_leftover_server
  if [ "$KEEP" = 1 ]; then echo "bench: work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# $1 port, $2 pid
await_ready() {
  for _ in $(seq 1 1200); do
    curl -fs -o /dev/null "http://127.0.0.1:$1/readyz" 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { echo "bench: an API did not start" >&2; exit 1; }
    sleep 0.1
  done
  echo "bench: an API did not answer within 120 s" >&2; exit 1
}

QUIPU_PORT=$A_PORT QUIPU_ADMIN_PORT=$A_ADMIN ./quipu server config.yml > "$WORK/a.log" 2>&1 &
A_PID=$!
await_ready $A_PORT "$A_PID"
QUIPU_PORT=$B_PORT QUIPU_ADMIN_PORT=$B_ADMIN QUIPU_INSTRUMENT_REQUESTS=false ./quipu server config.yml \
  > "$WORK/b.log" 2>&1 &
B_PID=$!
await_ready $B_PORT "$B_PID"

KEY=$(QUIPU_PORT=$A_PORT QUIPU_ADMIN_PORT=$A_ADMIN ./quipu create-key --email $EMAIL --scopes ubigeos:read \
  config.yml 2>/dev/null | tail -n 1)
curl -fsS -o /dev/null -X POST -H "$(admin_auth)" \
  "http://127.0.0.1:$A_ADMIN/tasks/set-plan?email=$EMAIL&plan=enterprise&monthlyQuota=1000000000000&rateLimitRpm=2000000000"
# The instrumented side answers with an id, the other without: the switch took.
curl -fsS -D - -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$A_PORT/v1/ubigeos/150101" \
  | grep -qi '^x-request-id:' || { echo "bench: A answers without X-Request-Id" >&2; exit 1; }
if curl -fsS -D - -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$B_PORT/v1/ubigeos/150101" \
  | grep -qi '^x-request-id:'; then echo "bench: B answers with X-Request-Id" >&2; exit 1; fi

cat > "$WORK/key.lua" <<LUA
wrk.headers["Authorization"] = "Bearer $KEY"
LUA
# Requests a second of a wrk run on $1 for $2 seconds; exits 1 on any answer but 2xx/3xx.
run() {
  local out
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$2s" -s "$WORK/key.lua" "http://127.0.0.1:$1/v1/ubigeos/150101")
  if echo "$out" | grep -q 'Non-2xx or 3xx'; then echo "bench: errors: $out" >&2; exit 1; fi
  echo "$out" | awk '/Requests\/sec/ { print $2 }'
}

echo "warm-up: ${WARMUP_S} s on each side"
run $A_PORT "$WARMUP_S" >/dev/null
run $B_PORT "$WARMUP_S" >/dev/null
A_SUM=0 B_SUM=0
for r in $(seq 1 "$ROUNDS"); do
  a=$(run $A_PORT "$ROUND_S")
  b=$(run $B_PORT "$ROUND_S")
  echo "turn $r: on $a req/s, off $b req/s"
  A_SUM=$(awk -v s="$A_SUM" -v x="$a" 'BEGIN { print s + x }')
  B_SUM=$(awk -v s="$B_SUM" -v x="$b" 'BEGIN { print s + x }')
done
A_MEAN=$(awk -v s="$A_SUM" -v n="$ROUNDS" 'BEGIN { printf "%.0f", s / n }')
B_MEAN=$(awk -v s="$B_SUM" -v n="$ROUNDS" 'BEGIN { printf "%.0f", s / n }')
R=$(ratio "$A_MEAN" "$B_MEAN")
VERDICT=$(awk -v r="$R" 'BEGIN { print (r >= 0.95 ? "PASS" : "FAIL") }')
echo "lookups with request ids and metrics: $A_MEAN req/s; without: $B_MEAN req/s; ratio $R (target >= 0.95) $VERDICT"
