# Sourced by the benchmarks: the JDK, the jars, psql against the embedded server, and cleaning up after it.
# Expects REPO, WORK (for bench_cleanup_server) and DB_PORT to be set by the script.

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

sql() { psql -X -q -At -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$DB_PORT" -U postgres quipu "$@"; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
