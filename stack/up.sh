#!/usr/bin/env bash
# Starts the production engines that run here without Docker: Kafka, Elasticsearch and the
# MongoDB wire-protocol stand-in (mongo-java-server, not MongoDB), each from pinned Maven Central
# artifacts, on 127.0.0.1, and prepares a database on the PostgreSQL server that already runs
# (stack/README.md). Prints the environment to use (VAR=value lines) on stdout and keeps a copy in
# $STACK_DIR/env.
# Usage: bash stack/up.sh [postgres] [kafka] [elasticsearch] [mongo]   (default: all four)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export STACK_DIR="${STACK_DIR:-/tmp/collections-stack}"
mkdir -p "$STACK_DIR"
engines=("$@")
[ ${#engines[@]} -gt 0 ] || engines=(postgres kafka elasticsearch mongo)
for engine in "${engines[@]}"; do
  [ -f "$here/$engine/start.sh" ] || { echo "stack: no engine named $engine (postgres, kafka, elasticsearch, mongo)" >&2; exit 2; }
done

# One after another: Maven's local repository is not safe for concurrent downloads of the same
# plugin, and each start script waits for its own engine's readiness.
started=()
: > "$STACK_DIR/env.partial"
for engine in "${engines[@]}"; do
  if ! line="$(bash "$here/$engine/start.sh")"; then
    echo "stack: $engine failed to start; stopping what was started" >&2
    [ ${#started[@]} -eq 0 ] || bash "$here/down.sh" "${started[@]}" >&2
    exit 1
  fi
  started+=("$engine")
  echo "$line" >> "$STACK_DIR/env.partial"
done
mv "$STACK_DIR/env.partial" "$STACK_DIR/env"
cat "$STACK_DIR/env"
