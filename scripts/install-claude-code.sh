#!/usr/bin/env bash
# install-claude-code.sh: install the Claude Code CLI from npm into a cache,
# for the end-to-end test of the hook (examples/precompact-hook,
# TestClaudeCodeCompact, build tag claudecode), which runs it against a fake
# Anthropic API on 127.0.0.1: no account, key or network beyond npm needed.
#
# Pinned version: @anthropic-ai/claude-code@2.1.332 (its native binary comes
# from the optional platform package, @anthropic-ai/claude-code-<platform>).
#
# Usage:  eval "$(scripts/install-claude-code.sh)"
#
# stdout carries only `export CHITTA_CLAUDE=...` (the CLI binary); progress
# goes to stderr. The package lives in
# ${CHITTA_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chitta}/claude-code-2.1.332
# and a second run is a no-op once the marker file .installed exists.
# Needs node and npm.
set -euo pipefail

VERSION=2.1.332
CACHE_ROOT="${CHITTA_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME:?set HOME or CHITTA_CACHE_DIR}/.cache}/chitta}"
PREFIX="$CACHE_ROOT/claude-code-$VERSION"
MARKER="$PREFIX/.installed"
PKG=node_modules/@anthropic-ai/claude-code
BIN="$PKG/bin/claude.exe"

log() { printf 'install-claude-code: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

print_env() { printf 'export CHITTA_CLAUDE=%q\n' "$PREFIX/$BIN"; }

mkdir -p "$CACHE_ROOT"
# Serialise concurrent runs (parallel CI jobs sharing a cache).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$CACHE_ROOT/.claude-code.lock"
	flock 9
fi

if [ -f "$MARKER" ] && [ -x "$PREFIX/$BIN" ]; then
	log "already installed in $PREFIX"
	print_env
	exit 0
fi

for tool in node npm; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done

STAGE="$(mktemp -d "$CACHE_ROOT/.claude-code-work.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT

log "installing @anthropic-ai/claude-code@$VERSION from npm"
printf '{"name":"chitta-claude-code","private":true}\n' >"$STAGE/package.json"
# The package's postinstall copies the platform's native binary over its
# placeholder; it is run explicitly below, whatever npm's script policy.
(cd "$STAGE" && npm install --silent --no-audit --no-fund --save-exact --ignore-scripts \
	"@anthropic-ai/claude-code@$VERSION" >&2)
(cd "$STAGE/$PKG" && node install.cjs >&2)
got="$("$STAGE/$BIN" --version 2>/dev/null || true)"
case "$got" in
"$VERSION "*) ;;
*) die "$BIN --version printed '$got', want $VERSION" ;;
esac

rm -rf "$PREFIX"
mv "$STAGE" "$PREFIX"
trap - EXIT
touch "$MARKER"
log "installed into $PREFIX"
print_env
