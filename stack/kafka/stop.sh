#!/usr/bin/env bash
# Stops the broker stack/kafka/start.sh started, and only it: the process in its pid file, if that
# is still the broker (a pid can be reused). TERM first (a clean shutdown flushes the log), KILL
# after KAFKA_STOP_TIMEOUT seconds (30). Nothing to do without a pid file. Data stays in place.
set -euo pipefail

STACK_DIR="${STACK_DIR:-/tmp/collections-stack}"
KAFKA_STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
dir="$STACK_DIR/kafka"
pidfile="$dir/pid"

[[ -f "$pidfile" ]] || exit 0
pid="$(cat "$pidfile")"
if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null \
  && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "kafka.Kafka $dir/server.properties"; then
  kill -TERM "$pid"
  for _ in $(seq 1 $((KAFKA_STOP_TIMEOUT * 10))); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    echo "kafka: the broker ($pid) did not stop within $KAFKA_STOP_TIMEOUT s; killing it" >&2
    kill -KILL "$pid"
  fi
fi
rm -f "$pidfile" "$dir/env"
