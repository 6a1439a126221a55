#!/usr/bin/env bash
# Benchmarks the watchlists: what the ruc.changed fan-out adds to a padrón publication, how fast its events reach a
# receiver, a PUT of a 100,000-RUC list, and a page of 1,000 changes; with the projection of the first two to the real
# padrón's 18.3 M rows.
#
#   ./mvnw -q -B -DskipTests package && bench/watchlists.sh [ROWS]      (ROWS defaults to 2,000,000)
#
#   Environment: ACCOUNTS (default 1000) watching PER_ACCOUNT RUCs each (default 1000: 1,000,000 watched RUCs);
#   CHANGE_RATE (day 2's share of changed records, default 0.01); KEEP=1 keeps the work folder (logs).
#
# In a temporary folder (QUIPU_DATA_DIR), with the embedded PostgreSQL the API starts (webhooks may go to 127.0.0.1):
#   1. generates day 1 (ROWS lines, seed 42) and day 2 from it (CHANGE_RATE changed, seed 43), as padron-load.sh;
#      starts nginx on one port of 127.0.0.1, answering 204 to every POST: the receiver;
#   2. loads day 1 (the first load records nothing), then day 2 with nobody watching: the baseline publication (the
#      job's own "published in N ms", one transaction: compare, log, fan-out, apply);
#   3. ACCOUNTS accounts (written with psql: what is measured is the load, not the signups), each on the enterprise
#      plan with one active endpoint on the receiver subscribed to ruc.changed and one list of PER_ACCOUNT RUCs of the
#      registry (distinct across accounts, picked by md5 order);
#   4. PUT /v1/watchlists/grande of 100,000 RUCs of the registry (a new list), then two replacements where half of
#      the RUCs change, with a key of the bench account: curl's time_total each (target <= 2 s);
#   5. loads day 1 again (the same share of changes, reversed) with the watchers in place: its publication time
#      against the baseline's (target: the fan-out adds <= 20 %), the fan-out statement's own time (from its log line)
#      and how many events it wrote; then waits until every ruc.changed delivery is delivered and reads the rate
#      (deliveries / (last delivery's attempt - first delivery's creation), from webhook_deliveries; target >= 1,000/s);
#   6. GET /v1/watchlists/grande/changes?limit=1000&since=… with wrk -t1 -c1 for 15 s after 3 s of warm-up
#      (--latency; target p99 <= 50 ms); the page holds the list's changes of step 5 (about 1 % of 100,000);
#   7. prints the figures, PASS or FAIL against their targets, and the projections to 18.3 M rows (linear in the
#      changes of a load: the fan-out statement and the deliveries).
# Exits non-zero when a load fails or the deliveries do not all arrive in 10 minutes; a missed target is printed, not
# an exit status. Needs psql, curl, nginx, wrk and awk. Ports 18490 (API), 18491 (admin), 18492 (PostgreSQL), 18493
# (the receiver). Everything started is stopped at the end. On 2 cores, 2 M rows take about 8 minutes.
set -euo pipefail

ROWS=${1:-2000000}
ACCOUNTS=${ACCOUNTS:-1000}
PER_ACCOUNT=${PER_ACCOUNT:-1000}
CHANGE_RATE=${CHANGE_RATE:-0.01}
KEEP=${KEEP:-0}
BIG_LIST=100000
REAL_ROWS=18300000
REPO=$(cd "$(dirname "$0")/.." && pwd)
API_PORT=18490
ADMIN_PORT=18491
DB_PORT=18492
RECEIVER_PORT=18493

. "$REPO/bench/common.sh"
bench_require_tools psql curl nginx wrk awk
bench_java
API_JAR="$REPO/api/target/quipu-api.jar"
ETL_JAR="$REPO/etl/target/quipu-etl.jar"
bench_require_jars "$API_JAR" "$ETL_JAR"
bench_require_free_ports "$API_PORT" "$ADMIN_PORT" "$DB_PORT" "$RECEIVER_PORT"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quipu-bench-watchlists.XXXXXX")
export QUIPU_DATA_DIR="$WORK/data" QUIPU_PORT=$API_PORT QUIPU_ADMIN_PORT=$ADMIN_PORT QUIPU_EMBEDDED_DB_PORT=$DB_PORT
export QUIPU_WARM_UP=0s BCRP_BASE_URL=http://127.0.0.1:9 QUIPU_WEBHOOKS_ALLOW_PRIVATE_NETWORKS=true
unset DATABASE_URL DATABASE_USER DATABASE_PASSWORD QUIPU_SEARCH_ENABLED
API_PID=""
NGINX_PID=""

cleanup() {
  local rc=$?
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  if [ -n "$API_PID" ]; then
    kill "$API_PID" 2>/dev/null || true
    wait "$API_PID" 2>/dev/null || true
  fi
  bench_stop_leftover_server
  if [ "$KEEP" = 1 ] || [ "$rc" != 0 ]; then echo "bench: work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

cd "$REPO"
echo "bench: $ROWS rows, $ACCOUNTS accounts x $PER_ACCOUNT watched RUCs, change rate $CHANGE_RATE, $(nproc) CPUs," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)"

# --- 1. Day 1, day 2, the receiver
t=$(now)
"$JAVA" -cp "$ETL_JAR" pe.quipu.etl.generate.PadronGenerator --rows "$ROWS" --out "$WORK/day1.zip" --seed 42
"$JAVA" -cp "$ETL_JAR" pe.quipu.etl.generate.PadronGenerator --changes-from "$WORK/day1.zip" \
  --change-rate "$CHANGE_RATE" --out "$WORK/day2.zip" --seed 43 > "$WORK/day2.txt"
echo "generated day 1 and day 2 in $(since "$t") s: $(cat "$WORK/day2.txt")"

mkdir -p "$WORK/nginx"
{
  [ "$(id -u)" = 0 ] && echo "user root;"
  echo "worker_processes 1;"
  echo "pid $WORK/nginx/nginx.pid;"
  echo "error_log $WORK/nginx/error.log;"
  echo "events { worker_connections 4096; }"
  echo "http {"
  echo "  access_log off;"
  for d in client_body proxy fastcgi uwsgi scgi; do echo "  ${d}_temp_path $WORK/nginx/$d;"; done
  echo "  server { listen 127.0.0.1:$RECEIVER_PORT; location / { return 204; } }"
  echo "}"
} > "$WORK/nginx/nginx.conf"
nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -g 'daemon off;' 2> "$WORK/nginx/stderr.log" &
NGINX_PID=$!

bench_start_api
WKEY=$("$JAVA" -jar "$API_JAR" create-key --email bench@quipu.test --scopes watchlists:manage config.yml 2>/dev/null \
  | tail -n 1)

# One padron run; $1: name, $2: the file. Sets PUBLISHED_MS (the job's "published in N ms") and FANOUT_MS, EVENTS
# (its "wrote N ruc.changed events … in M ms").
etl_load() {
  local name=$1 file=$2 rc=0
  sql -c "checkpoint"
  "$JAVA" -Xmx256m -jar "$ETL_JAR" padron --file "$file" config.yml > "$WORK/etl-$name.out" 2> "$WORK/etl-$name.log" \
    || rc=$?
  if [ "$rc" != 0 ]; then
    echo "bench: the $name load failed (exit $rc):" >&2; cat "$WORK/etl-$name.out" >&2
    tail -n 20 "$WORK/etl-$name.log" >&2; exit 1
  fi
  PUBLISHED_MS=$(sed -n 's/.*published in \([0-9]*\) ms.*/\1/p' "$WORK/etl-$name.log" | tail -n 1)
  EVENTS=$(sed -n 's/.*wrote \([0-9]*\) ruc.changed events.*/\1/p' "$WORK/etl-$name.log" | tail -n 1)
  FANOUT_MS=$(sed -n 's/.*ruc.changed events for the watched RUCs among them in \([0-9]*\) ms.*/\1/p' \
    "$WORK/etl-$name.log" | tail -n 1)
  echo "$name: $(cat "$WORK/etl-$name.out"); published in $PUBLISHED_MS ms, fan-out ${FANOUT_MS:-?} ms," \
    "${EVENTS:-?} ruc.changed events"
}

# --- 2. Day 1, then day 2 with nobody watching: the baseline
etl_load day1 "$WORK/day1.zip"
etl_load baseline "$WORK/day2.zip"
BASE_MS=$PUBLISHED_MS
BASE_FANOUT_MS=$FANOUT_MS

# --- 3. The watchers
t=$(now)
sql <<EOF
begin;
create temporary table bench_watchers as
  select gen_random_uuid() as id, n from generate_series(1, $ACCOUNTS) n;
insert into accounts (id, email, email_identity, created_at)
  select id, 'watcher-' || n || '@bench.quipu', 'watcher-' || n || '@bench.quipu', now() from bench_watchers;
insert into subscriptions (id, account_id, plan, started_at, renews_at)
  select 'sub_bench_' || n, id, 'enterprise', now(), now() + interval '30 days' from bench_watchers;
insert into webhook_endpoints (id, account_id, url, host, port, pinned_address, active, secret, created_at, updated_at)
  select id, id, 'http://127.0.0.1:$RECEIVER_PORT/hooks/' || n, '127.0.0.1', $RECEIVER_PORT, '127.0.0.1', true,
         'whsec_' || encode(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()), 'base64'), now(), now()
    from bench_watchers;
insert into webhook_subscriptions (endpoint_id, event_type, since_seq)
  select id, 'ruc.changed', (select coalesce(max(seq), 0) from events) from bench_watchers;
insert into watchlists (account_id, name, rucs, created_at, updated_at)
  select id, 'proveedores', $PER_ACCOUNT, now() - interval '1 day', now() - interval '1 day' from bench_watchers;
insert into watchlist_rucs (watchlist_id, ruc, account_id, added_at)
  select l.id, p.ruc, l.account_id, now() - interval '1 day'
    from (select ruc, (row_number() over (order by md5(ruc)) - 1) / $PER_ACCOUNT + 1 as n
            from ruc_registry order by md5(ruc) limit $((ACCOUNTS * PER_ACCOUNT))) p
    join bench_watchers w on w.n = p.n
    join watchlists l on l.account_id = w.id;
commit;
analyze watchlists; analyze watchlist_rucs; analyze webhook_endpoints; analyze webhook_subscriptions;
EOF
WATCHED=$(sql -c "select count(*) from watchlist_rucs")
echo "wrote $ACCOUNTS watching accounts, $WATCHED watched RUCs, in $(since "$t") s"

# --- 4. PUT of a 100,000-RUC list, then two replacements where half of it changes
rucs_json() { # $1: offset into the registry in md5 order, from the end, so that none is watched by the accounts above
  sql -c "select '{\"rucs\":[' || string_agg('\"' || ruc || '\"', ',') || ']}' from (select ruc from ruc_registry
          order by md5(ruc) desc offset $1 limit $BIG_LIST) r"
}
rucs_json 0 > "$WORK/put1.json"
rucs_json $((BIG_LIST / 2)) > "$WORK/put2.json"
PUT_TIMES=()
for body in put1 put2 put1; do
  read -r code secs < <(curl -s -o "$WORK/$body.out" -w '%{http_code} %{time_total}\n' -X PUT \
    "http://127.0.0.1:$API_PORT/v1/watchlists/grande" -H "Authorization: Bearer $WKEY" \
    -H 'Content-Type: application/json' --data-binary "@$WORK/$body.json")
  [ "$code" = 200 ] || [ "$code" = 201 ] || { echo "bench: PUT answered $code: $(head -c 300 "$WORK/$body.out")" >&2; exit 1; }
  PUT_TIMES+=("$secs")
  echo "PUT /v1/watchlists/grande ($BIG_LIST RUCs, $(stat -c %s "$WORK/$body.json") bytes): $code in $secs s"
done
PUT_MAX=$(printf '%s\n' "${PUT_TIMES[@]}" | sort -g | tail -n 1)

# --- 5. Day 1 again, watched
SINCE=$(sql -c "select to_char(now() at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')")
etl_load watched "$WORK/day1.zip"
WATCHED_MS=$PUBLISHED_MS
[ -n "$EVENTS" ] && [ "$EVENTS" -gt 0 ] || { echo "bench: the watched load wrote no ruc.changed event" >&2; exit 1; }
DELIVERIES=$(sql -c "select count(*) from webhook_subscriptions where event_type = 'ruc.changed'")
t=$(now)
while :; do
  DONE=$(sql -c "select count(*) from webhook_deliveries where event_type = 'ruc.changed' and status = 'delivered'")
  [ "$DONE" -ge "$EVENTS" ] && break
  awk -v s="$(since "$t")" 'BEGIN { exit !(s > 600) }' && {
    echo "bench: $DONE of $EVENTS deliveries delivered after 10 minutes" >&2; exit 1; }
  sleep 1
done
read -r DELIVERED DELIVERY_S < <(sql -F ' ' -c "select count(*), extract(epoch from max(last_attempt_at) - min(created_at))
  from webhook_deliveries where event_type = 'ruc.changed'")
RATE=$(awk -v n="$DELIVERED" -v s="$DELIVERY_S" 'BEGIN { printf "%.0f", n / s }')
echo "delivered $DELIVERED ruc.changed events to $DELIVERIES endpoints in $DELIVERY_S s: $RATE/s"

# --- 6. A page of 1,000 changes
CHANGES_URL="http://127.0.0.1:$API_PORT/v1/watchlists/grande/changes?limit=1000&since=$SINCE"
ITEMS=$(curl -fs "$CHANGES_URL" -H "Authorization: Bearer $WKEY" | grep -o '"kind"' | wc -l)
wrk -t1 -c1 -d3s -H "Authorization: Bearer $WKEY" "$CHANGES_URL" > /dev/null
wrk -t1 -c1 -d15s --latency -H "Authorization: Bearer $WKEY" "$CHANGES_URL" > "$WORK/changes-wrk.txt"
P99_MS=$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) }
  else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } printf "%.1f", v }' "$WORK/changes-wrk.txt")
P50_MS=$(awk '$1 == "50%" { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 } else if (v ~ /ms$/) { sub(/ms$/, "", v) }
  else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 } printf "%.1f", v }' "$WORK/changes-wrk.txt")
NON2XX=$(sed -n 's/.*Non-2xx or 3xx responses: \([0-9]*\).*/\1/p' "$WORK/changes-wrk.txt")
echo "changes page: $ITEMS items; p50 $P50_MS ms, p99 $P99_MS ms${NON2XX:+, $NON2XX non-2xx answers}"

# --- 7. Figures
verdict() { awk -v v="$1" -v op="$2" -v t="$3" 'BEGIN { ok = (op == "<=") ? v <= t : v >= t; print ok ? "PASS" : "FAIL" }'; }
ADDED=$(awk -v w="$WATCHED_MS" -v b="$BASE_MS" 'BEGIN { printf "%.1f", 100 * (w - b) / b }')
SCALE=$(awk -v r="$REAL_ROWS" -v n="$ROWS" 'BEGIN { printf "%.2f", r / n }')
echo
echo "== watchlists, $ROWS rows, $WATCHED watched RUCs over $ACCOUNTS accounts =="
echo "publication of a $CHANGE_RATE reload: $BASE_MS ms unwatched (its fan-out ${BASE_FANOUT_MS:-?} ms), $WATCHED_MS ms watched" \
  "(fan-out $FANOUT_MS ms, $EVENTS events): ratio $(ratio "$WATCHED_MS" "$BASE_MS"), +$ADDED % (target <= +20 %)" \
  "$(verdict "$ADDED" "<=" 20)"
echo "delivery: $RATE events/s to one local receiver, $ACCOUNTS endpoints (target >= 1000/s) $(verdict "$RATE" ">=" 1000)"
echo "PUT of $BIG_LIST RUCs: ${PUT_TIMES[*]} s, worst $PUT_MAX s (target <= 2 s) $(verdict "$PUT_MAX" "<=" 2)"
echo "changes page of 1,000 ($ITEMS items): p99 $P99_MS ms (target <= 50 ms) $(verdict "$P99_MS" "<=" 50)"
echo "projection to $REAL_ROWS rows (x$SCALE, the same share changed and watched):" \
  "fan-out $(awk -v f="$FANOUT_MS" -v s="$SCALE" 'BEGIN { printf "%.1f", f * s / 1000 }') s for" \
  "$(awk -v e="$EVENTS" -v s="$SCALE" 'BEGIN { printf "%.0f", e * s }') events;" \
  "their deliveries at $RATE/s: $(awk -v e="$EVENTS" -v s="$SCALE" -v r="$RATE" 'BEGIN { printf "%.0f", e * s / r }') s"
