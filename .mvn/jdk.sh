# Selects a JDK 25 (or newer) for Quipu's build and launchers; sourced by mvnw, ./quipu and .ci/run.
# Looks at QUIPU_JAVA_HOME, JAVA_HOME, the java on PATH, then the usual install folders,
# and exports JAVA_HOME and PATH for the first JDK whose major version is at least 25.

# A JDK's major version: from its release file (every JDK since 9 has one: JAVA_VERSION="25.0.3"), which costs
# nothing, else by asking its java (about 0.15 s each, for every JDK looked at: most of a launcher's start).
quipu_java_major() {
  if [ -r "$1/release" ]; then
    _quipu_release=$(sed -n 's/^JAVA_VERSION="\([0-9][0-9]*\).*/\1/p' "$1/release" | head -n 1)
    if [ -n "$_quipu_release" ]; then
      echo "$_quipu_release"
      return
    fi
  fi
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

quipu_select_jdk() {
  _quipu_noglob=0
  case $- in *f*) _quipu_noglob=1; set +f ;; esac
  _quipu_path_java=""
  if command -v java >/dev/null 2>&1; then
    _quipu_path_java=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  fi
  _quipu_found=""
  for _quipu_candidate in "${QUIPU_JAVA_HOME:-}" "${JAVA_HOME:-}" "$_quipu_path_java" \
      /usr/lib/jvm/* /usr/java/* /opt/java/* /opt/jdk* /Library/Java/JavaVirtualMachines/*/Contents/Home \
      "$HOME"/.sdkman/candidates/java/* "$HOME"/.jdks/*; do
    [ -n "$_quipu_candidate" ] && [ -x "$_quipu_candidate/bin/java" ] && [ -x "$_quipu_candidate/bin/javac" ] || continue
    _quipu_major=$(quipu_java_major "$_quipu_candidate")
    if [ -n "$_quipu_major" ] && [ "$_quipu_major" -ge 25 ]; then
      _quipu_found="$_quipu_candidate"
      break
    fi
  done
  [ "$_quipu_noglob" = 1 ] && set -f
  if [ -z "$_quipu_found" ]; then
    echo "Quipu needs a JDK 25 and found none (looked at QUIPU_JAVA_HOME, JAVA_HOME, the java on PATH and /usr/lib/jvm/*)." >&2
    echo "Install a JDK 25 (for example Temurin 25) and set JAVA_HOME or QUIPU_JAVA_HOME to its folder." >&2
    return 1
  fi
  JAVA_HOME="$_quipu_found"
  PATH="$JAVA_HOME/bin:$PATH"
  export JAVA_HOME PATH
}
