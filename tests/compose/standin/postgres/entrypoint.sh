#!/bin/sh
# The official image's contract, in short: an empty PGDATA is initialised with the
# superuser POSTGRES_USER (password POSTGRES_PASSWORD) and the database POSTGRES_DB, then
# `postgres …` runs as the postgres user, listening on the container's network.
set -e
if [ "$1" = "postgres" ]; then
    mkdir -p "$PGDATA" /var/run/postgresql
    chown -R postgres:postgres "$PGDATA" /var/run/postgresql
    chmod 700 "$PGDATA"
    if [ ! -s "$PGDATA/PG_VERSION" ]; then
        user="${POSTGRES_USER:-postgres}"
        printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > /tmp/pwfile
        chown postgres /tmp/pwfile
        runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$PGDATA" -U "$user" --pwfile=/tmp/pwfile \
            --auth-local=trust --auth-host=scram-sha-256 >/dev/null
        rm -f /tmp/pwfile
        echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
        runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
        db="${POSTGRES_DB:-$user}"
        if [ "$db" != "postgres" ]; then
            runuser -u postgres -- /usr/lib/postgresql/15/bin/psql -U "$user" -d postgres -qc "CREATE DATABASE \"$db\""
        fi
        runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    fi
    shift
    exec runuser -u postgres -- /usr/lib/postgresql/15/bin/postgres -c listen_addresses='*' "$@"
fi
exec "$@"
