#!/usr/bin/env bash
# test-claudecode.sh: the hook's end-to-end test with the real Claude Code
# CLI (installed from npm into a cache by scripts/install-claude-code.sh)
# against a fake Anthropic API that the test serves on 127.0.0.1:
# `claude -p` runs a prompt, /compact and a follow-up with the hook
# configured as README says, and the test reads what reached the API.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/install-claude-code.sh)"
go -C examples/precompact-hook vet -tags claudecode ./...
go -C examples/precompact-hook run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags claudecode ./...
go -C examples/precompact-hook test -tags claudecode -race -count=1 -run '^TestClaudeCodeCompact$' -v .
