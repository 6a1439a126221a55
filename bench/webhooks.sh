#!/usr/bin/env bash
# Benchmarks webhook delivery: throughput to a receiver that answers 204 at once, beside that
# receiver's own ceiling; the punctuality of retries; what one hanging endpoint costs the others; the API's RSS with
# a backlog of deliveries pending.
#
#   bench/webhooks.sh [EVENTS]        (EVENTS per throughput run, default 500: 500 events x 20 endpoints = 10,000
#                                      deliveries; ./quipu builds the jar first when it is missing or stale)
#
#   Environment: BIG=1 adds a run of 10,000 events x 20 endpoints = 200,000 deliveries (a few minutes);
#   RETRY_EVENTS (default 100: x 10 failing endpoints x 2 retries = 2,000 retries); BACKLOG (default 100000);
#   MEMORY_SECONDS (default 20); KEEP=1 keeps the work folder (logs). QUIPU_JAVA_OPTS goes to the API's JVM (./quipu
#   passes it on after its own -Xmx128m), e.g. -Xmx512m; with -XX:NativeMemoryTracking=summary step 5 also prints the JVM's own account of
#   its memory.
#
# In a temporary folder (QUIPU_DATA_DIR), on the embedded PostgreSQL the API starts (with track_commit_timestamp=on,
# so that the moment each delivery was recorded is known exactly), one API process for the whole run, started with
# `./quipu server` on a copy of config.yml whose webhooks.retrySchedule is [0s, 2s, 2s] (it matters only to failing
# deliveries) and QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true, so that endpoints may be on 127.0.0.1:
#   1. receiver: nginx (Debian's; installed with apt-get when missing) on 20 ports of 127.0.0.1, `return 204` for
#      every path and 500 under /fail/; its ceiling: wrk -t2 -c160 (20 endpoints x perEndpointConcurrency 8) for
#      5 s, POSTing a delivery-sized body with delivery-like headers, to one of the ports;
#   2. throughput: one enterprise account (create-key, then the set-plan task) with 20 endpoints created over HTTP,
#      one per nginx port, each subscribed to key.created. Each run writes EVENTS key.created events into the
#      `events` outbox in one INSERT (psql); the worker fans them out, 20 deliveries each. Throughput = deliveries /
#      (last delivery's record committed - first event written); WARMUPS (default 3) runs of the same size come first. The
#      figure printed last is the mean of the two baselines of step 3;
#   3. hanging endpoint: runs baseline, then with a 21st endpoint (same account and events) on a TCP listener that
#      accepts and never answers, so that each of its attempts lasts the 10 s timeout (an unmeasured batch of
#      events first; the run is measured once its first attempts have timed out, timed so that the next ones time
#      out during it), then baseline again (the hanging endpoint deleted and its listener stopped). The ratio compares the 20 endpoints' throughput with the hanging one to
#      the mean of both baselines (target >= 0.80);
#   4. retry punctuality: another account with 10 endpoints on nginx's /fail/ (500, so all 3 attempts fail) and
#      RETRY_EVENTS events; for each retry, lateness = its attempted_at - (the previous attempt's attempted_at + its
#      latency_ms + 2 s), from webhook_attempts; p50/p99/max (target p99 <= 1 s);
#   5. memory: another account with 20 endpoints on a port where nothing listens (connection refused), BACKLOG
#      deliveries inserted directly into webhook_deliveries, all due; the API's RSS (ps) every second for
#      MEMORY_SECONDS while the worker works through them, and the JVM's heap (jcmd GC.heap_info); target <= 512 MB.
#      RSS is also printed after each earlier step.
# Prints "met" or "MISSED" beside each target, but exits non-zero only when a run does not complete (a delivery not
# delivered within its time limit) or something fails to start. Figures depend on
# whatever else the machine runs (everything here shares its CPUs: API, PostgreSQL, nginx, wrk): compare runs made
# on the same, otherwise idle, machine. Needs nginx, wrk, psql, curl, python3 (free ports, the hanging listener).
# Ports: free ones, picked at start. Everything started is stopped at the end.
set -euo pipefail

EVENTS=${1:-500}
BIG=${BIG:-0}
WARMUPS=${WARMUPS:-3}
RETRY_EVENTS=${RETRY_EVENTS:-100}
BACKLOG=${BACKLOG:-100000}
MEMORY_SECONDS=${MEMORY_SECONDS:-20}
ENDPOINTS=20
RETRY_ENDPOINTS=10
PER_ENDPOINT=8    # config.yml's webhooks.perEndpointConcurrency
REPO=$(cd "$(dirname "$0")/.." && pwd)

if ! command -v nginx >/dev/null 2>&1; then
  echo "bench: nginx is missing; installing Debian's" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx >&2 || {
    echo "bench: could not install nginx (apt-get install nginx)" >&2; exit 2; }
fi
for tool in nginx wrk psql curl python3 awk; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "bench: $tool is missing (Debian: apt-get install nginx wrk postgresql-client curl python3)" >&2; exit 2; }
done
. "$REPO/bench/common.sh"
bench_java
JCMD="$JAVA_HOME/bin/jcmd"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quipu-bench-webhooks.XXXXXX")
# 20 receiver ports, the hanging listener, a port nobody listens on, the API, its admin, the embedded PostgreSQL.
read -r -a PORTS < <(python3 -c '
import socket
socks = []
for _ in range(25):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))')
RECEIVER_PORTS=("${PORTS[@]:0:ENDPOINTS}")
HANG_PORT=${PORTS[20]}
DOWN_PORT=${PORTS[21]}
API_PORT=${PORTS[22]}
ADMIN_PORT=${PORTS[23]}
DB_PORT=${PORTS[24]}
export QUIPU_DATA_DIR="$WORK/data" QUIPU_PORT=$API_PORT QUIPU_ADMIN_PORT=$ADMIN_PORT QUIPU_EMBEDDED_DB_PORT=$DB_PORT
export QUIPU_EMBEDDED_DB_SETTINGS="track_commit_timestamp=on"
export QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true
# The API's captures of exchange rates fail at once: nothing listens there, and nothing leaves the machine.
export BCRP_BASE_URL=http://127.0.0.1:9 SUNAT_FX_BASE_URL=http://127.0.0.1:9
# The API starts with its AOT cache, trained first if this build has none (not in the background during the run).
export QUIPU_AOT=${QUIPU_AOT:-wait}
unset DATABASE_URL DATABASE_USER DATABASE_PASSWORD QUIPU_WEBHOOKS_WORKER QUIPU_ENV
API_PID=""
NGINX_PID=""
HANG_PID=""

cleanup() {
  local rc=$?
  if [ "$rc" != 0 ]; then
    for log in api.log cli.log; do
      [ -f "$WORK/$log" ] && { echo "bench: failed ($rc); the end of $log:" >&2; tail -n 15 "$WORK/$log" >&2; }
    done
  fi
  [ -n "$HANG_PID" ] && kill "$HANG_PID" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill -QUIT "$NGINX_PID" 2>/dev/null || true
  if [ -n "$API_PID" ]; then
    kill -TERM "$API_PID" 2>/dev/null || true
    wait "$API_PID" 2>/dev/null || true
  fi
  bench_stop_leftover_server
  [ -n "$NGINX_PID" ] && wait "$NGINX_PID" 2>/dev/null || true
  if [ "${KEEP:-0}" = 1 ]; then echo "bench: work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

cd "$REPO"
# The API's configuration: config.yml with retries 2 s apart (only failing deliveries are retried).
sed 's/^  retrySchedule: .*/  retrySchedule: [0s, 2s, 2s]/' config.yml > "$WORK/config.yml"
grep -q '^  retrySchedule: \[0s, 2s, 2s\]$' "$WORK/config.yml" || {
  echo "bench: could not set webhooks.retrySchedule in a copy of config.yml" >&2; exit 2; }
RETRY_DELAY=2

# --- the receiver: nginx, as the current user, everything in the work folder
mkdir -p "$WORK/nginx"
{
  [ "$(id -u)" = 0 ] && echo "user root;"
  echo "worker_processes 2;"
  echo "pid $WORK/nginx/nginx.pid;"
  echo "error_log $WORK/nginx/error.log;"
  echo "events { worker_connections 4096; }"
  echo "http {"
  echo "  access_log off;"
  for t in client_body proxy fastcgi uwsgi scgi; do echo "  ${t}_temp_path $WORK/nginx/$t;"; done
  echo "  server {"
  for p in "${RECEIVER_PORTS[@]}"; do echo "    listen 127.0.0.1:$p;"; done
  echo "    location / { return 204; }"
  echo "    location /fail/ { return 500; }"
  echo "  }"
  echo "}"
} > "$WORK/nginx/nginx.conf"
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2> "$WORK/nginx/stderr.log" &
NGINX_PID=$!

# --- the hanging endpoint: accepts connections, reads nothing, never answers
cat > "$WORK/hang.py" <<'EOF'
import socket, sys
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", int(sys.argv[1])))
server.listen(1024)
held = []
while True:
    connection, _ = server.accept()
    held.append(connection)
EOF
python3 "$WORK/hang.py" "$HANG_PORT" &
HANG_PID=$!

for _ in $(seq 1 50); do
  curl -fs -o /dev/null -X POST "http://127.0.0.1:${RECEIVER_PORTS[0]}/" 2>/dev/null && break
  kill -0 "$NGINX_PID" 2>/dev/null || { echo "bench: nginx did not start:" >&2; cat "$WORK/nginx/stderr.log" "$WORK/nginx/error.log" >&2; exit 1; }
  sleep 0.1
done

echo "bench: $EVENTS events x $ENDPOINTS endpoints per throughput run, $(nproc) CPUs," \
  "$("$JAVA" -version 2>&1 | head -n 1), QUIPU_JAVA_OPTS='${QUIPU_JAVA_OPTS:-}', work folder $WORK"
load=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench: load average before starting: $load"

# --- the receiver's ceiling
BODY='{"id":"evt_00000000000000000000000000","type":"key.created","createdAt":"2026-11-23T14:00:00.123456Z","data":{}}'
cat > "$WORK/post.lua" <<EOF
wrk.method = "POST"
wrk.body = '$BODY'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["User-Agent"] = "Quipu-Webhooks/1.0"
wrk.headers["x-quipu-event"] = "key.created"
wrk.headers["x-quipu-delivery"] = "att_00000000000000000000000000"
wrk.headers["x-quipu-timestamp"] = "1795442400"
wrk.headers["x-quipu-signature"] = "t=1795442400,v1=0000000000000000000000000000000000000000000000000000000000000000"
wrk.headers["webhook-id"] = "evt_00000000000000000000000000"
wrk.headers["webhook-timestamp"] = "1795442400"
wrk.headers["webhook-signature"] = "v1,00000000000000000000000000000000000000000000"
EOF
WRK_CONNECTIONS=$((ENDPOINTS * PER_ENDPOINT))
wrk -t2 -c"$WRK_CONNECTIONS" -d5s -s "$WORK/post.lua" "http://127.0.0.1:${RECEIVER_PORTS[0]}/hook" > "$WORK/wrk.txt"
CEILING=$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$WORK/wrk.txt")
CEILING_BAD=$(awk '/Non-2xx or 3xx responses:/ { n = $NF } END { print n + 0 }' "$WORK/wrk.txt")
echo "receiver ceiling $CEILING req/s (nginx, wrk -t2 -c$WRK_CONNECTIONS -d5s, $CEILING_BAD answers other than 2xx)"

# --- the API
t=$(now)
"$REPO/quipu" server "$WORK/config.yml" > "$WORK/api.log" 2>&1 &
API_PID=$!
for _ in $(seq 1 600); do
  curl -fs "http://127.0.0.1:$API_PORT/v1/status" >/dev/null 2>&1 && break
  kill -0 "$API_PID" 2>/dev/null || { echo "bench: the API did not start:" >&2; tail -n 30 "$WORK/api.log" >&2; exit 1; }
  sleep 0.5
done
curl -fs "http://127.0.0.1:$API_PORT/v1/status" >/dev/null || { echo "bench: the API did not answer" >&2; exit 1; }
# The embedded server's port, as every Quipu process finds it: line 4 of postmaster.pid.
DB_PORT=$(sed -n 4p "$QUIPU_DATA_DIR/postgres/postmaster.pid")
echo "API up in $(since "$t") s (pid $API_PID, port $API_PORT; embedded PostgreSQL on $DB_PORT)"

verdict() { if [ "${1%.*}" "$2" "$3" ]; then echo met; else echo MISSED; fi; }  # $1 -op $3, integers
rss_mb() { awk '{ printf "%.0f", $1 / 1024 }' < <(ps -o rss= -p "$API_PID"); }
echo "API RSS idle: $(rss_mb) MB"

# An enterprise account (50 endpoints) with a webhooks:manage key; sets KEY and ACCOUNT. $1: email
new_account() {
  KEY=$("$REPO/quipu" create-key --email "$1" --scopes webhooks:manage "$WORK/config.yml" 2>> "$WORK/cli.log" | tail -n 1)
  curl -fsS -o /dev/null -X POST -H "$(admin_auth)" "http://127.0.0.1:$ADMIN_PORT/tasks/set-plan?email=$1&plan=enterprise"
  ACCOUNT=$(sql -c "select id from accounts where email = '$1'")
  [ -n "$KEY" ] && [ -n "$ACCOUNT" ] || { echo "bench: could not create the account $1:" >&2; tail -n 20 "$WORK/cli.log" >&2; exit 1; }
}

# Creates an endpoint subscribed to key.created; prints its id. $1: key, $2: URL.
new_endpoint() {
  local answer
  answer=$(curl -fsS -X POST "http://127.0.0.1:$API_PORT/v1/webhooks" -H "Authorization: Bearer $1" \
    -H 'Content-Type: application/json' -d "{\"url\": \"$2\", \"events\": [\"key.created\"]}") || {
    echo "bench: could not create an endpoint for $2" >&2; exit 1; }
  python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])' <<< "$answer"
}

# Writes $2 key.created events of account $3 into the outbox, in one statement, ids evt_$1_N.
write_events() {
  sql -c "insert into events (id, type, account_id, data, created_at)
          select 'evt_$1_' || g, 'key.created', '$3', '{}'::jsonb, now() from generate_series(1, $2) g"
}

# Waits until the deliveries of run $1 to endpoints other than $3 number $2, all delivered; fails after a limit.
await_delivered() {
  local limit=$(( $2 / 20 + 120 )) start done_
  start=$(date +%s)
  while true; do
    done_=$(sql -c "select count(*) from webhook_deliveries
                     where event_id like 'evt_$1\_%' and status = 'delivered' and endpoint_id::text <> '${3:-}'")
    [ "$done_" -ge "$2" ] && return 0
    if [ $(( $(date +%s) - start )) -gt "$limit" ]; then
      echo "bench: run $1: only $done_ of $2 deliveries delivered after $limit s" >&2
      sql -F ' ' -c "select status, error, count(*) from webhook_deliveries where event_id like 'evt_$1\_%'
                      group by 1, 2" >&2
      exit 1
    fi
    sleep 0.5
  done
}

# Figures of run $1 (deliveries to endpoints other than $2), in seconds from the first event written (its
# created_at: the INSERT's now()): "deliveries span per_second fanned_out first_sent first_recorded", where span ends
# at the commit of the last delivery's record, fanned_out at the commit of the last fan-out (the events' row versions),
# first_sent is the first attempt's attempted_at.
run_figures() {
  sql -F ' ' -c "
    with ev as (select min(created_at) as written, max(pg_xact_commit_timestamp(xmin)) as fanned
                  from events where id like 'evt_$1\_%'),
         d as (select count(*) as n, max(pg_xact_commit_timestamp(xmin)) as last_,
                      min(pg_xact_commit_timestamp(xmin)) as first_, min(last_attempt_at) as sent
                 from webhook_deliveries
                where event_id like 'evt_$1\_%' and status = 'delivered' and endpoint_id::text <> '${2:-}')
    select d.n, round(extract(epoch from d.last_ - ev.written)::numeric, 2),
           round(d.n / extract(epoch from d.last_ - ev.written)::numeric),
           round(extract(epoch from ev.fanned - ev.written)::numeric, 2),
           round(extract(epoch from d.sent - ev.written)::numeric, 2),
           round(extract(epoch from d.first_ - ev.written)::numeric, 2)
      from ev, d"
}

# One throughput run: $1 tag, $2 events, $3 label, $4 an endpoint to leave out of the figures. Sets RUN_RATE.
throughput_run() {
  local n s rate fanned sent first
  write_events "$1" "$2" "$ACCOUNT_A"
  await_delivered "$1" $(( $2 * ENDPOINTS )) "${4:-}"
  read -r n s rate fanned sent first < <(run_figures "$1" "${4:-}")
  RUN_RATE=$rate
  printf '%-26s %6d deliveries in %6.2f s = %5d deliveries/s (fanned out %s s, first sent %s s, first recorded %s s); RSS %s MB\n' \
    "$3:" "$n" "$s" "$rate" "$fanned" "$sent" "$first" "$(rss_mb)"
}

# --- 2. throughput
new_account bench-webhooks-a@quipu.test
KEY_A=$KEY ACCOUNT_A=$ACCOUNT
for p in "${RECEIVER_PORTS[@]}"; do new_endpoint "$KEY_A" "http://127.0.0.1:$p/hooks/quipu" > /dev/null; done
echo
# The JIT keeps improving over the first runs (a second baseline after one warm-up ran 1.5x the first): warm up more.
for w in $(seq 1 "$WARMUPS"); do throughput_run "warm$w" "$EVENTS" "warm-up $w (JIT)"; done
throughput_run base1 "$EVENTS" "baseline"
BASE1=$RUN_RATE

# --- 3. the same with a hanging endpoint, once its first attempts have run into the timeout (its slots busy,
# its attempts timing out and retried, a backlog of its deliveries due)
HANG_ID=$(new_endpoint "$KEY_A" "http://127.0.0.1:$HANG_PORT/hooks/quipu")
hang_attempts() {
  sql -c "select count(*) from webhook_attempts t join webhook_deliveries d on d.id = t.delivery_id
           where d.endpoint_id = '$HANG_ID' and t.error = 'timeout'"
}
write_events prehang "$EVENTS" "$ACCOUNT_A"
await_delivered prehang $(( EVENTS * ENDPOINTS )) "$HANG_ID"
start=$(date +%s)
until [ "$(hang_attempts)" -ge "$PER_ENDPOINT" ]; do
  [ $(( $(date +%s) - start )) -gt 60 ] && { echo "bench: the hanging endpoint's attempts did not time out" >&2; exit 1; }
  sleep 0.5
done
# Its slots were refilled as they timed out, so its next attempts time out 10 s later: start 7 s after, so that they
# do while the measured run sends (a run lasts a few seconds, the first of them fanning out).
sleep 7
HANG_BEFORE=$(hang_attempts)
throughput_run hang "$EVENTS" "with a hanging endpoint" "$HANG_ID"
HANG=$RUN_RATE
HANG_LEFT=$(sql -c "select count(*) from webhook_deliveries where endpoint_id = '$HANG_ID' and status in ('pending', 'retrying')")
echo "  (the hanging endpoint: $HANG_BEFORE attempts timed out before this run, $(( $(hang_attempts) - HANG_BEFORE )) during it;" \
  "$HANG_LEFT of its deliveries still to go)"
kill "$HANG_PID"; wait "$HANG_PID" 2>/dev/null || true; HANG_PID=""
curl -fsS -o /dev/null -X DELETE "http://127.0.0.1:$API_PORT/v1/webhooks/$HANG_ID" -H "Authorization: Bearer $KEY_A"
throughput_run base2 "$EVENTS" "baseline again"
BASE2=$RUN_RATE

if [ "$BIG" = 1 ]; then
  throughput_run big 10000 "10,000 events x 20"
  BIG_RATE=$RUN_RATE
fi

# --- 4. retry punctuality
new_account bench-webhooks-c@quipu.test
KEY_C=$KEY ACCOUNT_C=$ACCOUNT
for i in $(seq 0 $((RETRY_ENDPOINTS - 1))); do
  new_endpoint "$KEY_C" "http://127.0.0.1:${RECEIVER_PORTS[$i]}/fail/$i" > /dev/null
done
write_events retry "$RETRY_EVENTS" "$ACCOUNT_C"
RETRY_DELIVERIES=$(( RETRY_EVENTS * RETRY_ENDPOINTS ))
start=$(date +%s)
while true; do
  left=$(sql -c "select $RETRY_DELIVERIES - count(*) filter (where status = 'failed_permanent')
                   from webhook_deliveries where event_id like 'evt_retry\_%'")
  [ "$left" -le 0 ] && break
  [ $(( $(date +%s) - start )) -gt $(( RETRY_DELIVERIES / 10 + 120 )) ] && {
    echo "bench: retries: $left deliveries not failed_permanent in time" >&2; exit 1; }
  sleep 0.5
done
read -r RETRIES P50 P99 PMAX EARLY < <(sql -F ' ' -c "
  with a as (
    select t.attempted_at, lag(t.attempted_at) over w as prev_at, lag(t.latency_ms) over w as prev_ms
      from webhook_attempts t join webhook_deliveries d on d.id = t.delivery_id
     where d.event_id like 'evt_retry\_%'
    window w as (partition by t.delivery_id order by t.attempted_at)),
  late as (
    select extract(epoch from attempted_at - (prev_at + prev_ms * interval '1 millisecond'
                                              + interval '$RETRY_DELAY seconds')) as s
      from a where prev_at is not null)
  select count(*), round(percentile_cont(0.5) within group (order by s)::numeric, 3),
         round(percentile_cont(0.99) within group (order by s)::numeric, 3), round(max(s)::numeric, 3),
         count(*) filter (where s < -0.002)
    from late")
echo
echo "retry punctuality: $RETRIES retries (sent - due): p50 $P50 s, p99 $P99 s, max $PMAX s; $EARLY sent early; RSS $(rss_mb) MB"

# --- 5. memory with a backlog
new_account bench-webhooks-d@quipu.test
KEY_D=$KEY ACCOUNT_D=$ACCOUNT
for i in $(seq 1 $ENDPOINTS); do new_endpoint "$KEY_D" "http://127.0.0.1:$DOWN_PORT/hooks/$i" > /dev/null; done
RSS_BEFORE=$(rss_mb)
t=$(now)
sql -c "
  with e as (select array_agg(id order by id) as ids from webhook_endpoints where account_id = '$ACCOUNT_D')
  insert into webhook_deliveries (id, endpoint_id, event_id, event_type, body, status, next_attempt_at, created_at)
  select 'dlv_bench_' || g, e.ids[1 + g % array_length(e.ids, 1)], 'evt_mem_' || g, 'key.created',
         convert_to(json_build_object('id', 'evt_mem_' || g, 'type', 'key.created',
                                      'createdAt', now(), 'data', '{}'::json)::text, 'UTF8'),
         'pending', now(), now()
    from e, generate_series(1, $BACKLOG) g"
INSERT_S=$(since "$t")
t=$(now)
PEAK=0
for _ in $(seq 1 "$MEMORY_SECONDS"); do
  sleep 1
  r=$(rss_mb)
  [ "$r" -gt "$PEAK" ] && PEAK=$r
done
MEM_END=$(rss_mb)
read -r MEM_PENDING MEM_TRIED < <(sql -F ' ' -c "select count(*) filter (where status in ('pending', 'retrying')), coalesce(sum(attempts), 0)
                                             from webhook_deliveries where event_id like 'evt_mem\_%'")
"$JCMD" "$API_PID" GC.heap_info > "$WORK/heap.txt" 2>&1 || true
"$JCMD" "$API_PID" VM.flags > "$WORK/flags.txt" 2>&1 || true
MAX_HEAP=$(grep -o -- '-XX:MaxHeapSize=[0-9]*' "$WORK/flags.txt" | head -n 1 | awk -F= '{ printf "%.0f", $2 / 1048576 }')
echo
echo "memory: $BACKLOG deliveries inserted due (one INSERT, $INSERT_S s), to a port where nothing listens; after" \
  "$(since "$t") s $MEM_TRIED attempts made, $MEM_PENDING deliveries still pending or retrying"
echo "memory: API RSS $RSS_BEFORE MB before, $MEM_END MB at the end, peak $PEAK MB (target <= 512 MB: $(verdict "$PEAK" -le 512));" \
  "JVM max heap ${MAX_HEAP:-?} MB"
sed -n '2,3p' "$WORK/heap.txt" | sed 's/^/  /'
# G1 prints "committed"; Parallel GC (./quipu's) prints its generations' totals instead, and then this stays empty.
COMMITTED=$(grep -o 'committed [0-9]*K' "$WORK/heap.txt" | head -n 1 | awk '{ printf "%.0f", $2 / 1024 }' || true)
if [ "$PEAK" -gt 512 ]; then
  echo "  the heap alone has ${COMMITTED:-?} MB committed of a ${MAX_HEAP:-?} MB maximum (./quipu gives -Xmx128m unless" \
    "QUIPU_JAVA_OPTS sets another): the collector grows the heap up to its maximum while collections take time"
fi
# With QUIPU_JAVA_OPTS=-XX:NativeMemoryTracking=summary: where the JVM's memory goes (committed, MB).
if "$JCMD" "$API_PID" VM.native_memory summary scale=MB > "$WORK/nmt.txt" 2>&1 && grep -q '^Total' "$WORK/nmt.txt"; then
  grep -E '^(Total|-  *[A-Za-z ]+ \(reserved)' "$WORK/nmt.txt" | sed -E 's/^- *//; s/\(reserved=[0-9]+MB, //; s/\)$//' \
    | awk '{ print "  " $0 }' | head -n 30
fi

BASE=$(( (BASE1 + BASE2) / 2 ))
P99_MS=$(awk -v s="$P99" 'BEGIN { printf "%.0f", s * 1000 }')
HANG_PCT=$(awk -v h="$HANG" -v b="$BASE" 'BEGIN { printf "%.0f", 100 * h / b }')
echo
echo "receiver ceiling $CEILING req/s"
echo "delivery throughput $BASE deliveries/s (mean of the baselines $BASE1 and $BASE2; ratio $(ratio "$BASE" "$CEILING") of the" \
  "ceiling; target >= 500 deliveries/s: $(verdict "$BASE" -ge 500))"
echo "with one hanging endpoint: $HANG deliveries/s to the other 20 (ratio $(ratio "$HANG" "$BASE") of the baselines' mean;" \
  "target >= 0.80: $(verdict "$HANG_PCT" -ge 80))"
if [ "$BIG" = 1 ]; then
  echo "200,000 deliveries (10,000 events x 20): $BIG_RATE deliveries/s (ratio $(ratio "$BIG_RATE" "$CEILING") of the ceiling)"
fi
echo "retry punctuality p50 $P50 s, p99 $P99 s, max $PMAX s over $RETRIES retries (target p99 <= 1 s: $(verdict "$P99_MS" -le 1000))"
echo "RSS with $BACKLOG deliveries pending: peak $PEAK MB (target <= 512 MB: $(verdict "$PEAK" -le 512))"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
