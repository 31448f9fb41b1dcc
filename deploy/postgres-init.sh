#!/bin/sh
# Run once by the postgres image on an empty data directory (docker-entrypoint-initdb.d;
# compose.scale-out.yml mounts it): the workers' own role, owner of their database and
# of nothing else: no superuser, no CREATEDB, CREATEROLE or REPLICATION. By hand:
#   POSTGRES_USER=postgres GIN_DB_PASSWORD=... sh deploy/postgres-init.sh
set -eu
: "${GIN_DB_PASSWORD:?set GIN_DB_PASSWORD}"
psql -v ON_ERROR_STOP=1 --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  -v role="${GIN_DB_USER:-gin}" -v db="${GIN_DB_NAME:-gin}" -v pw="$GIN_DB_PASSWORD" <<'SQL'
CREATE ROLE :"role" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
  PASSWORD :'pw';
CREATE DATABASE :"db" OWNER :"role";
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"db" TO :"role";
SQL
