#!/usr/bin/env bash
# install-postgres.sh: make a real PostgreSQL server with pgvector available
# for the pgstore tests (scripts/postgres.sh starts one), next to PGlite:
# PGlite runs every client on one backend, so locks, concurrent DDL and
# pgx's default (prepared statement) protocol are only exercised here.
#
# - The server: the newest /usr/lib/postgresql/<major>/bin (Debian's
#   layout), or PG_CONFIG's bindir; when there is none, Debian's
#   `postgresql` package is installed with apt-get (root only).
# - pgvector: when the server's extension directory has no vector.control
#   of version $PGVECTOR, its source comes from the Go module proxy
#   (`go mod download github.com/pgvector/pgvector@v$PGVECTOR`, cached in
#   the module cache like any module), is built once into
#   ${CHITTA_CACHE_DIR:-~/.cache/chitta}/pgvector-$PGVECTOR-pg<major> with
#   the server's headers (when pg_config's include directory has none,
#   Debian's postgresql-server-dev-<major> of the server's version is
#   fetched with `apt-get download` and unpacked into the cache: no root,
#   and none of the clang and LLVM the package depends on) and installed
#   into the server's directories (`make install`: root, or a user who may
#   write them).
#
# Usage:  eval "$(scripts/install-postgres.sh)"
# - PgBouncer, for the tests behind a pooler: Debian's pgbouncer package
#   (apt-get, root only; left out without root).
#
# stdout carries only `export CHITTA_PG_BINDIR=...` (and CHITTA_PGBOUNCER=...
# when PgBouncer is there); progress goes to stderr.
# Exits 1 with the reason when something cannot be had (for instance, not
# root and pgvector not installed).
set -euo pipefail

PGVECTOR=0.8.6
CACHE_ROOT="${CHITTA_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:?set HOME or CHITTA_CACHE_DIR}/.cache}/chitta}"

log() { printf 'install-postgres: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

is_root() { [ "$(id -u)" = 0 ]; }
apt_install() {
	is_root || die "$* missing, and only root can install it (apt-get install $*)"
	command -v apt-get >/dev/null 2>&1 || die "$* missing and no apt-get to install it"
	log "apt-get install $*"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2 ||
		{ apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2; } ||
		die "apt-get install $* failed"
}

find_pg_config() {
	if [ -n "${PG_CONFIG:-}" ]; then
		printf '%s\n' "$PG_CONFIG"
		return
	fi
	local d
	d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
	[ -n "$d" ] && [ -x "$d/pg_config" ] && [ -x "$d/postgres" ] && printf '%s\n' "$d/pg_config"
}

mkdir -p "$CACHE_ROOT"
if command -v flock >/dev/null 2>&1; then
	exec 9>"$CACHE_ROOT/.postgres.lock"
	flock 9
fi

PGC="$(find_pg_config || true)"
if [ -z "$PGC" ]; then
	apt_install postgresql
	PGC="$(find_pg_config || true)"
	[ -n "$PGC" ] || die "no PostgreSQL server after installing Debian's postgresql package"
fi
BINDIR="$("$PGC" --bindir)"
[ -x "$BINDIR/postgres" ] && [ -x "$BINDIR/initdb" ] || die "$BINDIR has no postgres and initdb"
MAJOR="$("$PGC" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')"
CONTROL="$("$PGC" --sharedir)/extension/vector.control"

installed() { [ -f "$CONTROL" ] && grep -q "default_version = '$PGVECTOR'" "$CONTROL" && [ -f "$("$PGC" --pkglibdir)/vector.so" ]; }

if installed; then
	log "PostgreSQL $MAJOR ($BINDIR) has pgvector $PGVECTOR"
else
	BUILD="$CACHE_ROOT/pgvector-$PGVECTOR-pg$MAJOR"
	if [ ! -f "$BUILD/.built" ]; then
		command -v go >/dev/null 2>&1 || die "go is required to fetch pgvector's source from the Go module proxy"
		command -v make >/dev/null 2>&1 || die "make is required to build pgvector"
		[ -f "$("$PGC" --pgxs)" ] || die "$("$PGC" --pgxs) missing (Debian's postgresql-client-$MAJOR has it)"
		INCLUDE="$("$PGC" --includedir-server)"
		if [ ! -f "$INCLUDE/postgres.h" ]; then
			# The server's headers, unpacked from Debian's package into the
			# cache (no root, and none of the package's clang and LLVM).
			INCLUDE="$CACHE_ROOT/postgresql-server-dev-$MAJOR/usr/include/postgresql/$MAJOR/server"
			if [ ! -f "$INCLUDE/postgres.h" ]; then
				command -v apt-get >/dev/null 2>&1 && command -v dpkg >/dev/null 2>&1 ||
					die "$("$PGC" --includedir-server)/postgres.h missing and no apt-get to fetch postgresql-server-dev-$MAJOR"
				DEB="$(mktemp -d "$CACHE_ROOT/.pgdev-work.XXXXXX")"
				server_version="$(dpkg-query -W -f='${Version}' "postgresql-$MAJOR" 2>/dev/null || true)"
				log "fetching postgresql-server-dev-$MAJOR ${server_version:-(newest)} with apt-get download"
				(cd "$DEB" && { { [ -n "$server_version" ] && apt-get download -qq "postgresql-server-dev-$MAJOR=$server_version"; } ||
					apt-get download -qq "postgresql-server-dev-$MAJOR" ||
					{ apt-get update -qq && apt-get download -qq "postgresql-server-dev-$MAJOR"; }; }) >&2 2>/dev/null ||
					{ rm -rf "$DEB"; die "apt-get download postgresql-server-dev-$MAJOR failed"; }
				dpkg -x "$DEB"/postgresql-server-dev-"$MAJOR"_*.deb "$DEB/root" ||
					{ rm -rf "$DEB"; die "dpkg -x of postgresql-server-dev-$MAJOR failed"; }
				rm -rf "$CACHE_ROOT/postgresql-server-dev-$MAJOR"
				mv "$DEB/root" "$CACHE_ROOT/postgresql-server-dev-$MAJOR"
				rm -rf "$DEB"
				[ -f "$INCLUDE/postgres.h" ] || die "postgresql-server-dev-$MAJOR has no postgres.h"
			fi
		fi
		log "fetching pgvector $PGVECTOR's source from the Go module proxy"
		SRC="$(cd "$CACHE_ROOT" && go mod download -json "github.com/pgvector/pgvector@v$PGVECTOR" |
			sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
		[ -n "$SRC" ] && [ -f "$SRC/vector.control" ] || die "go mod download github.com/pgvector/pgvector@v$PGVECTOR gave no source"
		STAGE="$(mktemp -d "$CACHE_ROOT/.pgvector-work.XXXXXX")"
		trap 'rm -rf "$STAGE"' EXIT
		cp -R "$SRC/." "$STAGE"
		chmod -R u+w "$STAGE"
		log "building pgvector $PGVECTOR for PostgreSQL $MAJOR"
		# OPTFLAGS="": no -march=native, so the cached build runs on any
		# x86-64 the cache moves to; with_llvm=no: no JIT bitcode (no clang).
		make -C "$STAGE" -j "$(nproc 2>/dev/null || echo 2)" PG_CONFIG="$PGC" OPTFLAGS="" with_llvm=no includedir_server="$INCLUDE" >&2 ||
			die "building pgvector failed"
		rm -rf "$BUILD"
		mv "$STAGE" "$BUILD"
		trap - EXIT
		printf '%s\n' "$INCLUDE" >"$BUILD/.built"
	fi
	log "installing pgvector $PGVECTOR into PostgreSQL $MAJOR's directories"
	make -C "$BUILD" install PG_CONFIG="$PGC" OPTFLAGS="" with_llvm=no includedir_server="$(cat "$BUILD/.built")" >&2 ||
		die "make install of pgvector failed (it writes to $("$PGC" --sharedir) and $("$PGC" --pkglibdir): run as root)"
	installed || die "pgvector $PGVECTOR is not in $CONTROL after make install"
fi
# PgBouncer (transaction mode), for the tests of a store behind a pooler:
# Debian's package, installed as root when missing; without root it is
# left out (the tests that need it fail in CI and skip elsewhere).
PGBOUNCER="$(command -v pgbouncer || { [ -x /usr/sbin/pgbouncer ] && echo /usr/sbin/pgbouncer; } || true)"
if [ -z "$PGBOUNCER" ] && is_root; then
	# Optional: a failed install (no registry) leaves the server's tests.
	(apt_install pgbouncer) || log "PgBouncer not installed: the tests behind a pooler will not run"
	PGBOUNCER="$(command -v pgbouncer || echo /usr/sbin/pgbouncer)"
fi
if [ -x "$PGBOUNCER" ]; then
	log "PgBouncer: $PGBOUNCER"
	printf 'export CHITTA_PGBOUNCER=%q\n' "$PGBOUNCER"
else
	log "PgBouncer missing and not root: the tests behind a pooler will not run (apt-get install pgbouncer)"
fi
printf 'export CHITTA_PG_BINDIR=%q\n' "$BINDIR"
