#!/usr/bin/env bash
# Stops the MongoDB stand-in that stack/mongo/start.sh started: only the process in its pid file
# (TERM, up to 10 s for the H2 store to close, then KILL). Data stays in $STACK_DIR/mongo/data.
set -euo pipefail

dir="${STACK_DIR:-/tmp/collections-stack}/mongo"
pid_file="$dir/pid"

[[ -f "$pid_file" ]] || exit 0
pid="$(cat "$pid_file")"
if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'org.collections.stack.StandIn'; then
  kill -TERM "$pid"
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "mongo stand-in (pid $pid) did not stop within 10 s; killing it" >&2
    kill -KILL "$pid"
  fi
fi
rm -f "$pid_file" "$dir/url"
