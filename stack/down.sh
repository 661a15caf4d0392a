#!/usr/bin/env bash
# Stops the engines stack/up.sh started (only the processes named in their pid files). The
# PostgreSQL database is not a process and is kept (stack/postgres/stop.sh --drop drops it).
# Usage: bash stack/down.sh [postgres] [kafka] [elasticsearch] [mongo]   (default: all four)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export STACK_DIR="${STACK_DIR:-/tmp/collections-stack}"
engines=("$@")
[ ${#engines[@]} -gt 0 ] || engines=(postgres kafka elasticsearch mongo)
status=0
for engine in "${engines[@]}"; do
  bash "$here/$engine/stop.sh" || status=1
done
rm -f "$STACK_DIR/env"
exit $status
