#!/bin/sh
# The PostgreSQL stand-in's entrypoint (scripts/containers/stand-ins.ts): Debian's PostgreSQL 15 run
# as the official image runs it, with the variables compose.yaml passes. On an empty volume it makes
# the cluster (POSTGRES_USER, POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE, POSTGRES_DB), with a first
# server on the Unix socket only, as the official image does; then it serves on TCP.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
if [ "${1#-}" != "$1" ]; then set -- postgres "$@"; fi
if [ "$1" != postgres ]; then exec "$@"; fi
shift
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE"); fi
user=${POSTGRES_USER:-postgres}
db=${POSTGRES_DB:-$user}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres stand-in: POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE is required on an empty volume" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s' "$POSTGRES_PASSWORD" >"$pwfile"
  # shellcheck disable=SC2086
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 -D "$PGDATA" ${POSTGRES_INITDB_ARGS:-}
  rm -f "$pwfile"
  printf 'host all all all scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start
  if [ "$db" != postgres ]; then createdb --username="$user" "$db"; fi
  pg_ctl -D "$PGDATA" -m fast -w stop
  echo "postgres stand-in: initialised $PGDATA (user $user, database $db)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
