#!/usr/bin/env bash
# postgres.sh: start and stop a throw-away PostgreSQL server with pgvector
# (Debian's, see scripts/install-postgres.sh) on 127.0.0.1, for the pgstore
# tests that PGlite cannot tell apart: locks, concurrent DDL, many backends
# and pgx's default protocol (prepared statements).
#
# As a command: run CMD with the server up and CHITTA_TEST_DSN exported,
# then stop the server (by PID) whatever CMD does:
#   bash scripts/postgres.sh go -C pgstore test -tags pgserver ./...
# (-tags pgserver adds the tests PGlite cannot run: pgstore/server_test.go)
# Sourced: postgres_start initialises a cluster in a temporary directory and
# launches the server in the background, postgres_wait blocks until it
# accepts connections and sets CHITTA_PG_DSN, postgres_stop stops it and
# removes the directory. The cluster trusts local connections (it listens
# on 127.0.0.1 only and lives as long as the tests), except the members of
# the role chitta_password, who must give their password (scram-sha-256),
# so that tests can meet a real authentication failure; it runs without
# fsync.
# As root, initdb and the server run as the user postgres (Debian's package
# creates it), since PostgreSQL refuses to run as root.
# When install-postgres.sh found PgBouncer, postgres_wait also starts it in
# front of the server in transaction mode and sets CHITTA_PGBOUNCER_DSN;
# postgres_stop stops it by PID first.

POSTGRES_PID=""
POSTGRES_JOB=""
POSTGRES_DIR=""
POSTGRES_PORT=""
PGBOUNCER_PID=""

_postgres_log() { printf 'postgres: %s\n' "$*" >&2; }

# _postgres_as CMD...: run CMD as the server's user.
_postgres_as() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# _postgres_free_port prints a TCP port free on 127.0.0.1.
_postgres_free_port() {
	node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})' 2>/dev/null ||
		python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])'
}

# postgres_start: install if needed, create a cluster and launch the server.
postgres_start() {
	local root env_lines
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
	if [ -z "${CHITTA_PG_BINDIR:-}" ]; then # set by an install-postgres.sh run already
		env_lines="$(bash "$root/install-postgres.sh")" || { _postgres_log "error: install-postgres.sh failed"; return 1; }
		eval "$env_lines"
	fi
	if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
		_postgres_log "error: running as root and there is no user postgres to run the server as"
		return 1
	fi
	POSTGRES_DIR="$(mktemp -d "${TMPDIR:-/tmp}/chitta-postgres.XXXXXX")"
	[ "$(id -u)" = 0 ] && chown postgres "$POSTGRES_DIR"
	_postgres_as "$CHITTA_PG_BINDIR/initdb" -D "$POSTGRES_DIR/data" -U postgres --auth=trust \
		--encoding=UTF8 --locale=C.UTF-8 >"$POSTGRES_DIR/initdb.log" 2>&1 ||
		{ _postgres_log "error: initdb failed:"; cat "$POSTGRES_DIR/initdb.log" >&2; return 1; }
	# Members of the role chitta_password (created once the server is up)
	# authenticate with a password; everyone else is trusted.
	_postgres_as sh -c 'f="$1/data/pg_hba.conf"; { echo "host all +chitta_password 127.0.0.1/32 scram-sha-256"; cat "$f"; } >"$f.new" && mv "$f.new" "$f"' sh "$POSTGRES_DIR" ||
		{ _postgres_log "error: cannot write pg_hba.conf"; return 1; }
	POSTGRES_PORT="$(_postgres_free_port)" || { _postgres_log "error: no free port"; return 1; }
	_postgres_as "$CHITTA_PG_BINDIR/postgres" -D "$POSTGRES_DIR/data" -h 127.0.0.1 -p "$POSTGRES_PORT" \
		-k "$POSTGRES_DIR" -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
		-c max_connections=100 >"$POSTGRES_DIR/server.log" 2>&1 &
	POSTGRES_JOB=$!
	_postgres_log "starting PostgreSQL ($CHITTA_PG_BINDIR) on 127.0.0.1:$POSTGRES_PORT, log $POSTGRES_DIR/server.log"
}

# postgres_wait: wait until the server accepts connections; set CHITTA_PG_DSN.
postgres_wait() {
	[ -n "$POSTGRES_DIR" ] || return 1
	local waited=0 limit="${CHITTA_POSTGRES_TIMEOUT:-120}"
	until "$CHITTA_PG_BINDIR/pg_isready" -q -h 127.0.0.1 -p "$POSTGRES_PORT"; do
		if ! kill -0 "$POSTGRES_JOB" 2>/dev/null; then
			_postgres_log "error: the server exited before accepting connections:"; cat "$POSTGRES_DIR/server.log" >&2
			return 1
		fi
		if [ "$waited" -ge "$limit" ]; then
			_postgres_log "error: not accepting connections after ${limit}s:"; cat "$POSTGRES_DIR/server.log" >&2
			return 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
	# The postmaster's PID, to stop it by (as root, $! is runuser's).
	POSTGRES_PID="$(head -n 1 "$POSTGRES_DIR/data/postmaster.pid")"
	_postgres_log "accepting connections after ${waited}s (pid $POSTGRES_PID)"
	CHITTA_PG_DSN="postgres://postgres@127.0.0.1:$POSTGRES_PORT/postgres?sslmode=disable"
	"$CHITTA_PG_BINDIR/psql" -q -X "$CHITTA_PG_DSN" -c "CREATE ROLE chitta_password NOLOGIN" >/dev/null ||
		{ _postgres_log "error: cannot create the role chitta_password"; return 1; }
	export CHITTA_PG_DSN
	# Optional, as its install is: without it the tests behind a pooler
	# fail in CI (CHITTA_PGBOUNCER_DSN unset) and skip elsewhere.
	_pgbouncer_start || _postgres_log "going on without PgBouncer"
}

# _pgbouncer_start: when install-postgres.sh found PgBouncer, start it in
# front of the server in transaction mode (every transaction on whichever
# backend is free, as the poolers of hosted PostgreSQL do) and set
# CHITTA_PGBOUNCER_DSN (pgx's simple protocol: PgBouncer 1.18 keeps no
# prepared statements across backends).
_pgbouncer_start() {
	[ -n "${CHITTA_PGBOUNCER:-}" ] || return 0
	local port waited=0
	port="$(_postgres_free_port)" || { _postgres_log "error: no free port for PgBouncer"; return 1; }
	printf '"postgres" ""\n' >"$POSTGRES_DIR/pgbouncer.users"
	cat >"$POSTGRES_DIR/pgbouncer.ini" <<-INI
		[databases]
		* = host=127.0.0.1 port=$POSTGRES_PORT
		[pgbouncer]
		listen_addr = 127.0.0.1
		listen_port = $port
		unix_socket_dir =
		auth_type = trust
		auth_file = $POSTGRES_DIR/pgbouncer.users
		pool_mode = transaction
		default_pool_size = 4
		ignore_startup_parameters = extra_float_digits
		pidfile = $POSTGRES_DIR/pgbouncer.pid
		logfile = $POSTGRES_DIR/pgbouncer.log
	INI
	: >"$POSTGRES_DIR/pgbouncer.log"
	[ "$(id -u)" = 0 ] && chown postgres "$POSTGRES_DIR"/pgbouncer.*
	_postgres_as "$CHITTA_PGBOUNCER" -d "$POSTGRES_DIR/pgbouncer.ini" >"$POSTGRES_DIR/pgbouncer.out" 2>&1 ||
		{ _postgres_log "error: PgBouncer did not start:"; cat "$POSTGRES_DIR/pgbouncer.out" "$POSTGRES_DIR/pgbouncer.log" >&2; return 1; }
	until [ -s "$POSTGRES_DIR/pgbouncer.pid" ] && "$CHITTA_PG_BINDIR/pg_isready" -q -h 127.0.0.1 -p "$port"; do
		if [ "$waited" -ge 30 ]; then
			_postgres_log "error: PgBouncer not accepting connections after 30s:"; cat "$POSTGRES_DIR/pgbouncer.out" "$POSTGRES_DIR/pgbouncer.log" >&2
			return 1
		fi
		sleep 1
		waited=$((waited + 1))
	done
	PGBOUNCER_PID="$(cat "$POSTGRES_DIR/pgbouncer.pid")"
	_postgres_log "PgBouncer in transaction mode on 127.0.0.1:$port (pid $PGBOUNCER_PID)"
	export CHITTA_PGBOUNCER_DSN="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable&default_query_exec_mode=simple_protocol"
}

# _postgres_kill PID SECONDS: when PID runs, send it SIGINT, wait up to
# SECONDS for it to exit, then SIGKILL it; fails when PID is empty or gone.
_postgres_kill() {
	[ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 1
	kill -INT "$1" 2>/dev/null || true
	local i
	for i in $(seq 1 $(($2 * 2))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.5
	done
	kill -9 "$1" 2>/dev/null || true
}

# postgres_stop: stop the server (and PgBouncer) this shell started, by
# PID, and remove its directory.
postgres_stop() {
	[ -n "$POSTGRES_DIR" ] || return 0
	if [ -z "$PGBOUNCER_PID" ] && [ -s "$POSTGRES_DIR/pgbouncer.pid" ]; then
		PGBOUNCER_PID="$(cat "$POSTGRES_DIR/pgbouncer.pid")"
	fi
	# SIGINT: PgBouncer's safe shutdown (after the transactions in flight)
	# and PostgreSQL's fast one; SIGKILL after the wait.
	_postgres_kill "$PGBOUNCER_PID" 10 && _postgres_log "stopped PgBouncer (pid $PGBOUNCER_PID)"
	PGBOUNCER_PID=""
	unset CHITTA_PGBOUNCER_DSN
	if [ -z "$POSTGRES_PID" ] && [ -f "$POSTGRES_DIR/data/postmaster.pid" ]; then
		POSTGRES_PID="$(head -n 1 "$POSTGRES_DIR/data/postmaster.pid")"
	fi
	_postgres_kill "$POSTGRES_PID" 20 && _postgres_log "stopped (pid $POSTGRES_PID)"
	[ -n "$POSTGRES_JOB" ] && { wait "$POSTGRES_JOB" 2>/dev/null || true; }
	rm -rf "$POSTGRES_DIR"
	POSTGRES_PID=""
	POSTGRES_JOB=""
	POSTGRES_DIR=""
	unset CHITTA_PG_DSN
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	[ $# -gt 0 ] || { echo "usage: $0 CMD [ARGS...]" >&2; exit 2; }
	trap postgres_stop EXIT
	postgres_start
	postgres_wait
	CHITTA_TEST_DSN="$CHITTA_PG_DSN" "$@"
fi
