#!/usr/bin/env bash
# Stops the Elasticsearch that start.sh started (its pid file under STACK_DIR/elasticsearch/),
# and nothing else: TERM to the process group start.sh made for it, a bounded wait
# (ELASTICSEARCH_STOP_TIMEOUT, default 30 s), then KILL. Removes the pid file. Data and logs stay.
set -euo pipefail

stack_dir="${STACK_DIR:-/tmp/collections-stack}"
timeout_s="${ELASTICSEARCH_STOP_TIMEOUT:-30}"
dir="$stack_dir/elasticsearch"
home="$dir/home"
pid_file="$dir/pid"

if [[ ! -f "$pid_file" ]]; then
  echo "elasticsearch: not running (no $pid_file)" >&2
  exit 0
fi
pid="$(cat "$pid_file")"
[[ "$pid" =~ ^[0-9]+$ ]] || { echo "elasticsearch: $pid_file holds no pid; removed" >&2; rm -f "$pid_file" "$dir/url"; exit 0; }

group_alive() { kill -0 -- "-$pid" 2>/dev/null; }

# The group is ours when its leader's command line names our home, or when the leader is gone
# but the group lives on: a pid is not handed out again while a process group still has it.
ours=false
if group_alive; then
  if [[ -r "/proc/$pid/cmdline" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$home/" && ours=true
  else
    ours=true
  fi
fi

if $ours; then
  kill -TERM -- "-$pid" 2>/dev/null || true
  started=$SECONDS
  while group_alive && ((SECONDS - started < timeout_s)); do sleep 0.5; done
  if group_alive; then
    echo "elasticsearch: still running $timeout_s s after TERM; killing process group $pid" >&2
    kill -KILL -- "-$pid" 2>/dev/null || true
    while group_alive; do sleep 0.2; done
  fi
  echo "elasticsearch: stopped (process group $pid)" >&2
else
  echo "elasticsearch: not running (pid $pid in $pid_file is gone or not ours)" >&2
fi
rm -f "$pid_file" "$dir/url"
