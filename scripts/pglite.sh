#!/usr/bin/env bash
# pglite.sh: start and stop a throw-away PostgreSQL 18 with pgvector (PGlite,
# WebAssembly, in memory) on 127.0.0.1 for the pgstore tests and benchmarks.
#
# As a command: run CMD with the server up and CHITTA_TEST_DSN exported,
# then stop the server (by PID) whatever CMD does:
#   bash scripts/pglite.sh go -C pgstore test ./...
# Sourced: pglite_start launches the server in the background, pglite_wait
# blocks until it listens and exports CHITTA_TEST_DSN, pglite_stop stops it
# (scripts/test.sh calls pglite_stop from its EXIT trap).
#
# When CHITTA_TEST_DSN is already set, nothing is started: that server is
# used. The packages come from scripts/install-pglite.sh (cached). Startup
# takes seconds on an idle machine and up to a minute on a busy one;
# CHITTA_PGLITE_TIMEOUT (seconds, default 240) bounds the wait.
# The DSN selects pgx's simple protocol: PGlite multiplexes every client
# connection onto one backend, so named prepared statements would collide.

PGLITE_PID=""
PGLITE_LOG=""
PGLITE_PORT=""
PGLITE_OWN=""

_pglite_log() { printf 'pglite: %s\n' "$*" >&2; }

# pglite_start: install if needed and launch the server in the background.
pglite_start() {
	if [ -n "${CHITTA_TEST_DSN:-}" ] && [ -z "$PGLITE_OWN" ]; then
		_pglite_log "CHITTA_TEST_DSN is set: using that server"
		return 0
	fi
	local root env_lines
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
	env_lines="$(bash "$root/install-pglite.sh")" || { _pglite_log "error: install-pglite.sh failed"; return 1; }
	eval "$env_lines"
	PGLITE_PORT="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')" ||
		{ _pglite_log "error: no free port"; return 1; }
	PGLITE_LOG="$(mktemp "${TMPDIR:-/tmp}/chitta-pglite.XXXXXX")"
	(cd "$CHITTA_PGLITE_DIR" && exec node node_modules/@electric-sql/pglite-socket/dist/scripts/server.js \
		--db=memory:// --host=127.0.0.1 --port="$PGLITE_PORT" \
		--extensions=@electric-sql/pglite-pgvector:vector --max-connections=4) >"$PGLITE_LOG" 2>&1 &
	PGLITE_PID=$!
	PGLITE_OWN=1
	_pglite_log "started PGlite (pid $PGLITE_PID) on 127.0.0.1:$PGLITE_PORT, log $PGLITE_LOG"
}

# pglite_wait: wait until the server listens; export CHITTA_TEST_DSN.
pglite_wait() {
	[ -n "$PGLITE_OWN" ] || return 0
	[ -n "${CHITTA_TEST_DSN:-}" ] && return 0
	local limit="${CHITTA_PGLITE_TIMEOUT:-240}" waited=0
	until grep -q 'listening on' "$PGLITE_LOG" 2>/dev/null; do
		if ! kill -0 "$PGLITE_PID" 2>/dev/null; then
			_pglite_log "error: the server exited before listening:"; cat "$PGLITE_LOG" >&2
			return 1
		fi
		if [ "$waited" -ge "$limit" ]; then
			_pglite_log "error: not listening after ${limit}s:"; cat "$PGLITE_LOG" >&2
			return 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
	_pglite_log "listening after ${waited}s"
	export CHITTA_TEST_DSN="postgres://postgres@127.0.0.1:$PGLITE_PORT/postgres?sslmode=disable&default_query_exec_mode=simple_protocol&pool_max_conns=2"
}

# pglite_stop: stop the server this shell started, by PID.
pglite_stop() {
	[ -n "$PGLITE_PID" ] || return 0
	if kill -0 "$PGLITE_PID" 2>/dev/null; then
		kill "$PGLITE_PID" 2>/dev/null || true
		local i
		for i in $(seq 1 20); do
			kill -0 "$PGLITE_PID" 2>/dev/null || break
			sleep 0.5
		done
		kill -0 "$PGLITE_PID" 2>/dev/null && kill -9 "$PGLITE_PID" 2>/dev/null
		wait "$PGLITE_PID" 2>/dev/null || true
		_pglite_log "stopped (pid $PGLITE_PID)"
	fi
	rm -f "$PGLITE_LOG"
	PGLITE_PID=""
	if [ -n "$PGLITE_OWN" ]; then
		unset CHITTA_TEST_DSN
		PGLITE_OWN=""
	fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	[ $# -gt 0 ] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }
	trap pglite_stop EXIT
	pglite_start
	pglite_wait
	"$@"
fi
