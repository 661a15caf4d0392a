#!/usr/bin/env bash
# Stops the engines stack/up.sh started (only the processes named in their pid files).
# Usage: bash stack/down.sh [kafka] [elasticsearch] [mongo]   (default: all three)
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export STACK_DIR="${STACK_DIR:-/tmp/collections-stack}"
engines=("$@")
[ ${#engines[@]} -gt 0 ] || engines=(kafka elasticsearch mongo)
status=0
for engine in "${engines[@]}"; do
  bash "$here/$engine/stop.sh" || status=1
done
rm -f "$STACK_DIR/env"
exit $status
