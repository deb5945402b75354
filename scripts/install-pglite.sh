#!/usr/bin/env bash
# install-pglite.sh: install PGlite (PostgreSQL compiled to WebAssembly), its
# socket server and its pgvector extension from npm into a cache, for the
# pgstore tests and benchmarks (scripts/pglite.sh starts the server).
#
# Pinned versions, verified together (PostgreSQL 18, vector 0.8.7):
#   @electric-sql/pglite@0.5.14
#   @electric-sql/pglite-socket@0.2.17
#   @electric-sql/pglite-pgvector@0.0.15
#
# Usage:  eval "$(scripts/install-pglite.sh)"
#
# stdout carries only `export CHITTA_PGLITE_DIR=...`; progress goes to stderr.
# The packages live in ${CHITTA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chitta}/pglite-0.5.14-socket-0.2.17-pgvector-0.0.15
# and a second run is a no-op once the marker file .installed exists.
# Needs node and npm.
set -euo pipefail

PGLITE=0.5.14
SOCKET=0.2.17
PGVECTOR=0.0.15
CACHE_ROOT="${CHITTA_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:?set HOME or CHITTA_CACHE_DIR}/.cache}/chitta}"
PREFIX="$CACHE_ROOT/pglite-$PGLITE-socket-$SOCKET-pgvector-$PGVECTOR"
MARKER="$PREFIX/.installed"
SERVER=node_modules/@electric-sql/pglite-socket/dist/scripts/server.js

log() { printf 'install-pglite: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

print_env() { printf 'export CHITTA_PGLITE_DIR=%q\n' "$PREFIX"; }

mkdir -p "$CACHE_ROOT"
# Serialise concurrent runs (parallel CI jobs sharing a cache).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$CACHE_ROOT/.pglite.lock"
	flock 9
fi

if [ -f "$MARKER" ] && [ -f "$PREFIX/$SERVER" ]; then
	log "already installed in $PREFIX"
	print_env
	exit 0
fi

for tool in node npm; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done

STAGE="$(mktemp -d "$CACHE_ROOT/.pglite-work.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT

log "installing @electric-sql/pglite@$PGLITE, pglite-socket@$SOCKET, pglite-pgvector@$PGVECTOR from npm"
printf '{"name":"chitta-pglite","private":true}\n' >"$STAGE/package.json"
(cd "$STAGE" && npm install --silent --no-audit --no-fund --save-exact \
	"@electric-sql/pglite@$PGLITE" \
	"@electric-sql/pglite-socket@$SOCKET" \
	"@electric-sql/pglite-pgvector@$PGVECTOR" >&2)
[ -f "$STAGE/$SERVER" ] || die "$SERVER missing after npm install"
for pkg in pglite:$PGLITE pglite-socket:$SOCKET pglite-pgvector:$PGVECTOR; do
	got="$(node -p "require('$STAGE/node_modules/@electric-sql/${pkg%%:*}/package.json').version")"
	[ "$got" = "${pkg#*:}" ] || die "@electric-sql/${pkg%%:*} is $got, want ${pkg#*:}"
done

rm -rf "$PREFIX"
mv "$STAGE" "$PREFIX"
trap - EXIT
touch "$MARKER"
log "installed into $PREFIX"
print_env
