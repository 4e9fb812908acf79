#!/usr/bin/env bash
# Starts a local PostgreSQL (Debian's postgresql package) for tests and for DATABASE_URL=postgresql://… runs,
# and makes sure the role `ngx` (password `ngx`, may create databases) and the database `ngx` exist.
# Prints the DATABASE_URL to use. Installs the package when missing and this is root.
set -euo pipefail
log() { printf '[postgres] %s\n' "$*" >&2; }

if ! command -v pg_lsclusters >/dev/null; then
  [ "$(id -u)" = 0 ] || { log "postgresql is not installed: apt-get install postgresql"; exit 1; }
  log "installing postgresql"
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
fi

read -r version cluster port status _ < <(pg_lsclusters -h | head -n 1) || true
if [ -z "${version:-}" ]; then
  version=$(find /usr/lib/postgresql -mindepth 1 -maxdepth 1 -printf '%f\n' | sort -V | tail -n 1)
  cluster=main
  pg_createcluster "$version" "$cluster" >&2
  read -r version cluster port status _ < <(pg_lsclusters -h | head -n 1)
fi
if [ "$status" != online ]; then
  # pg_ctlcluster talks on stdout ("Removed stale pid file."); stdout carries only the URL.
  pg_ctlcluster "$version" "$cluster" start >&2
  log "started PostgreSQL $version/$cluster on port $port"
fi

as_postgres() { runuser -u postgres -- psql -p "$port" -v ON_ERROR_STOP=1 -tAc "$1"; }
[ "$(as_postgres "SELECT 1 FROM pg_roles WHERE rolname='ngx'")" = 1 ] ||
  as_postgres "CREATE ROLE ngx LOGIN CREATEDB PASSWORD 'ngx'" >/dev/null
[ "$(as_postgres "SELECT 1 FROM pg_database WHERE datname='ngx'")" = 1 ] ||
  as_postgres "CREATE DATABASE ngx OWNER ngx" >/dev/null

echo "postgresql://ngx:ngx@127.0.0.1:$port/ngx"
