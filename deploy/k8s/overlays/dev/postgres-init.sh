#!/bin/bash
# Runs once, when the data directory is empty (the image's /docker-entrypoint-initdb.d), as the superuser.
# The same set-up as lore_devstack/database.py: migrations run as lore_owner (owns the database and its
# schemas), the services as lore_app (owns nothing, so row-level security applies to it). Idempotent;
# tests/contracts/test_manifests.py runs it against a real Postgres, then `lore migrate`.
set -euo pipefail
psql -v ON_ERROR_STOP=1 --no-psqlrc --username "$POSTGRES_USER" --dbname postgres \
  -v database="${LORE_DATABASE_NAME:-lore}" \
  -v owner_password="$LORE_OWNER_PASSWORD" -v app_password="$LORE_APP_PASSWORD" <<'SQL'
SELECT 'CREATE ROLE lore_owner' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'lore_owner') \gexec
SELECT 'CREATE ROLE lore_app' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'lore_app') \gexec
ALTER ROLE lore_owner WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'owner_password';
ALTER ROLE lore_app WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'app_password';
SELECT format('CREATE DATABASE %I OWNER lore_owner ENCODING %L TEMPLATE template0', :'database', 'UTF8')
  WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'database') \gexec
SELECT format('GRANT CONNECT, TEMPORARY ON DATABASE %I TO lore_app', :'database') \gexec
\connect :"database"
CREATE EXTENSION IF NOT EXISTS vector;
ALTER SCHEMA public OWNER TO lore_owner;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
SQL
