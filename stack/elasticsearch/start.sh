#!/usr/bin/env bash
# Starts a single-node Elasticsearch 8 on 127.0.0.1 from the integ-test-zip that Elastic
# publishes to Maven Central (pom.xml beside this script), with no Docker, and prints the one
# line a test or a server needs on stdout:
#   ELASTICSEARCH_URL=http://127.0.0.1:PORT
# Everything else (progress, errors) goes to stderr.
#
# Environment:
#   STACK_DIR                      default /tmp/collections-stack; this engine uses STACK_DIR/elasticsearch/
#   ELASTICSEARCH_PORT             HTTP port, default 19200
#   ELASTICSEARCH_TRANSPORT_PORT   transport port or range, default 19300-19399 (Elasticsearch takes the first free one)
#   ELASTICSEARCH_START_TIMEOUT    seconds to wait for a yellow cluster, default 180
#   ELASTICSEARCH_JAVA_HOME        JDK 17 or later to run it with, default the JDK of `java` on PATH
#
# The zip has no bundled JDK and Elasticsearch refuses to run as root, so as root the script
# runs it as a system user of its own (collections-es), created if missing.
# If the pid file names a live Elasticsearch of this folder, the script only reprints its line.
# stop.sh stops what this script started.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
stack_dir="${STACK_DIR:-/tmp/collections-stack}"
port="${ELASTICSEARCH_PORT:-19200}"
transport_port="${ELASTICSEARCH_TRANSPORT_PORT:-19300-19399}"
timeout_s="${ELASTICSEARCH_START_TIMEOUT:-180}"
es_user=collections-es

dir="$stack_dir/elasticsearch"
home="$dir/home"
data="$dir/data"
logs="$dir/logs"
console_log="$logs/console.log"
pid_file="$dir/pid"
url_file="$dir/url"
url="http://127.0.0.1:$port"

fail() {
  echo "elasticsearch: $*" >&2
  exit 1
}

[[ "$port" =~ ^[0-9]+$ ]] || fail "ELASTICSEARCH_PORT must be a port number, not '$port'"
[[ "$timeout_s" =~ ^[0-9]+$ ]] || fail "ELASTICSEARCH_START_TIMEOUT must be a number of seconds, not '$timeout_s'"

# The group leader stop.sh signals; its command line names this folder's home (runuser's
# arguments, or the JVM's -Des.path.home), so a reused pid of another program is never taken for ours.
running_pid() {
  [[ -f "$pid_file" ]] || return 1
  local pid
  pid="$(cat "$pid_file")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$home/" || return 1
  echo "$pid"
}

if running_pid >/dev/null; then
  echo "ELASTICSEARCH_URL=$(cat "$url_file" 2>/dev/null || echo "$url")"
  exit 0
fi

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  fail "port $port on 127.0.0.1 is already in use by another process; set ELASTICSEARCH_PORT to a free port"
fi

version="$(sed -n 's:.*<elasticsearch.version>\(.*\)</elasticsearch.version>.*:\1:p' "$here/pom.xml")"
[[ -n "$version" ]] || fail "no <elasticsearch.version> in $here/pom.xml"

java_home="${ELASTICSEARCH_JAVA_HOME:-}"
if [[ -z "$java_home" ]]; then
  java_bin="$(command -v java)" || fail "no java on PATH; install a JDK 17 or later or set ELASTICSEARCH_JAVA_HOME"
  java_home="$(dirname "$(dirname "$(readlink -f "$java_bin")")")"
fi
[[ -x "$java_home/bin/java" ]] || fail "no JDK at $java_home (ELASTICSEARCH_JAVA_HOME)"
java_major="$("$java_home/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
[[ "${java_major%%.*}" -ge 17 ]] 2>/dev/null || fail "Elasticsearch $version needs JDK 17 or later; $java_home is $java_major"

mkdir -p "$dir" "$data" "$logs" "$dir/tmp"

# Unpack once per version: the zip comes from ~/.m2 after the first fetch.
if [[ ! -f "$home/lib/elasticsearch-$version.jar" ]]; then
  echo "elasticsearch: fetching $version from Maven Central (cached in ~/.m2) into $home" >&2
  unpack="$dir/unpack"
  rm -rf "$unpack" "$home"
  mvn -q -f "$here/pom.xml" dependency:unpack -Des.home.parent="$unpack" >&2 \
    || fail "mvn could not fetch org.elasticsearch.distribution.integ-test-zip:elasticsearch:$version:zip"
  mv "$unpack/elasticsearch-$version" "$home"
  rm -rf "$unpack"
fi

settings=(
  -E cluster.name=collections-stack
  -E node.name=collections-stack-es
  -E discovery.type=single-node
  -E network.host=127.0.0.1
  -E http.port="$port"
  -E transport.port="$transport_port"
  -E path.data="$data"
  -E path.logs="$logs"
  # The disk may be fairly full on a shared machine: never refuse shards or go read-only for it.
  -E cluster.routing.allocation.disk.threshold_enabled=false
)
# This distribution carries x-pack security, which is on by default and would ask for TLS and passwords.
if [[ -d "$home/modules/x-pack-security" ]]; then
  settings+=(-E xpack.security.enabled=false)
fi
# Memory-mapped index files need vm.max_map_count >= 262144, which a container often cannot
# raise; below it, Elasticsearch reads them through NIO instead (its own advice).
max_map_count="$(cat /proc/sys/vm/max_map_count 2>/dev/null || echo 0)"
if [[ "$max_map_count" -lt 262144 ]]; then
  settings+=(-E node.store.allow_mmap=false)
fi

run_as=()
if [[ "$(id -u)" -eq 0 ]]; then
  if ! id "$es_user" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir "$dir" --shell /usr/sbin/nologin "$es_user"
  fi
  chown -R "$es_user:" "$dir"
  run_as=(runuser -u "$es_user" --)
  # A STACK_DIR under a folder the user cannot enter (e.g. /root) would fail later, less clearly.
  "${run_as[@]}" test -w "$dir" || fail "the user $es_user cannot write to $dir; choose a STACK_DIR it can reach (e.g. under /tmp)"
fi

: >"$console_log"
[[ -z "${run_as[*]}" ]] || chown "$es_user:" "$console_log"
# setsid: the launcher leads a process group of its own (runuser, the CLI's JVM, the server's
# JVM), which is what stop.sh signals, and a Ctrl-C in this shell does not reach it.
(
  cd "$home"
  exec setsid "${run_as[@]}" env \
    ES_JAVA_HOME="$java_home" \
    ES_JAVA_OPTS="-Xms512m -Xmx512m" \
    ES_TMPDIR="$dir/tmp" \
    "$home/bin/elasticsearch" "${settings[@]}"
) </dev/null >>"$console_log" 2>&1 &
echo $! >"$pid_file"
echo "$url" >"$url_file"

started=$SECONDS
while ((SECONDS - started < timeout_s)); do
  if ! running_pid >/dev/null; then
    echo "elasticsearch exited while starting; see $console_log" >&2
    "$here/stop.sh" >&2 || true
    exit 1
  fi
  if curl -fsS -m 10 "$url/_cluster/health?wait_for_status=yellow&timeout=5s" >/dev/null 2>&1; then
    echo "elasticsearch: ready at $url after $((SECONDS - started)) s" >&2
    echo "ELASTICSEARCH_URL=$url"
    exit 0
  fi
  sleep 1
done

echo "elasticsearch did not become ready within $timeout_s s; see $console_log" >&2
"$here/stop.sh" >&2 || true
exit 1
