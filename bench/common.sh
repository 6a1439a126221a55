# Sourced by the benchmarks: the JDK, the jars, psql against the embedded server, and cleaning up after it.
# Expects REPO, WORK (for bench_cleanup_server), DB_PORT and QUIPU_DATA_DIR to be set by the script.

# Selects a JDK 25 as the build does and sets JAVA; exits 2 when there is none.
bench_java() {
  . "$REPO/.mvn/jdk.sh"
  quipu_select_jdk >/dev/null || exit 2
  JAVA="$JAVA_HOME/bin/java"
}

# Exits 2 unless every jar given exists.
bench_require_jars() {
  local jar
  for jar in "$@"; do
    [ -f "$jar" ] || { echo "bench: $jar is missing; run ./mvnw -q -B -DskipTests package first" >&2; exit 2; }
  done
}

# Stops an embedded server left running (the API normally stops the one it started) by its own pid file.
bench_stop_leftover_server() {
  local pidfile="$QUIPU_DATA_DIR/postgres/postmaster.pid"
  if [ -f "$pidfile" ]; then
    local pg
    pg=$(head -n 1 "$pidfile")
    kill -INT "$pg" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pg" 2>/dev/null || break; sleep 0.2; done
  fi
}

# Exits 1 when something already listens on one of the ports given on 127.0.0.1: a server left there would answer
# the benchmark's requests in place of the one it starts.
bench_require_free_ports() {
  local port
  for port in "$@"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "bench: port $port is already in use; stop whatever listens there first" >&2; exit 1
    fi
  done
}

# Exits 2 unless every command given is on the PATH; psql (the padrón benches' baseline) with how to install it.
bench_require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null 2>&1 && continue
    if [ "$tool" = psql ]; then
      echo "bench: psql is missing; it measures the baseline. Install PostgreSQL's client (Debian: apt-get install postgresql-client)." >&2
    else
      echo "bench: $tool is missing" >&2
    fi
    exit 2
  done
}

# psql as the embedded server's superuser, whose password Quipu keeps beside the data directory, readable by its owner
# only (PGPASSWORD reaches psql alone: on Linux a process's environment is its user's to read).
sql() {
  PGPASSWORD=$(cat "$QUIPU_DATA_DIR/postgres.password") \
    psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$DB_PORT" -U postgres quipu "$@"
}
# The header of the operator tasks' admin token, which the API generates into the data folder in development.
admin_auth() {
  echo "Authorization: Bearer $(cat "${QUIPU_DATA_DIR:-./data}/admin-token")"
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

# For the padrón benches: generates ROWS padrón lines in SUNAT's format ($WORK/padron.zip, seed 42) and the first
# 20,000 of them ($WORK/before.zip: the same seed writes the same first lines), starts the API (bench_start_api), and
# loads before.zip: the registry in service before the measured loads. Expects JAVA, API_JAR, ETL_JAR, ROWS, API_PORT,
# ADMIN_PORT and WORK.
bench_start_with_padron() {
  local t
  t=$(now)
  "$JAVA" -cp "$ETL_JAR" pe.quipu.etl.generate.PadronGenerator --rows "$ROWS" --out "$WORK/padron.zip" --seed 42
  "$JAVA" -cp "$ETL_JAR" pe.quipu.etl.generate.PadronGenerator --rows 20000 --out "$WORK/before.zip" --seed 42
  echo "generated $(du -h "$WORK/padron.zip" | cut -f1) zip in $(since "$t") s"
  bench_start_api
  "$JAVA" -Xmx512m -jar "$ETL_JAR" padron --file "$WORK/before.zip" config.yml
}

# Starts the API (API_PID) on API_PORT/ADMIN_PORT with its embedded PostgreSQL on DB_PORT, and creates a ruc:read key
# (KEY) for an account whose plan's limits are lifted (the benches measure Quipu, not the plan). The registry stays as
# the API found it (empty in a new QUIPU_DATA_DIR). Expects JAVA, API_JAR, API_PORT, ADMIN_PORT and WORK.
bench_start_api() {
  echo "starting the API on port $API_PORT (embedded PostgreSQL on $DB_PORT)"
  "$JAVA" -jar "$API_JAR" server config.yml > "$WORK/api.log" 2>&1 &
  API_PID=$!
  for _ in $(seq 1 180); do
    curl -fs "http://127.0.0.1:$API_PORT/v1/status" >/dev/null 2>&1 && break
    kill -0 "$API_PID" 2>/dev/null || { echo "bench: the API did not start:" >&2; tail -n 30 "$WORK/api.log" >&2; exit 1; }
    sleep 1
  done
  KEY=$("$JAVA" -jar "$API_JAR" create-key --email bench@quipu.test --scopes ruc:read config.yml 2>/dev/null | tail -n 1)
  curl -fsS -o /dev/null -X POST -H "$(admin_auth)" \
    "http://127.0.0.1:$ADMIN_PORT/tasks/set-plan?email=bench@quipu.test&plan=enterprise&monthlyQuota=1000000000&rateLimitRpm=1000000"
}

# A padrón zip's rows as clean CSV, the 15 columns in the file's order (header left out, fields trimmed, '-' and
# '----' as empty, UTF-8): what `psql \copy` loads in the baselines. $1: the zip, $2: the CSV to write.
bench_padron_csv() {
  unzip -p "$1" | iconv -f ISO-8859-1 -t UTF-8 | awk -F'|' '
    NR == 1 { next }
    { sub(/\r$/, ""); out = "";
      for (i = 1; i <= 15; i++) {
        v = $i; gsub(/^[ \t]+|[ \t]+$/, "", v);
        if (v == "" || v ~ /^-+$/) f = ""; else { gsub(/"/, "\"\"", v); f = "\"" v "\"" }
        out = out (i > 1 ? "," : "") f
      }
      print out }' > "$2"
}

# Reads a wrk output (run with --latency): "requests/s p50_ms p99_ms non_2xx_3xx socket_errors requests".
wrk_figures() {
  awk '
    function ms(v) {
      if (v ~ /us$/) return v / 1000
      if (v ~ /ms$/) return v + 0
      if (v ~ /[0-9]m$/) return v * 60000
      if (v ~ /s$/) return v * 1000
      return v + 0
    }
    /Latency Distribution/ { dist = 1; next }
    dist && $1 == "50%" { p50 = ms($2) }
    dist && $1 == "99%" { p99 = ms($2); dist = 0 }
    /requests in/ { n = $1 }
    /Socket errors:/ { gsub(",", ""); errs = $4 + $6 + $8 + $10 }
    /Non-2xx or 3xx responses:/ { bad = $NF }
    /^Requests\/sec:/ { rps = $2 }
    END { printf "%.0f %.2f %.2f %d %d %d\n", rps, p50, p99, bad, errs, n }' "$1"
}

# The padrón benches' baseline: $WORK/padron.zip's rows as clean CSV (the conversion is not timed), `psql \copy`
# into an unindexed table, then its primary key, both timed; sets COPY_S, PK_S and BASE_S (seconds). The table is
# dropped afterwards, with a checkpoint before and after, so that the loads measured next start alike.
bench_copy_baseline() {
  local t
  t=$(now)
  bench_padron_csv "$WORK/padron.zip" "$WORK/padron.csv"
  echo "converted to CSV in $(since "$t") s (not part of the baseline)"
  sql -c "drop table if exists bench_baseline" -c "create table bench_baseline (ruc char(11), razon_social text,
    estado text, condicion text, ubigeo text, tipo_via text, nombre_via text, codigo_zona text, tipo_zona text,
    numero text, interior text, lote text, departamento text, manzana text, kilometro text)"
  sql -c "checkpoint"
  t=$(now)
  sql -c "\\copy bench_baseline from '$WORK/padron.csv' with (format csv)"
  COPY_S=$(since "$t")
  t=$(now)
  sql -c "alter table bench_baseline add primary key (ruc)"
  PK_S=$(since "$t")
  BASE_S=$(awk -v a="$COPY_S" -v b="$PK_S" 'BEGIN { printf "%.1f", a + b }')
  sql -c "drop table bench_baseline"
  rm -f "$WORK/padron.csv"
  sql -c "checkpoint"
  echo "baseline: \\copy $COPY_S s + primary key $PK_S s = $BASE_S s"
}
