#!/usr/bin/env bash
# The multi-instance setup of README ("Several instances"), run for as long as asked, with what it measured printed:
# Debian's PostgreSQL server as the external database (installed when missing), two API instances with their delivery
# workers off, one `./quipu deliver` worker, and nginx round-robin in front.
#
#   ./mvnw -q -B -DskipTests package && dev/cluster.sh [SECONDS]
#
#   SECONDS (default 60): how long each load runs. Environment: EVENTS (the webhook backlog of the worker-crash part,
#   default 10000), CONNECTIONS (wrk -c, default 32), KEEP=1 keeps the work folder (logs, nginx's configuration).
#
# Parts, one after another:
#   1. Setup: installs postgresql, nginx, wrk and curl with apt-get when one is missing (as root); creates a throwaway
#      PostgreSQL cluster in the work folder (initdb, as the postgres user, port 18790, loopback only) with a role
#      quipu that owns a database quipu (README: the privileges); starts instances A and B (QUIPU_WEBHOOKS_WORKER=false,
#      the same QUIPU_DATA_DIR for the signing key and the admin token), the worker, and nginx on port 18795
#      (upstream A and B, round-robin, keep-alive, a failed connection retried on the other: proxy_next_upstream).
#   2. Throughput: SECONDS/2 of GET /v1/ubigeos/150101 on nginx (two instances) and as long on A alone, alternated in
#      two turns each; prints both and their ratio. On 2 cores the instances, nginx and wrk share the CPU: a figure
#      to report, not a target.
#   3. Rolling restart under load: wrk on nginx for SECONDS while A gets SIGTERM, starts again and is ready, then B;
#      prints wrk's non-2xx answers and socket errors (the target: 0 failed requests).
#   4. Worker crash: an endpoint on a local receiver (python3), EVENTS key.created events written in one transaction,
#      the worker killed with kill -9 once a fifth are delivered, started again; waits until every delivery is
#      delivered; prints deliveries, attempts, the receiver's requests and distinct event ids (the target: none lost,
#      no attempt sent twice).
# Everything started is stopped at the end. Ports 18790-18797.
set -euo pipefail

SECONDS_RUN=${1:-60}
EVENTS=${EVENTS:-10000}
CONNECTIONS=${CONNECTIONS:-32}
KEEP=${KEEP:-0}
REPO=$(cd "$(dirname "$0")/.." && pwd)
PG_PORT=18790 A_PORT=18791 A_ADMIN=18792 B_PORT=18793 B_ADMIN=18794 NGINX_PORT=18795 RECEIVER_PORT=18796
EMAIL=cluster@quipu.test

missing=""
command -v pg_ctlcluster >/dev/null 2>&1 || missing="$missing postgresql"
command -v nginx >/dev/null 2>&1 || missing="$missing nginx"
command -v wrk >/dev/null 2>&1 || missing="$missing wrk"
command -v curl >/dev/null 2>&1 || missing="$missing curl"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
if [ -n "$missing" ]; then
  echo "cluster: installing$missing" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
[ -f "$REPO/api/target/quipu-api.jar" ] || { echo "cluster: build first: ./mvnw -q -B -DskipTests package" >&2; exit 2; }
cd "$REPO"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quipu-cluster.XXXXXX")
chmod 755 "$WORK"
mkdir -p "$WORK/nginx/logs"
PIDS_A="" PIDS_B="" WORKER_PID="" NGINX_PID="" RECEIVER_PID=""
PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
# Each instance starts with the AOT cache, trained before the first if this build has none (not in the background
# of the cluster).
export QUIPU_AOT=${QUIPU_AOT:-wait}
# nginx (open source) checks no /readyz: it sends a share of the traffic to any instance whose port accepts, so a
# restarted instance keeps its port closed until warm, and nginx retries a refused connection on the other one.
export QUIPU_WARM_UP_HOLDS_PORT=${QUIPU_WARM_UP_HOLDS_PORT:-true}
export DATABASE_URL="jdbc:postgresql://127.0.0.1:$PG_PORT/quipu?sslmode=disable" DATABASE_USER=quipu \
  DATABASE_PASSWORD="$PASSWORD" QUIPU_DATA_DIR="$WORK/data" QUIPU_WEBHOOKS_WORKER=false \
  QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true BCRP_BASE_URL="http://127.0.0.1:9" QUIPU_SHUTDOWN_DRAIN_DELAY=3s \
  QUIPU_WARM_UP=${QUIPU_WARM_UP:-10s}
unset QUIPU_ENV QUIPU_LOG_FORMAT

as_postgres() { runuser -u postgres -- "$@"; }
stop_pid() { [ -n "$1" ] && { kill -TERM "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }; return 0; }
cleanup() {
  local rc=$?
  [ "$rc" != 0 ] && for log in a.log b.log worker.log nginx/logs/error.log pg/server.log; do
    [ -s "$WORK/$log" ] && { echo "cluster: failed ($rc); the end of $log:" >&2; tail -n 15 "$WORK/$log" >&2; }
  done
  [ -n "$NGINX_PID" ] && { kill -QUIT "$NGINX_PID" 2>/dev/null || true; }
  stop_pid "$RECEIVER_PID"; stop_pid "$WORKER_PID"; stop_pid "$PIDS_A"; stop_pid "$PIDS_B"
  [ -d "$WORK/pg" ] && as_postgres "$PG_BIN/pg_ctl" -D "$WORK/pg" -m fast stop >/dev/null 2>&1 || true
  if [ "$KEEP" = 1 ]; then echo "cluster: work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

echo "== setup: PostgreSQL $("$PG_BIN/postgres" --version | awk '{print $3}') on $PG_PORT, two instances, a worker, nginx"
mkdir "$WORK/pg" && chown postgres "$WORK/pg"
( umask 077; echo "$PASSWORD" > "$WORK/pg.pw" ) && chown postgres "$WORK/pg.pw"
as_postgres "$PG_BIN/initdb" -D "$WORK/pg" -A scram-sha-256 -U postgres --pwfile="$WORK/pg.pw" >/dev/null
rm -f "$WORK/pg.pw"
as_postgres "$PG_BIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg/server.log" -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k /tmp" \
  -w start >/dev/null
psql_admin() { PGPASSWORD="$PASSWORD" psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $PG_PORT -U postgres "$@"; }
psql_quipu() { PGPASSWORD="$PASSWORD" psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p $PG_PORT -U quipu quipu "$@"; }
# README's privileges: a role that may log in and owns its database (the migrations create its tables); no superuser.
psql_admin postgres -c "create role quipu login password '$PASSWORD'" -c "create database quipu owner quipu"

# $1 name, $2 port, $3 admin port; sets the PID variable of that name.
start_api() {
  QUIPU_PORT=$2 QUIPU_ADMIN_PORT=$3 ./quipu server config.yml >> "$WORK/$1.log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 1800); do
    curl -fs -o /dev/null "http://127.0.0.1:$2/readyz" 2>/dev/null && { eval "PIDS_$1=$pid"; return 0; }
    kill -0 "$pid" 2>/dev/null || { echo "cluster: instance $1 did not start" >&2; exit 1; }
    sleep 0.1
  done
  echo "cluster: instance $1 was not ready within 180 s" >&2; exit 1
}
start_worker() {
  QUIPU_WEBHOOKS_WORKER=true ./quipu deliver config.yml >> "$WORK/worker.log" 2>&1 &
  WORKER_PID=$!
}
start_api A $A_PORT $A_ADMIN
start_api B $B_PORT $B_ADMIN
start_worker
cat > "$WORK/nginx/nginx.conf" <<NGINX
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  upstream quipu {
    server 127.0.0.1:$A_PORT max_fails=0;
    server 127.0.0.1:$B_PORT max_fails=0;
    keepalive 64;
  }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location / {
      proxy_pass http://quipu;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Request-Id \$request_id;
      proxy_next_upstream error timeout http_502 http_503 non_idempotent;
      proxy_next_upstream_tries 2;
    }
  }
}
NGINX
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' &
NGINX_PID=$!
for _ in $(seq 1 50); do curl -fs -o /dev/null "http://127.0.0.1:$NGINX_PORT/livez" && break; sleep 0.1; done

KEY=$(QUIPU_PORT=$A_PORT QUIPU_ADMIN_PORT=$A_ADMIN ./quipu create-key --email $EMAIL \
  --scopes ubigeos:read,webhooks:manage config.yml 2>/dev/null | tail -n 1)
QUIPU_ADMIN_PORT=$A_ADMIN ./quipu task set-plan email=$EMAIL plan=enterprise monthlyQuota=1000000000000 \
  rateLimitRpm=2000000000 config.yml > /dev/null
echo "wrk.headers[\"Authorization\"] = \"Bearer $KEY\"" > "$WORK/key.lua"
URL_PATH=/v1/ubigeos/150101
curl -fsS -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$NGINX_PORT$URL_PATH"

# $1 port, $2 seconds; prints "requests/s non2xx socketerrors".
load() {
  local out
  out=$(wrk -t2 -c"$CONNECTIONS" -d"$2s" --timeout 10s -s "$WORK/key.lua" "http://127.0.0.1:$1$URL_PATH")
  echo "$out" > "$WORK/wrk-last.txt"
  local rps non2xx errors
  rps=$(echo "$out" | awk '/Requests\/sec/ { print $2 }')
  non2xx=$(echo "$out" | awk '/Non-2xx or 3xx/ { print $NF }')
  errors=$(echo "$out" | awk '/Socket errors/ { gsub(",", ""); print $4 + $6 + $8 + $10 }')
  echo "$rps ${non2xx:-0} ${errors:-0}"
}

echo "== throughput: GET $URL_PATH, two instances behind nginx against A alone (turns of $((SECONDS_RUN / 4)) s)"
load $NGINX_PORT 10 >/dev/null; load $A_PORT 10 >/dev/null
TWO=0 ONE=0
for turn in 1 2; do
  two=$(load $NGINX_PORT $((SECONDS_RUN / 4)) | cut -d' ' -f1)
  one=$(load $A_PORT $((SECONDS_RUN / 4)) | cut -d' ' -f1)
  echo "turn $turn: nginx + A + B $two req/s; A alone $one req/s"
  TWO=$(awk -v s="$TWO" -v x="$two" 'BEGIN { print s + x / 2 }'); ONE=$(awk -v s="$ONE" -v x="$one" 'BEGIN { print s + x / 2 }')
done
echo "two instances behind nginx: $(printf '%.0f' "$TWO") req/s; one alone: $(printf '%.0f' "$ONE") req/s;" \
  "ratio $(awk -v a="$TWO" -v b="$ONE" 'BEGIN { printf "%.2f", a / b }') (2 cores shared by all: reported, not a target)"

echo "== rolling restart under load: SIGTERM A, start it again, then B, while nginx takes $SECONDS_RUN s of load"
load $NGINX_PORT "$SECONDS_RUN" > "$WORK/rolling.txt" &
LOAD_PID=$!
sleep 3
for name in A B; do
  eval "pid=\$PIDS_$name"
  t0=$(date +%s.%N)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  stopped=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  if [ $name = A ]; then start_api A $A_PORT $A_ADMIN; else start_api B $B_PORT $B_ADMIN; fi
  echo "instance $name: stopped in $stopped s (exit after drain), ready again $(awk -v a="$t0" -v b="$(date +%s.%N)" \
    'BEGIN { printf "%.1f", b - a }') s after SIGTERM"
done
wait $LOAD_PID
read -r rps non2xx errors < "$WORK/rolling.txt"
echo "during the rolling restart: $rps req/s through nginx; non-2xx answers: $non2xx; socket errors: $errors" \
  "(target: 0 failed requests) $([ "$non2xx" = 0 ] && [ "$errors" = 0 ] && echo PASS || echo FAIL)"

echo "== worker crash: $EVENTS events, kill -9 of the worker under the backlog, then a new worker"
cat > "$WORK/receiver.py" <<'PY'
import sys, threading
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
lock = threading.Lock()
out = open(sys.argv[2], "a", buffering=1)
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            out.write(self.headers.get("webhook-id", "") + " " + self.headers.get("x-quipu-delivery", "") + "\n")
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
class Server(ThreadingHTTPServer):
    def handle_error(self, request, address): pass   # the killed worker's connections, reset
Server(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
python3 "$WORK/receiver.py" $RECEIVER_PORT "$WORK/received.txt" &
RECEIVER_PID=$!
sleep 0.5
ENDPOINT=$(curl -fsS -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
  -d "{\"url\":\"http://127.0.0.1:$RECEIVER_PORT/hook\",\"events\":[\"key.created\"]}" \
  "http://127.0.0.1:$NGINX_PORT/v1/webhooks" | sed 's/.*"id":"\([^"]*\)".*/\1/')
ACCOUNT=$(psql_quipu -c "select account_id from webhook_endpoints where id = '$ENDPOINT'")
psql_quipu -c "insert into events (id, type, account_id, data, created_at)
  select 'evt_cluster' || lpad(n::text, 8, '0'), 'key.created', '$ACCOUNT',
         jsonb_build_object('id', 'key_cluster_' || n, 'name', 'k' || n), now()
    from generate_series(1, $EVENTS) n"
delivered() { psql_quipu -c "select count(*) from webhook_deliveries where endpoint_id = '$ENDPOINT' and status = 'delivered'"; }
for _ in $(seq 1 600); do [ "$(delivered)" -ge $((EVENTS / 5)) ] && break; sleep 0.1; done
kill -9 "$WORKER_PID"; wait "$WORKER_PID" 2>/dev/null || true
echo "killed the worker (kill -9) with $(delivered) of $EVENTS delivered"
start_worker
t0=$(date +%s)
until [ "$(delivered)" -ge "$EVENTS" ]; do
  [ $(( $(date +%s) - t0 )) -gt 600 ] && { echo "cluster: not all delivered within 10 min" >&2; exit 1; }
  sleep 1
done
sleep 1
DELIVERIES=$(psql_quipu -c "select count(*) from webhook_deliveries where endpoint_id = '$ENDPOINT'")
ATTEMPTS=$(psql_quipu -c "select count(*) from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id
  where d.endpoint_id = '$ENDPOINT'")
REQUESTS=$(wc -l < "$WORK/received.txt")
DISTINCT_EVENTS=$(cut -d' ' -f1 "$WORK/received.txt" | sort -u | wc -l)
DISTINCT_ATTEMPTS=$(cut -d' ' -f2 "$WORK/received.txt" | sort -u | wc -l)
echo "deliveries $DELIVERIES, all delivered, in $(( $(date +%s) - t0 )) s after the restart; attempts recorded" \
  "$ATTEMPTS; receiver: $REQUESTS requests, $DISTINCT_EVENTS distinct events, $DISTINCT_ATTEMPTS distinct attempt ids"
echo "lost: $((EVENTS - DISTINCT_EVENTS)); attempts sent twice (same x-quipu-delivery): $((REQUESTS - DISTINCT_ATTEMPTS));" \
  "events received more than once (an attempt in flight at the kill, sent again once its lease ran out):" \
  "$((REQUESTS - DISTINCT_EVENTS))"
