#!/usr/bin/env bash
# The whole chitta test suite, as CI runs it (.ci/run calls this script):
# gofmt, go vet (for Linux, and for Windows and macOS to check that they
# build), staticcheck and `go test -race` for the root module and each
# nested example module, then the llama.cpp adapter tests (which install
# llama.cpp's headers and prebuilt libraries from npm into a cache first) and
# the hook's end-to-end test with the real Claude Code CLI (installed from npm
# into a cache) against a fake Anthropic API on 127.0.0.1.
# Modules that require the pgstore module run against a PostgreSQL with
# pgvector: scripts/pglite.sh starts PGlite (from npm, cached) on 127.0.0.1
# at the start and stops it by PID on exit, unless CHITTA_TEST_DSN names a
# server already.
# pgstore and the other modules' TestPostgres tests then run once more on a
# real PostgreSQL server with pgvector (scripts/postgres.sh; installed by
# scripts/install-postgres.sh: a missing server with apt-get, as root; the
# server's headers with apt-get download; pgvector from the Go module proxy;
# PgBouncer with apt-get, as root, for the pgstore tests behind a pooler).
# Needs only Go, git, node, make, and the Go/npm/Debian package registries.
set -euo pipefail
cd "$(dirname "$0")/.."

STATICCHECK=honnef.co/go/tools/cmd/staticcheck@v0.8.2
# Nested modules (own go.mod, `replace github.com/chitta-go/chitta => ../..`).
# Every go.mod in the tree is a module to test: the root, the nested example
# modules and the sub-modules that keep heavy dependencies (SDK adapters,
# tokenizers, database drivers) out of the root module.
MODULES=(.)
while IFS= read -r m; do
  MODULES+=("$(dirname "$m")")
done < <(find . -name go.mod -not -path ./go.mod -not -path '*/node_modules/*' \
  -not -path '*/testdata/*' -not -path './.git/*' | sed 's#^\./##' | sort)

step() { printf '\n== %s (%s)\n' "$*" "$(date -u +%T)"; }

# staticcheck is built once for this machine, so that it can also check
# the code built for Windows (go run would build it for GOOS).
SC_BIN="${XDG_CACHE_HOME:-$HOME/.cache}/chitta/bin"
step "build staticcheck"
GOBIN="$SC_BIN" GOOS= GOARCH= go install "$STATICCHECK"

# The PostgreSQL test server starts in the background now (it can take a
# minute on a busy machine) and is waited for before the first module that
# needs it.
# shellcheck source=scripts/pglite.sh
source scripts/pglite.sh
trap pglite_stop EXIT
pglite_start

step "gofmt"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  echo "gofmt -l lists files that need formatting:"; echo "$unformatted"; exit 1
fi

for m in "${MODULES[@]}"; do
  if grep -q 'github.com/chitta-go/chitta/pgstore' "$m/go.mod"; then
    step "PostgreSQL test server"
    pglite_wait
  fi
  step "go vet ($m)"
  go -C "$m" vet ./...
  # Every module, tests included, must build for the other systems users
  # run (the root module did not build on Windows: coder/hnsw, which its
  # graphs use, does not; see store_hnsw_windows.go). A module that has no
  # file a build constraint leaves out here and imports neither syscall,
  # os/signal nor golang.org/x/sys builds for them as it builds here
  # (given its dependencies do, the root module's checked in its own turn),
  # so only the others are vetted again: on a cold cache each extra vet
  # compiles every dependency once more (about a minute a module).
  # (Listed into a variable first: under pipefail, go list killed by
  # grep -q's early exit would read as no match.)
  listed=$(go -C "$m" list -e -test -f '{{range .IgnoredGoFiles}}ignored {{end}}{{range .Imports}}{{.}} {{end}}' ./...)
  if grep -qE '(^| )(ignored|syscall|os/signal|golang.org/x/sys/[a-z]+)( |$)' <<<"$listed"; then
    for os in windows darwin; do
      GOOS=$os go -C "$m" vet ./...
    done
    # Code only Windows builds (file locks, the store without graphs) is
    # checked as the rest is: code unused there was not seen.
    step "staticcheck for windows ($m)"
    (cd "$m" && GOOS=windows "$SC_BIN/staticcheck" ./...)
  else
    echo "(no OS-specific code: not vetted again for windows and darwin)"
  fi
  step "staticcheck ($m)"
  (cd "$m" && "$SC_BIN/staticcheck" ./...)
  step "go test -race ($m)"
  # go test's default of 10 minutes a package is too tight for the root
  # package under -race on a slow or busy 2-core machine (it passes in a few
  # minutes on a quiet one); CI's own cap is 90 minutes for the whole run.
  go -C "$m" test -race -count=1 -timeout 30m ./...
done

# pgstore once more on a real PostgreSQL server (Debian's, pgvector built
# from its source on the Go module proxy; scripts/install-postgres.sh), and
# the TestPostgres* tests of the other modules that use it: PGlite runs
# every client on one backend, so it cannot show a race between sessions,
# a lock, or a statement that fails only as a prepared statement (pgx's
# default protocol, which PGlite cannot run). Installing needs root when the
# server or pgvector is missing; outside CI a machine that cannot have them
# is told so and goes on, in CI it fails.
pg_users=()
for m in "${MODULES[@]}"; do
  if [ "$m" != pgstore ] && grep -q 'github.com/chitta-go/chitta/pgstore' "$m/go.mod"; then
    pg_users+=("$m")
  fi
done
pg_server_tests() {
  # -tags pgserver: the tests only a server with a backend per connection
  # can run (pgstore/server_test.go), and those behind its PgBouncer.
  go -C pgstore vet -tags pgserver ./...
  go -C pgstore test -race -count=1 -tags pgserver ./...
  local m
  for m in "${pg_users[@]}"; do
    go -C "$m" vet -tags pgserver ./...
    go -C "$m" test -race -count=1 -tags pgserver -run '^TestPostgres' ./...
  done
}
step "pgstore and the TestPostgres tests of ${pg_users[*]} on a PostgreSQL server (scripts/postgres.sh)"
if pg_env=$(bash scripts/install-postgres.sh); then
  eval "$pg_env" # CHITTA_PG_BINDIR: postgres_start installs nothing again
  # shellcheck source=scripts/postgres.sh
  source scripts/postgres.sh
  trap 'postgres_stop; pglite_stop' EXIT
  pglite_stop # every PGlite pass is done
  postgres_start
  postgres_wait
  CHITTA_TEST_DSN="$CHITTA_PG_DSN" pg_server_tests
  postgres_stop
elif [ -n "${CI:-}" ] && [ "${CI:-}" != 0 ] && [ "${CI:-}" != false ]; then
  echo "missing in CI: a PostgreSQL server with pgvector (scripts/install-postgres.sh failed above)"; exit 1
else
  echo "(no PostgreSQL server with pgvector here: pgstore was tested on PGlite only)"
fi

if [ -f scripts/test-llamacpp.sh ]; then
  step "llama.cpp adapter (build tag llamacpp)"
  bash scripts/test-llamacpp.sh
fi
step "Claude Code end to end (build tag claudecode)"
bash scripts/test-claudecode.sh
step "all tests passed"
