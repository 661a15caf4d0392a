#!/usr/bin/env bash
# Prepares the event log's and the stored files' database on a PostgreSQL server that already
# runs (the machine's, or one PGHOST names): nothing is downloaded or started here. Creates the
# database if missing and prints the three variables that point at it.
#
#   PGHOST      (default 127.0.0.1), PGPORT (default 5432), PGUSER (default postgres): the server
#               and the user, as psql reads them; PGPASSWORD or ~/.pgpass for a password
#   POSTGRES_DB (default collections): the database, created when missing
#   POSTGRES_READY_TIMEOUT (default 10): seconds to wait for the server to answer
#
# On success prints exactly three lines on stdout, EVENTSTORE_URL=..., FILES_URL=... and
# QUESTION_LOG_URL=..., and nothing else there. The URLs hold no password: the driver reads PGPASSWORD as psql does.
# The database is never dropped by stack/down.sh (it holds the log); stack/postgres/stop.sh
# --drop does it on request.
set -euo pipefail

host="${PGHOST:-127.0.0.1}"
port="${PGPORT:-5432}"
user="${PGUSER:-postgres}"
database="${POSTGRES_DB:-collections}"
timeout="${POSTGRES_READY_TIMEOUT:-10}"
export PGHOST="$host" PGPORT="$port" PGUSER="$user" PGCONNECT_TIMEOUT="${PGCONNECT_TIMEOUT:-5}"

say() { echo "postgres: $*" >&2; }

if [[ ! "$database" =~ ^[A-Za-z_][A-Za-z0-9_]{0,62}$ ]]; then
  say "POSTGRES_DB must be letters, digits and '_' (not starting with a digit), at most 63, got \"$database\""
  exit 1
fi
for tool in pg_isready psql; do
  command -v "$tool" >/dev/null 2>&1 || {
    say "$tool is not installed (the PostgreSQL client tools: apt-get install postgresql-client)"
    exit 1
  }
done

deadline=$((SECONDS + timeout))
until pg_isready -q -h "$host" -p "$port"; do
  if ((SECONDS >= deadline)); then
    say "no PostgreSQL server answers at $host:$port. This script does not start one: point it at a" \
      "running server with PGHOST and PGPORT (and PGUSER, PGPASSWORD), e.g." \
      "PGHOST=db.example.org bash stack/up.sh postgres, or start the machine's (service postgresql start)."
    exit 1
  fi
  sleep 0.5
done

# psql interpolates :'db' (a quoted literal) in what it reads, not in -c.
database_exists() {
  psql -X -q -At -d postgres -v ON_ERROR_STOP=1 -v db="$database" <<<"SELECT 1 FROM pg_database WHERE datname = :'db'"
}

# The server answers: the user must be able to log in and list the databases.
if ! exists="$(database_exists 2>&1)"; then
  say "PostgreSQL at $host:$port refused user $user: $exists (set PGUSER and PGPASSWORD)"
  exit 1
fi
if [[ "$exists" != "1" ]]; then
  if out="$(psql -X -q -d postgres -v ON_ERROR_STOP=1 -c "CREATE DATABASE \"$database\"" 2>&1)"; then
    say "created database $database at $host:$port"
  elif [[ "$(database_exists 2>/dev/null)" != "1" ]]; then
    # (Not an error when another stack:up created it meanwhile.)
    say "could not create database $database at $host:$port as $user: $out"
    exit 1
  fi
fi

url_host="$host"
[[ "$host" == *:* ]] && url_host="[$host]"
url="postgres://$user@$url_host:$port/$database"
echo "EVENTSTORE_URL=$url"
echo "FILES_URL=$url"
echo "QUESTION_LOG_URL=$url"
