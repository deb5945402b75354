#!/usr/bin/env bash
# test-llamacpp.sh: install the prebuilt llama.cpp (scripts/install-llama.sh)
# and run every test behind the llamacpp build tag with the race detector.
# Fails loudly if the setup fails. Extra arguments go to `go test`.
#
# Usage: scripts/test-llamacpp.sh [go test flags]
set -euo pipefail
cd "$(dirname "$0")/.."

if ! env_lines="$(scripts/install-llama.sh)"; then
	echo "test-llamacpp: llama.cpp setup failed (scripts/install-llama.sh)" >&2
	exit 1
fi
eval "$env_lines"

if ! pkg-config --exists llama; then
	echo "test-llamacpp: pkg-config cannot find llama.pc (PKG_CONFIG_PATH=$PKG_CONFIG_PATH)" >&2
	exit 1
fi
if [ ! -f "${CHITTA_LLAMA_VOCAB:-}" ]; then
	echo "test-llamacpp: vocabulary missing (CHITTA_LLAMA_VOCAB=${CHITTA_LLAMA_VOCAB:-})" >&2
	exit 1
fi

# The llamacpp tests never skip when CI=true; set it here too so that a
# missing resource fails this script rather than skipping silently.
export CI=true
export GGML_NO_BACKTRACE="${GGML_NO_BACKTRACE:-1}"
export CGO_ENABLED=1

# Packages whose files mention the tag, plus internal/testkit/tinybert, whose
# real-vocabulary test needs CHITTA_LLAMA_VOCAB.
mapfile -t pkgs < <(grep -rl --include='*.go' -E '^//go:build .*llamacpp' . |
	xargs -n1 dirname | sort -u)
pkgs+=(./internal/testkit/tinybert)
echo "test-llamacpp: go vet and staticcheck -tags llamacpp ${pkgs[*]}" >&2
go vet -tags llamacpp "${pkgs[@]}"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags llamacpp "${pkgs[@]}"
echo "test-llamacpp: go test -race -count=1 -tags llamacpp ${pkgs[*]}" >&2
go test -race -count=1 -tags llamacpp "$@" "${pkgs[@]}"
