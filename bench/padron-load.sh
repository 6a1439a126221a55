#!/usr/bin/env bash
# Benchmarks the padron job against PostgreSQL's own bulk load, on a generated padrón.
#
#   ./mvnw -q -B -DskipTests package && bench/padron-load.sh [ROWS]      (ROWS defaults to 5,000,000)
#
# In a temporary folder (QUIPU_DATA_DIR), with the embedded PostgreSQL that the API starts:
#   1. generates ROWS lines in SUNAT's format, zipped (PadronGenerator, seed 42);
#   2. baseline: the same rows converted to clean CSV (conversion not timed), `psql \copy` into an unindexed
#      table, then ALTER TABLE ... ADD PRIMARY KEY: both timed;
#   3. Quipu: `java -Xmx512m -jar etl/target/quipu-etl.jar padron --file X.zip config.yml` end to end (JVM start
#      included), under the baseline's conditions (the API up and idle);
#   4. the same file again: nothing changed, so no actualizado may move; timed;
#   5. the same file once more while a throttled loop of RUC lookups runs against the API on the same data
#      (RUCs present before and after): every lookup must answer 200;
#   6. prints the ratios (targets: load/baseline <= 2.0, second/first <= 1.2), the projection to 18.3 M rows
#      and the lookup errors (target 0). Exits non-zero when a correctness check fails.
# Ports 18480 (API), 18481 (admin), 18482 (embedded PostgreSQL). Everything started is stopped at the end.
set -euo pipefail

ROWS=${1:-5000000}
REPO=$(cd "$(dirname "$0")/.." && pwd)
API_PORT=18480
ADMIN_PORT=18481
DB_PORT=18482

. "$REPO/bench/common.sh"
bench_require_tools psql curl unzip iconv awk
bench_java
API_JAR="$REPO/api/target/quipu-api.jar"
ETL_JAR="$REPO/etl/target/quipu-etl.jar"
bench_require_jars "$API_JAR" "$ETL_JAR"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quipu-bench.XXXXXX")
export QUIPU_DATA_DIR="$WORK/data" QUIPU_PORT=$API_PORT QUIPU_ADMIN_PORT=$ADMIN_PORT QUIPU_EMBEDDED_DB_PORT=$DB_PORT
unset DATABASE_URL DATABASE_USER DATABASE_PASSWORD
API_PID=""
LOOP_PID=""

cleanup() {
  [ -n "$LOOP_PID" ] && kill "$LOOP_PID" 2>/dev/null || true
  if [ -n "$API_PID" ]; then
    kill "$API_PID" 2>/dev/null || true
    wait "$API_PID" 2>/dev/null || true
  fi
  bench_stop_leftover_server
  rm -rf "$WORK"
}
trap cleanup EXIT


cd "$REPO"
echo "bench: $ROWS rows, work folder $WORK, $(nproc) CPUs, $("$JAVA" -version 2>&1 | head -n 1)"

bench_start_with_padron
bench_copy_baseline

# --- Quipu's load, timed under the baseline's conditions: the API up and idle, nothing else running.
t=$(now)
"$JAVA" -Xmx512m -jar "$ETL_JAR" padron --file "$WORK/padron.zip" config.yml 2> "$WORK/etl-first.log"
FIRST_S=$(since "$t")
grep -E "indexed|registry in service|staged" "$WORK/etl-first.log" | sed 's/^/  /' || true
ROWS_IN=$(sql -c "select count(*) from ruc_registry")

# --- The same file again: nothing changed, so no actualizado may move.
sql -c "create unlogged table bench_snapshot as select ruc, actualizado from ruc_registry" -c "checkpoint"
t=$(now)
"$JAVA" -Xmx512m -jar "$ETL_JAR" padron --file "$WORK/padron.zip" config.yml 2> "$WORK/etl-second.log"
SECOND_S=$(since "$t")
MOVED=$(sql -c "select count(*) from ruc_registry r join bench_snapshot s using (ruc) where r.actualizado <> s.actualizado")
MISSING=$(sql -c "select count(*) from bench_snapshot s where not exists (select 1 from ruc_registry r where r.ruc = s.ruc)")
sql -c "drop table bench_snapshot"

# --- A load while readers look RUCs up: no lookup may fail or miss. Timed too, but not compared with the
# baseline, which ran without readers.
sql -c "select ruc from ruc_registry order by ruc limit 200" > "$WORK/rucs.txt"
cat > "$WORK/lookups.sh" <<'EOF'
#!/usr/bin/env bash
# Looks RUCs up until told to stop; counts answers and errors (anything but 200, or no answer).
ok=0; errors=0
trap 'echo "$ok $errors" > "$OUT"; exit 0' TERM
mapfile -t rucs < "$RUCS"
while true; do
  for ruc in "${rucs[@]}"; do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $KEY" \
      "http://127.0.0.1:$PORT/v1/ruc/$ruc" || echo 000)
    if [ "$code" = 200 ]; then ok=$((ok + 1)); else errors=$((errors + 1)); echo "$ruc -> $code" >> "$OUT.errors"; fi
    # About 30 lookups a second: a steady reader, without a busy loop of curl processes.
    sleep 0.02
  done
done
EOF
chmod +x "$WORK/lookups.sh"
KEY=$KEY PORT=$API_PORT RUCS="$WORK/rucs.txt" OUT="$WORK/lookups.out" "$WORK/lookups.sh" &
LOOP_PID=$!
sleep 1
t=$(now)
"$JAVA" -Xmx512m -jar "$ETL_JAR" padron --file "$WORK/padron.zip" config.yml 2> "$WORK/etl-third.log"
THIRD_S=$(since "$t")
sleep 1
kill -TERM "$LOOP_PID"; wait "$LOOP_PID" 2>/dev/null || true; LOOP_PID=""
read -r LOOKUPS LOOKUP_ERRORS < "$WORK/lookups.out"

echo
echo "rows in the registry:            $ROWS_IN (expected $ROWS)"
echo "baseline (\\copy + primary key):  $BASE_S s"
echo "quipu padron, first load:        $FIRST_S s  ratio load/baseline $(ratio "$FIRST_S" "$BASE_S") (target <= 2.0), -Xmx512m OK"
echo "quipu padron, same file again:   $SECOND_S s  ratio second/first $(ratio "$SECOND_S" "$FIRST_S") (target <= 1.2)"
echo "actualizado moved on reload:     $MOVED (target 0); records missing after reload: $MISSING"
echo "projected for 18.3 M rows:       $(awk -v s="$FIRST_S" -v r="$ROWS" 'BEGIN { printf "%.0f s (%.1f min)", s * 18300000 / r, s * 18300000 / r / 60 }')"
echo "load during lookups:              $THIRD_S s; $LOOKUPS lookups answered 200, $LOOKUP_ERRORS errors (target 0)"
[ -f "$WORK/lookups.out.errors" ] && head -n 5 "$WORK/lookups.out.errors"
[ "$ROWS_IN" = "$ROWS" ] && [ "$MOVED" = 0 ] && [ "$MISSING" = 0 ] && [ "$LOOKUP_ERRORS" = 0 ]
