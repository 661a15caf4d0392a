#!/usr/bin/env bash
# Starts a MongoDB wire-protocol STAND-IN (mongo-java-server with its H2 backend, from Maven
# Central), not MongoDB: no transactions, no text indexes, a subset of the query operators. It is
# there so the MongoDB adapter's contract tests run on a machine without Docker or mongod.
#
#   STACK_DIR   (default /tmp/collections-stack): jars, classes, data, log and pid under $STACK_DIR/mongo
#   MONGO_PORT  (default 27117): the port on 127.0.0.1
#   MONGO_READY_TIMEOUT (default 60): seconds to wait for a ping to answer
#   MONGO_STAND_IN_JAVA (default: $JAVA_HOME/bin/java, else java): the JVM that runs the stand-in
#                       (Maven keeps JAVA_HOME's)
#
# On success prints exactly one line on stdout, MONGO_URL=..., and nothing else there.
# If the pid file names a live stand-in, prints its line again without starting another.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
stack_dir="${STACK_DIR:-/tmp/collections-stack}"
dir="$stack_dir/mongo"
port="${MONGO_PORT:-27117}"
timeout="${MONGO_READY_TIMEOUT:-60}"
log="$dir/mongo.log"
pid_file="$dir/pid"
url_file="$dir/url"

say() { echo "$*" >&2; }

is_stand_in() {
  # A live pid that is our launcher, not a recycled pid of something else.
  [[ -n "${1:-}" ]] && kill -0 "$1" 2>/dev/null && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q 'org.collections.stack.StandIn'
}

mkdir -p "$dir/data"

if [[ -f "$pid_file" ]]; then
  running="$(cat "$pid_file")"
  if is_stand_in "$running" && [[ -f "$url_file" ]]; then
    echo "MONGO_URL=$(cat "$url_file")"
    exit 0
  fi
  rm -f "$pid_file"
fi

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  say "mongo stand-in: port $port on 127.0.0.1 is already in use by another process; set MONGO_PORT to a free port"
  exit 1
fi

# Fetch the pinned jars (cached in ~/.m2) and compile the launcher; Maven's output goes to build.log.
# Skipped when the last build was of this very pom and launcher (Maven alone takes about 10 s).
stamp="$dir/build.stamp"
sources="$(cat "$here/pom.xml" "$here"/src/main/java/org/collections/stack/*.java | sha256sum | cut -d' ' -f1)"
if [[ "$(cat "$stamp" 2>/dev/null)" != "$sources" ]]; then
  rm -f "$stamp"
  if ! mvn -q -B -Dstyle.color=never -f "$here/pom.xml" -Dstack.mongo.dir="$dir" compile >"$dir/build.log" 2>&1; then
    say "mongo stand-in: the Maven build of stack/mongo/pom.xml failed; see $dir/build.log"
    exit 1
  fi
  echo "$sources" >"$stamp"
fi

java_bin="${MONGO_STAND_IN_JAVA:-${JAVA_HOME:+$JAVA_HOME/bin/}java}"
# The database name is the one the adapter takes from the URL path when none is given.
url="mongodb://127.0.0.1:$port/collections"

# setsid: its own process group, so a Ctrl-C in the calling shell does not reach it, and stop.sh
# signals exactly this process.
setsid "$java_bin" -Xmx256m -cp "$dir/classes:$dir/lib/*" org.collections.stack.StandIn "$port" "$dir/data" \
  >"$log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pid_file"

stop_started() {
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pid_file"
}

deadline=$((SECONDS + timeout))
until node --import tsx "$here/ready.ts" "$url" 2>>"$log"; do
  if ! kill -0 "$pid" 2>/dev/null; then
    say "mongo stand-in exited before it became ready; see $log"
    rm -f "$pid_file"
    exit 1
  fi
  if ((SECONDS >= deadline)); then
    say "mongo stand-in did not become ready within $timeout s; see $log"
    stop_started
    exit 1
  fi
  sleep 0.5
done

echo "$url" >"$url_file"
echo "MONGO_URL=$url"
