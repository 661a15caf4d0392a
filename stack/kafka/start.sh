#!/usr/bin/env bash
# Starts a single Kafka broker in KRaft mode (its own controller) on 127.0.0.1, from Maven Central
# jars (stack/kafka/pom.xml), without Docker. Waits until it answers the Kafka protocol, then
# prints `KAFKA_BROKERS=127.0.0.1:PORT` on stdout and nothing else there (progress goes to stderr).
#
# Environment: STACK_DIR (default /tmp/collections-stack), KAFKA_PORT (19092),
# KAFKA_CONTROLLER_PORT (19093), KAFKA_READY_TIMEOUT seconds (120), JAVA (java on PATH).
# Layout under $STACK_DIR/kafka: lib/ (jars), data/ (the log, kept across restarts), kafka.log,
# pid, server.properties, log4j.properties. stack/kafka/stop.sh stops what this started.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
STACK_DIR="${STACK_DIR:-/tmp/collections-stack}"
KAFKA_PORT="${KAFKA_PORT:-19092}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-19093}"
KAFKA_READY_TIMEOUT="${KAFKA_READY_TIMEOUT:-120}"
JAVA="${JAVA:-java}"

dir="$STACK_DIR/kafka"
lib="$dir/lib"
data="$dir/data"
log="$dir/kafka.log"
pidfile="$dir/pid"
envfile="$dir/env"
properties="$dir/server.properties"

say() { echo "kafka: $*" >&2; }

# The pid file's process, if it is still the broker this script started (a pid can be reused).
running_pid() {
  [[ -f "$pidfile" ]] || return 1
  local pid
  pid="$(cat "$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "kafka.Kafka $properties" || return 1
  echo "$pid"
}

if running_pid >/dev/null; then
  cat "$envfile"
  exit 0
fi
rm -f "$pidfile"

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for port in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
  if port_in_use "$port"; then
    say "port $port on 127.0.0.1 is taken by another process; set KAFKA_PORT / KAFKA_CONTROLLER_PORT to free ones"
    exit 1
  fi
done

command -v "$JAVA" >/dev/null || { say "no Java found (set JAVA or install a JDK 17+)"; exit 1; }
mkdir -p "$dir" "$data"

# Jars: fetched again only when the pom changed (Maven keeps them in ~/.m2 either way).
stamp="$lib/.pom.sha256"
pom_sum="$(sha256sum "$here/pom.xml" | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$pom_sum" ]]; then
  say "fetching the broker's jars with Maven into $lib"
  rm -rf "$lib"
  mvn -q -B -f "$here/pom.xml" dependency:copy-dependencies -DoutputDirectory="$lib" >&2
  echo "$pom_sum" >"$stamp"
fi

cat >"$dir/log4j.properties" <<EOF
# Every broker line, including the request and controller loggers' warnings, in one file.
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$log
log4j.appender.file.Append=true
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
EOF

cat >"$properties" <<EOF
# A single KRaft node that is broker and controller at once, on loopback only.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$data
# One node: every internal topic has one replica.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=4
default.replication.factor=1
min.insync.replicas=1
# New consumer groups (projections, the forwarder's read-back) join without waiting.
group.initial.rebalance.delay.ms=0
# The adapter creates its topic itself, with one partition and no expiry (infra/event-bus/kafka.ts);
# a topic made by accident (a typo, a send before creation) should fail rather than appear with defaults.
num.partitions=1
auto.create.topics.enable=false
# Light on a small machine shared with other work.
num.network.threads=2
num.io.threads=2
background.threads=2
num.recovery.threads.per.data.dir=1
log.cleaner.threads=1
log.cleaner.dedupe.buffer.size=8388608
EOF

export KAFKA_LOG4J_OPTS="-Dlog4j.configuration=file:$dir/log4j.properties"
jvm=(-Xms256m -Xmx512m -XX:+UseSerialGC -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true "$KAFKA_LOG4J_OPTS" -cp "$lib/*")

# A fresh data folder gets a new cluster id; an existing one keeps its own (and its topics).
if [[ ! -f "$data/meta.properties" ]]; then
  say "formatting $data"
  cluster_id="$("$JAVA" -Xmx256m "$KAFKA_LOG4J_OPTS" -cp "$lib/*" kafka.tools.StorageTool random-uuid 2>>"$log")"
  "$JAVA" -Xmx256m "$KAFKA_LOG4J_OPTS" -cp "$lib/*" kafka.tools.StorageTool format -t "$cluster_id" -c "$properties" >>"$log" 2>&1 \
    || { say "formatting the storage failed; see $log"; exit 1; }
fi

say "starting the broker on 127.0.0.1:$KAFKA_PORT (log: $log)"
# setsid: the broker outlives this script and its terminal; the pid is the JVM's own (setsid and
# nohup exec it), so stop.sh signals the broker itself.
setsid nohup "$JAVA" "${jvm[@]}" kafka.Kafka "$properties" >>"$log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pidfile"

# Alive and not a zombie: the JVM is this shell's child, so once dead it lingers until reaped.
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
stop_started() {
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do alive "$pid" || break; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}
# Interrupted while waiting: leave nothing behind.
trap 'stop_started; exit 130' INT TERM

if ! (cd "$repo" && node --import tsx "$here/ready.ts" "127.0.0.1:$KAFKA_PORT" "$KAFKA_READY_TIMEOUT" "$pid" >&2); then
  echo "kafka did not become ready within $KAFKA_READY_TIMEOUT s; see $log" >&2
  stop_started
  exit 1
fi
trap - INT TERM

echo "KAFKA_BROKERS=127.0.0.1:$KAFKA_PORT" >"$envfile"
cat "$envfile"
