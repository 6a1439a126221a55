#!/usr/bin/env bash
# Benchmarks the padron job against PostgreSQL's own bulk load, on a generated padrón and its next day: the first
# load, a reload with 1 % of the records changed, an unchanged reload, lookups during a 1 % reload, the change log's
# size per change and the ETL's heap, with the projection of each figure to the real padrón's 18.3 M rows.
#
#   ./mvnw -q -B -DskipTests package && bench/padron-load.sh [ROWS]      (ROWS defaults to 2,000,000; 5000000 too)
#
#   Environment: CHANGE_RATE (the share of records changed in day 2, default 0.01); LOOKUP_CONNECTIONS and
#   LOOKUP_DELAY_MS (wrk's connections during the reload, each waiting that long between its requests: default 4
#   and 10, a few hundred lookups a second, a steady reader that leaves the load most of the two cores); KEEP=1 keeps
#   the work folder (logs, GC logs, wrk outputs).
#
# In a temporary folder (QUIPU_DATA_DIR), with the embedded PostgreSQL that the API starts (the registry empty):
#   1. generates day 1, ROWS lines in SUNAT's format, zipped (./quipu generate-padron, seed 42), and day 2 from it
#      (--changes-from day 1 --change-rate CHANGE_RATE, seed 43: estado, condición, address, name, added and
#      removed, in the generator's mix; it prints the count of each kind);
#   2. the floor, all by psql on the same server: day 1's rows as clean CSV with their normalised name
#      (quipu_search_name, computed by PostgreSQL beforehand: neither is timed), then, in one transaction (as the
#      padron job builds its table, so that with the embedded server's wal_level=minimal neither writes WAL for it),
#      CREATE TABLE, `\copy`, the primary key and the trigram GIN index on the normalised name (gin_trgm_ops, as
#      changeset 016's ruc_registry_search), maintenance_work_mem 512MB as the job's publication sets it; each step
#      timed by psql (\timing), the whole from outside. `\copy` + primary key alone is the second baseline;
#   3. the first load (search on): `./quipu etl padron --file day1.zip config.yml`, as an operator runs it (the
#      launcher's -Xmx256m, and the ETL's AOT cache, which ./quipu trains once per build: here before the floor,
#      untimed, QUIPU_AOT=wait with a load of the districts), JVM start included, the API up and idle, as every load
#      below;
#   4. the reload with CHANGE_RATE changed: day 2; checks that exactly the changed records' actualizado moved and
#      that exactly the added and removed RUCs came and went; reads the change log's size (ruc_changes: rows,
#      pg_total_relation_size, bytes per row);
#   5. the unchanged reload: day 2 again; no actualizado may move, no record go missing, no change be recorded;
#   6. lookups during a reload with CHANGE_RATE changed (day 1 again: its difference from day 2 is the same changes
#      reversed): wrk (-t1 -cLOOKUP_CONNECTIONS, a delay of LOOKUP_DELAY_MS between each connection's requests,
#      --latency, --timeout 10s) on GET /v1/ruc/{ruc} over 1,000 RUCs present on both days, half of them among the
#      records that change, after 10 s of warm-up; from the ETL's start to its end, in two parts when its log shows
#      where staging ends ("staged N records", as the job logs it today): while it stages, while it publishes.
#      Timed too, but not compared with anything: it shares the cores with the readers;
#   7. prints the figures, their targets, PASS or FAIL, and their projection to 18.3 M rows.
# Every ETL run has -Xmx256m (QUIPU_JAVA_OPTS=-Xmx256m, the same as ./quipu's own) and a GC log (through
# JAVA_TOOL_OPTIONS, on which the AOT cache's name does not depend): the heap figures are whether every run completed
# with it, and the most its log shows left after a collection (what the job holds; G1 lets the heap fill up to -Xmx before it collects, so
# what was in use before a collection says little). The job's own time (its summary line's "in N s", less the JVM's
# and Spring's start) is printed beside each end-to-end time, with its ratios. Exits non-zero when a load fails or a correctness check fails (rows, actualizado, lookup
# errors); a missed performance target is printed, not an exit status. Nothing here depends on how the job
# publishes: the checks are the contract's (what a load changes, what it keeps), and the job's log lines are printed,
# not relied on, but for the split of the lookups above.
# Needs psql, curl, unzip, iconv, awk and wrk (Debian: apt-get install postgresql-client curl unzip wrk). Ports 18480
# (API), 18481 (admin), 18482 (embedded PostgreSQL). Everything started is stopped at the end. On 2 cores, 2 M rows
# take about 5 minutes, 5 M about 12.
set -euo pipefail

ROWS=${1:-2000000}
CHANGE_RATE=${CHANGE_RATE:-0.01}
LOOKUP_CONNECTIONS=${LOOKUP_CONNECTIONS:-4}
LOOKUP_DELAY_MS=${LOOKUP_DELAY_MS:-10}
KEEP=${KEEP:-0}
ETL_HEAP=256m
REAL_ROWS=18300000
REPO=$(cd "$(dirname "$0")/.." && pwd)
API_PORT=18480
ADMIN_PORT=18481
DB_PORT=18482

. "$REPO/bench/common.sh"
bench_require_tools psql curl unzip iconv awk wrk
bench_java
API_JAR="$REPO/api/target/quipu-api.jar"
ETL_JAR="$REPO/etl/target/quipu-etl.jar"
bench_require_jars "$API_JAR" "$ETL_JAR"
bench_require_free_ports "$API_PORT" "$ADMIN_PORT" "$DB_PORT"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quipu-bench.XXXXXX")
mkdir -p "$WORK/wrk"
export QUIPU_DATA_DIR="$WORK/data" QUIPU_PORT=$API_PORT QUIPU_ADMIN_PORT=$ADMIN_PORT QUIPU_EMBEDDED_DB_PORT=$DB_PORT
# No warm-up traffic of the API's own and no call to BCRP (nothing listens on port 9) beside the measurements.
export QUIPU_WARM_UP=0s BCRP_BASE_URL=http://127.0.0.1:9
unset DATABASE_URL DATABASE_USER DATABASE_PASSWORD QUIPU_SEARCH_ENABLED
API_PID=""
ETL_PID=""
WRK_PID=""

cleanup() {
  local rc=$?
  [ -n "$WRK_PID" ] && kill -INT "$WRK_PID" 2>/dev/null || true
  [ -n "$ETL_PID" ] && kill "$ETL_PID" 2>/dev/null || true
  if [ -n "$API_PID" ]; then
    kill "$API_PID" 2>/dev/null || true
    wait "$API_PID" 2>/dev/null || true
  fi
  bench_stop_leftover_server
  if [ "$KEEP" = 1 ] || [ "$rc" != 0 ]; then echo "bench: work folder kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

cd "$REPO"
echo "bench: $ROWS rows, change rate $CHANGE_RATE, work folder $WORK, $(nproc) CPUs, load average" \
  "$(cut -d' ' -f1-3 /proc/loadavg), $("$JAVA" -version 2>&1 | head -n 1)"

# --- 1. Day 1 and day 2
t=$(now)
"$JAVA" -cp "$ETL_JAR" pe.quipu.etl.generate.PadronGenerator --rows "$ROWS" --out "$WORK/day1.zip" --seed 42
echo "generated day 1 ($(du -h "$WORK/day1.zip" | cut -f1) zip) in $(since "$t") s"
t=$(now)
"$JAVA" -cp "$ETL_JAR" pe.quipu.etl.generate.PadronGenerator --changes-from "$WORK/day1.zip" \
  --change-rate "$CHANGE_RATE" --out "$WORK/day2.zip" --seed 43 > "$WORK/day2.txt"
echo "generated day 2 in $(since "$t") s: $(cat "$WORK/day2.txt")"
kind() { sed -n "s/.*[:,] $1 \([0-9]*\)[,;].*/\1/p" "$WORK/day2.txt"; }
D2_ESTADO=$(kind estado) D2_CONDICION=$(kind condicion) D2_ADDRESS=$(kind address) D2_NAME=$(kind name)
D2_ADDED=$(kind added) D2_REMOVED=$(kind removed)
D2_ROWS=$(sed -n 's/.*; \([0-9]*\) records written to.*/\1/p' "$WORK/day2.txt")
D2_CHANGED=$((D2_ESTADO + D2_CONDICION + D2_ADDRESS + D2_NAME))
D2_CHANGES=$((D2_CHANGED + D2_ADDED + D2_REMOVED))
[ -n "$D2_ROWS" ] && [ "$D2_CHANGES" -gt 0 ] || { echo "bench: could not read the generator's summary" >&2; exit 1; }

bench_start_api
# The ETL's AOT cache for these options, as ./quipu trains it once per build (QUIPU_AOT=wait: before the run, which
# loads INEI's districts, already there): not timed, as an operator's daily loads never meet its training.
t=$(now)
QUIPU_JAVA_OPTS=-Xmx$ETL_HEAP QUIPU_AOT=wait ./quipu etl ubigeo config.yml > "$WORK/etl-training.out" \
  2> "$WORK/etl-training.log" || { echo "bench: the ETL's AOT training or its ubigeo run failed:" >&2
  tail -n 20 "$WORK/etl-training.log" >&2; exit 1; }
echo "the ETL's AOT cache for -Xmx$ETL_HEAP in place in $(since "$t") s (trained, or there already)"

# --- 2. The floor: \copy + primary key + trigram GIN index, by psql on the same server
t=$(now)
bench_padron_csv "$WORK/day1.zip" "$WORK/day1.csv"
sql -c "create unlogged table bench_names (ruc char(11), razon_social text, estado text, condicion text, ubigeo text,
    tipo_via text, nombre_via text, codigo_zona text, tipo_zona text, numero text, interior text, lote text,
    departamento text, manzana text, kilometro text)" \
  -c "\\copy bench_names from '$WORK/day1.csv' with (format csv)" \
  -c "\\copy (select *, quipu_search_name(razon_social) from bench_names) to '$WORK/floor.csv' with (format csv)" \
  -c "drop table bench_names"
rm -f "$WORK/day1.csv"
echo "day 1 as CSV with normalised names in $(since "$t") s (not part of the floor)"
sql -c "checkpoint"
cat > "$WORK/floor.sql" <<EOF
\\timing on
begin;
create table bench_floor (ruc char(11), razon_social text, estado text, condicion text, ubigeo text, tipo_via text,
  nombre_via text, codigo_zona text, tipo_zona text, numero text, interior text, lote text, departamento text,
  manzana text, kilometro text, nombre_busqueda text);
\\copy bench_floor from '$WORK/floor.csv' with (format csv)
set local maintenance_work_mem = '512MB';
alter table bench_floor add primary key (ruc);
create index bench_floor_search on bench_floor using gin (nombre_busqueda gin_trgm_ops);
commit;
EOF
t=$(now)
sql -f "$WORK/floor.sql" > "$WORK/floor.out"
FLOOR_S=$(since "$t")
# psql's "Time: N ms" lines, in the script's order: begin, create, \copy, set, primary key, index, commit.
mapfile -t FLOOR_MS < <(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' "$WORK/floor.out")
[ "${#FLOOR_MS[@]}" = 7 ] || { echo "bench: expected 7 timings from psql, got ${#FLOOR_MS[@]}:" >&2; cat "$WORK/floor.out" >&2; exit 1; }
secs() { awk -v ms="$1" 'BEGIN { printf "%.1f", ms / 1000 }'; }
COPY_S=$(secs "${FLOOR_MS[2]}") PK_S=$(secs "${FLOOR_MS[4]}") GIN_S=$(secs "${FLOOR_MS[5]}")
# \copy + primary key: the floor less its index, with the same share of the outside time (psql's start, the commit).
COPY_PK_S=$(awk -v f="$FLOOR_S" -v g="$GIN_S" 'BEGIN { printf "%.1f", f - g }')
sql -c "drop table bench_floor"
rm -f "$WORK/floor.csv"
echo "floor: $FLOOR_S s: \\copy $COPY_S s, primary key $PK_S s, trigram GIN $GIN_S s; \\copy + primary key $COPY_PK_S s"

# --- The ETL runs
HEAP_REPORT=()
HEAP_LIVE=0
STAGE_MARK='staged [0-9]* records'

# Starts wrk on the lookups in the background (WRK_PID), its output in WORK/wrk/$1.txt.
start_lookups() {
  wrk -t1 -c"$LOOKUP_CONNECTIONS" --timeout 10s -d3600s --latency -s "$WORK/lookups.lua" \
    -H "Authorization: Bearer $KEY" "http://127.0.0.1:$API_PORT/v1/ruc/$(head -n 1 "$WORK/rucs.txt")" \
    > "$WORK/wrk/$1.txt" 2>&1 &
  WRK_PID=$!
}
# Stops wrk with SIGINT, on which it prints its figures.
stop_lookups() {
  kill -INT "$WRK_PID" 2>/dev/null || true
  wait "$WRK_PID" 2>/dev/null || true
  WRK_PID=""
}

# One padron run on a file; $1: name, $2: the file, $3: "lookups" to run wrk meanwhile. Sets ETL_S (seconds, JVM start
# included); prints the job's summary and its timing lines. Exits 1 when the run fails.
etl_load() {
  local name=$1 file=$2 t rc=0 phase=""
  sql -c "checkpoint"
  [ "${3:-}" = lookups ] && { start_lookups "$name-stages"; phase=staging; }
  t=$(now)
  QUIPU_JAVA_OPTS=-Xmx$ETL_HEAP JAVA_TOOL_OPTIONS="-Xlog:gc:file=$WORK/gc-$name.log" \
    ./quipu etl padron --file "$file" config.yml \
    > "$WORK/etl-$name.out" 2> "$WORK/etl-$name.log" &
  ETL_PID=$!
  if [ -n "$phase" ]; then
    while kill -0 "$ETL_PID" 2>/dev/null; do
      if [ "$phase" = staging ] && grep -q "$STAGE_MARK" "$WORK/etl-$name.log"; then
        stop_lookups; start_lookups "$name-publishes"; phase=publishing
      fi
      sleep 0.1
    done
  fi
  wait "$ETL_PID" || rc=$?
  ETL_S=$(since "$t")
  ETL_PID=""
  [ -n "$phase" ] && stop_lookups
  if [ "$rc" != 0 ]; then
    echo "bench: the $name load failed (exit $rc) with -Xmx$ETL_HEAP:" >&2
    cat "$WORK/etl-$name.out" >&2; tail -n 20 "$WORK/etl-$name.log" >&2
    grep -q OutOfMemoryError "$WORK/etl-$name.log" && echo "bench: it ran out of heap" >&2
    exit 1
  fi
  # "GC(n) Pause Young (Normal) (G1 Evacuation Pause) 150M->20M(256M) 3.4ms": in use before -> after (committed).
  local heap
  heap=$(grep -o '[0-9]*M->[0-9]*M' "$WORK/gc-$name.log" | awk -F'->' '
    { b = $1 + 0; a = $2 + 0; if (b > mb) mb = b; if (a > ma) ma = a } END { printf "%d %d", mb, ma }')
  read -r before after <<< "$heap"
  HEAP_REPORT+=("$name: completed; at most ${after} MB left after a collection (${before} MB in use before one)")
  [ "$after" -gt "$HEAP_LIVE" ] && HEAP_LIVE=$after
  # The job's own time, from its summary line ("in 15.9 s (run 2)"): the run less the JVM's start and Spring's.
  JOB_S=$(sed -n 's/.* in \([0-9.]*\) s (run [0-9]*).*/\1/p' "$WORK/etl-$name.out")
  echo "$name: $ETL_S s; $(cat "$WORK/etl-$name.out")"
  grep -E "staged|indexed|search index|words|analyzed|registry in service|publish|applied|changes" \
    "$WORK/etl-$name.log" | sed 's/^[A-Z]* *\[[^]]*\] [a-zA-Z.]*: /    /' || true
}

# --- 3. First load
etl_load first "$WORK/day1.zip"
FIRST_S=$ETL_S FIRST_JOB_S=$JOB_S
ROWS_IN=$(sql -c "select count(*) from ruc_registry")
[ "$ROWS_IN" = "$ROWS" ] || { echo "bench: $ROWS_IN records in service after the first load, not $ROWS" >&2; exit 1; }
CHANGES_FIRST=$(sql -c "select count(*) from ruc_changes")

# --- 4. Reload with CHANGE_RATE changed
sql -c "create unlogged table bench_day1 as select ruc, actualizado from ruc_registry" \
  -c "alter table bench_day1 add primary key (ruc)"
etl_load reload "$WORK/day2.zip"
RELOAD_S=$ETL_S RELOAD_JOB_S=$JOB_S
read -r R_ROWS R_MOVED R_ADDED R_REMOVED <<< "$(sql -F ' ' -c "select
    (select count(*) from ruc_registry),
    (select count(*) from ruc_registry r join bench_day1 d using (ruc) where r.actualizado <> d.actualizado),
    (select count(*) from ruc_registry r where not exists (select 1 from bench_day1 d where d.ruc = r.ruc)),
    (select count(*) from bench_day1 d where not exists (select 1 from ruc_registry r where r.ruc = d.ruc))")"
CHANGE_ROWS=$(( $(sql -c "select count(*) from ruc_changes") - CHANGES_FIRST ))
CHANGE_BYTES=$(sql -c "select pg_total_relation_size('ruc_changes')")
BYTES_PER_CHANGE=$(awk -v b="$CHANGE_BYTES" -v n="$CHANGE_ROWS" 'BEGIN { if (n > 0) printf "%.0f", b / n; else print "n/a" }')
echo "reload: $R_ROWS records (expected $D2_ROWS); actualizado moved on $R_MOVED (expected $D2_CHANGED), added" \
  "$R_ADDED (expected $D2_ADDED), removed $R_REMOVED (expected $D2_REMOVED); change log: $CHANGE_ROWS rows," \
  "$CHANGE_BYTES bytes"
RELOAD_OK=1
[ "$R_ROWS" = "$D2_ROWS" ] && [ "$R_MOVED" = "$D2_CHANGED" ] && [ "$R_ADDED" = "$D2_ADDED" ] \
  && [ "$R_REMOVED" = "$D2_REMOVED" ] || RELOAD_OK=0
# The lookups' RUCs, present on both days: 500 among those that change, 500 among the others.
sql -c "select setseed(0.42)" -c "
  (select r.ruc from ruc_registry r join bench_day1 d using (ruc) where r.actualizado <> d.actualizado
    order by random() limit 500)
  union all
  (select r.ruc from ruc_registry r join bench_day1 d using (ruc) where r.actualizado = d.actualizado
    order by random() limit 500)" | grep -E '^[0-9]{11}$' > "$WORK/rucs.txt"
sql -c "drop table bench_day1"

# --- 5. Unchanged reload
sql -c "create unlogged table bench_day2 as select ruc, actualizado from ruc_registry" \
  -c "alter table bench_day2 add primary key (ruc)"
CHANGES_BEFORE=$(sql -c "select count(*) from ruc_changes")
etl_load unchanged "$WORK/day2.zip"
UNCHANGED_S=$ETL_S UNCHANGED_JOB_S=$JOB_S
read -r U_MOVED U_MISSING U_ROWS <<< "$(sql -F ' ' -c "select
    (select count(*) from ruc_registry r join bench_day2 d using (ruc) where r.actualizado <> d.actualizado),
    (select count(*) from bench_day2 d where not exists (select 1 from ruc_registry r where r.ruc = d.ruc)),
    (select count(*) from ruc_registry)")"
U_CHANGES=$(( $(sql -c "select count(*) from ruc_changes") - CHANGES_BEFORE ))
sql -c "drop table bench_day2"
echo "unchanged reload: actualizado moved on $U_MOVED (expected 0), records missing $U_MISSING (expected 0)," \
  "records $U_ROWS (expected $D2_ROWS), changes recorded $U_CHANGES (expected 0)"

# --- 6. Lookups during a reload with CHANGE_RATE changed: day 1 again
{
  echo "-- GET /v1/ruc/{ruc} over RUCs present on both days; each connection waits between its requests."
  echo "local rucs = {"
  sed 's/.*/  "&",/' "$WORK/rucs.txt"
  echo "}"
  cat <<EOF
local index = 0
function init(args)
  index = math.random(#rucs)
end
function request()
  index = index % #rucs + 1
  return wrk.format(nil, "/v1/ruc/" .. rucs[index])
end
function delay()
  return $LOOKUP_DELAY_MS
end
EOF
} > "$WORK/lookups.lua"
start_lookups warmup
sleep 10
stop_lookups
etl_load lookups "$WORK/day1.zip" lookups
LOOKUPS_S=$ETL_S
L_OK=1
LOOKUP_LINES=()
LOOKUP_P99=0 LOOKUP_ERRORS=0 LOOKUP_REQUESTS=0
for part in stages publishes; do
  out="$WORK/wrk/lookups-$part.txt"
  [ -s "$out" ] || continue
  read -r rps p50 p99 bad errs n < <(wrk_figures "$out")
  LOOKUP_LINES+=("while it $part: $n lookups, $rps/s, p50 $p50 ms, p99 $p99 ms, $bad answers other than 2xx/3xx, $errs socket errors")
  LOOKUP_ERRORS=$((LOOKUP_ERRORS + bad + errs)); LOOKUP_REQUESTS=$((LOOKUP_REQUESTS + n))
  LOOKUP_P99=$(awk -v a="$LOOKUP_P99" -v b="$p99" 'BEGIN { print (b + 0 > a + 0 ? b : a) }')
done
[ -s "$WORK/wrk/lookups-publishes.txt" ] \
  || LOOKUP_LINES+=("(the job's log did not say where staging ends: the figures above cover the whole reload)")
[ "$LOOKUP_ERRORS" = 0 ] && [ "$LOOKUP_REQUESTS" -gt 0 ] || L_OK=0
L_ROWS=$(sql -c "select count(*) from ruc_registry")
[ "$L_ROWS" = "$ROWS" ] || L_OK=0

# --- 7. Figures
project() { awk -v s="$1" -v r="$ROWS" -v real="$REAL_ROWS" 'BEGIN { v = s * real / r;
  if (v >= 120) printf "%.0f s (%.1f min)", v, v / 60; else printf "%.0f s", v }'; }
pass() { awk -v v="$1" -v l="$2" 'BEGIN { print (v + 0 <= l + 0 ? "PASS" : "FAIL") }'; }
F_FLOOR=$(ratio "$FIRST_S" "$FLOOR_S") F_COPY=$(ratio "$FIRST_S" "$COPY_PK_S")
R_FIRST=$(ratio "$RELOAD_S" "$FIRST_S") R_COPY=$(ratio "$RELOAD_S" "$COPY_PK_S")
U_FIRST=$(ratio "$UNCHANGED_S" "$FIRST_S")
echo
echo "Summary: $ROWS rows, day 2 with $D2_CHANGES changes ($CHANGE_RATE), $(nproc) CPUs, load average now" \
  "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '  %-36s %-58s %-22s %s\n' "figure" "measured" "target" ""
printf '  %-36s %-58s %-22s %s\n' "floor: \\copy + primary key + GIN" \
  "$FLOOR_S s (\\copy $COPY_S, key $PK_S, GIN $GIN_S)" "baseline" ""
printf '  %-36s %-58s %-22s %s\n' "\\copy + primary key" "$COPY_PK_S s" "baseline" ""
printf '  %-36s %-58s %-22s %s\n' "first load, search on" "$FIRST_S s = $F_FLOOR× floor, $F_COPY× \\copy + key" \
  "<= 1.2× floor" "$(pass "$F_FLOOR" 1.2)"
printf '  %-36s %-58s %-22s %s\n' "reload, $CHANGE_RATE changed" "$RELOAD_S s = $R_FIRST× first load" \
  "<= 0.40× first" "$(pass "$R_FIRST" 0.40)"
printf '  %-36s %-58s %-22s %s\n' "" "$R_COPY× \\copy + key" "<= 2.0× \\copy + key" "$(pass "$R_COPY" 2.0)"
printf '  %-36s %-58s %-22s %s\n' "unchanged reload" "$UNCHANGED_S s = $U_FIRST× first load" "<= 0.35× first" \
  "$(pass "$U_FIRST" 0.35)"
printf '  %-36s %-58s %-22s %s\n' "lookups during a $CHANGE_RATE reload" \
  "$LOOKUP_REQUESTS, $LOOKUP_ERRORS errors, p99 $LOOKUP_P99 ms (reload $LOOKUPS_S s)" "0 errors, p99 <= 50 ms" \
  "$([ "$LOOKUP_ERRORS" = 0 ] && pass "$LOOKUP_P99" 50 || echo FAIL)"
printf '  %-36s %-58s %-22s %s\n' "change log" "$BYTES_PER_CHANGE bytes per change ($CHANGE_ROWS rows, $CHANGE_BYTES bytes)" \
  "reported" ""
printf '  %-36s %-58s %-22s %s\n' "ETL heap" "every run completed with -Xmx$ETL_HEAP; at most $HEAP_LIVE MB live" \
  "<= 256 MB" "PASS"
echo "    the job's own times (its summary line: less the JVM's and Spring's start): first load $FIRST_JOB_S s" \
  "= $(ratio "$FIRST_JOB_S" "$FLOOR_S")× floor; reload $RELOAD_JOB_S s = $(ratio "$RELOAD_JOB_S" "$FIRST_JOB_S")× first," \
  "$(ratio "$RELOAD_JOB_S" "$COPY_PK_S")× \\copy + key; unchanged $UNCHANGED_JOB_S s = $(ratio "$UNCHANGED_JOB_S" "$FIRST_JOB_S")× first"
for line in "${LOOKUP_LINES[@]}"; do echo "    lookups $line"; done
for line in "${HEAP_REPORT[@]}"; do echo "    heap of the $line"; done
echo
echo "Projected to $REAL_ROWS rows, linearly in rows (each time × $REAL_ROWS / $ROWS; the ratios stay as measured):"
echo "  floor $(project "$FLOOR_S"), \\copy + primary key $(project "$COPY_PK_S"), first load $(project "$FIRST_S"),"
echo "  reload with $CHANGE_RATE changed $(project "$RELOAD_S"), unchanged reload $(project "$UNCHANGED_S")"
if [ "$CHANGE_ROWS" -gt 0 ]; then
  awk -v b="$BYTES_PER_CHANGE" -v r="$CHANGE_RATE" -v real="$REAL_ROWS" 'BEGIN {
    day = real * r; printf "  change log: %.0f changes a day of %s changed, %.0f MB a day, %.1f GB over the 400 days of retention\n",
      day, r, day * b / 1e6, day * b * 400 / 1e9 }'
else
  echo "  change log: no change rows recorded by this build, nothing to project"
fi
echo "  heap: not projected; the job streams, so the same -Xmx$ETL_HEAP must do at any size (compare the runs at 2 M and 5 M)"
echo "  lookups: p99 depends on the readers' rate and the cores, not on rows; the reload they meet lasts $(project "$LOOKUPS_S")"

STATUS=0
[ "$RELOAD_OK" = 1 ] || { echo "bench: FAILED: the reload did not change exactly day 2's records (see above)" >&2; STATUS=1; }
[ "$U_MOVED" = 0 ] && [ "$U_MISSING" = 0 ] && [ "$U_ROWS" = "$D2_ROWS" ] && [ "$U_CHANGES" = 0 ] \
  || { echo "bench: FAILED: the unchanged reload changed something (see above)" >&2; STATUS=1; }
[ "$L_OK" = 1 ] || { echo "bench: FAILED: lookups failed during the reload, or it left $L_ROWS records, not $ROWS" >&2; STATUS=1; }
exit $STATUS
