#!/usr/bin/env bash
# A database is not a process: stack/down.sh stops nothing here and keeps the data (the event
# log is the source of truth). `bash stack/postgres/stop.sh --drop` drops the database
# stack/postgres/start.sh prepared (POSTGRES_DB, default collections, on PGHOST:PGPORT as PGUSER).
set -euo pipefail

[[ "${1:-}" == "--drop" ]] || exit 0
export PGHOST="${PGHOST:-127.0.0.1}" PGPORT="${PGPORT:-5432}" PGUSER="${PGUSER:-postgres}"
database="${POSTGRES_DB:-collections}"
if [[ ! "$database" =~ ^[A-Za-z_][A-Za-z0-9_]{0,62}$ ]]; then
  echo "postgres: POSTGRES_DB must be letters, digits and '_', got \"$database\"" >&2
  exit 1
fi
psql -X -q -d postgres -v ON_ERROR_STOP=1 -c "DROP DATABASE IF EXISTS \"$database\" WITH (FORCE)"
echo "postgres: dropped database $database at $PGHOST:$PGPORT" >&2
