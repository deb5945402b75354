#!/usr/bin/env bash
# test-claudecode.sh: the harnesses' end-to-end tests with the real Claude
# Code CLI (installed from npm into a cache by scripts/install-claude-code.sh)
# against a fake Anthropic API that each test serves on 127.0.0.1
# (examples/internal/fakeanthropic): the hook (`claude -p` runs a prompt,
# /compact and a follow-up with the hook configured as README says) and the
# MCP server (the fake model calls chitta's remember, then, in a second
# session, recall); each test reads what reached the API.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/install-claude-code.sh)"
for m in examples/precompact-hook examples/chitta; do
	go -C "$m" vet -tags claudecode ./...
	go -C "$m" run honnef.co/go/tools/cmd/staticcheck@v0.8.2 -tags claudecode ./...
	go -C "$m" test -tags claudecode -race -count=1 -run '^TestClaudeCode' -v . 2>&1 | grep -v '^\s*$'
	test "${PIPESTATUS[0]}" -eq 0
done
