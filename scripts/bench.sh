#!/usr/bin/env bash
# Reproduces every performance figure in BENCHMARKS.md in one run and prints
# the table (markdown) on stdout; the raw `go test -bench` output goes to
# out/bench.txt. Usage: bash scripts/bench.sh [benchtime]   (default 1s)
# The 100 000-memory store benchmarks build large fixtures and coder/hnsw
# graphs: expect 3–5 minutes on 2 cores (BENCHMARKS.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BT=${1:-1s}
mkdir -p out
raw=out/bench.txt
: > "$raw"
{
  echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(go version) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
} | tee -a "$raw" >&2

bench() { # package pattern [extra go test flags...]
  local pkg=$1 pat=$2; shift 2
  echo "== $pkg $pat" >&2
  go test -run '^$' -bench "$pat" -benchtime "$BT" -count 1 "$@" "$pkg" | tee -a "$raw" >&2
}

bench ./internal/vecmath 'BenchmarkCosine'
bench ./internal/scan 'BenchmarkDots'
bench . '^(BenchmarkEstimateTokens|BenchmarkCompact|BenchmarkHashEmbedder|BenchmarkRecompact)$'
# The store: exact recall vs a plain scan and vs coder/hnsw graphs at 1 000–100 000
# memories, batched recall, Add, save/load, heap per memory, Compact against
# 100 000 memories, and the coder/hnsw recall measurements the issue quotes.
bench . '^(BenchmarkRecall|BenchmarkRecallBatch|BenchmarkAdd|BenchmarkStoreFile|BenchmarkStoreHeap|BenchmarkCompactStore|BenchmarkHNSWRecallQuality)$' -benchmem -timeout 60m
# Issue #16 and #14-C2: re-compaction against 100 000 memories (coverage cache),
# default vs sized caches at 6 000 messages, allocated bytes per message at 100 000
# messages. Three runs each: the machine is noisy, read ratios within one run.
bench . '^(BenchmarkRecompactStore|BenchmarkRecompactLarge|BenchmarkCompactHeap)$' -benchmem -count 3 -timeout 60m
# Recall and RecallBatch against peers in one run (chromem-go lives in its own
# module so that it never enters chitta's go.mod): copy-vectors is the float32
# floor, flop-roof the float32 compute floor of the 60-query batch.
echo "== bench/peers" >&2
go -C bench/peers test -run '^$' -bench . -benchtime "$BT" -count 3 -timeout 60m . | tee -a "$raw" >&2
bench ./examples/internal/retention 'BenchmarkSelect'
if [ -f scripts/install-llama.sh ]; then
  eval "$(bash scripts/install-llama.sh)"
  bench ./llamacpp 'BenchmarkEmbed' -tags llamacpp
fi
# pgstore on PGlite (PostgreSQL 18 + pgvector in WebAssembly) next to
# HNSWStore: opt-in (CHITTA_BENCH_PG=1; sizes from CHITTA_PG_BENCH_SIZES,
# default 10000,100000), one fresh server per size (a few minutes for
# 100 000 on an idle 2-core machine). Raw output in out/bench-pgstore.txt
# (BENCHMARKS.md, pgstore).
if [ "${CHITTA_BENCH_PG:-0}" = 1 ]; then
  echo "== pgstore BenchmarkStores" >&2
  : >out/bench-pgstore.txt
  IFS=, read -ra pg_sizes <<<"${CHITTA_PG_BENCH_SIZES:-10000,100000}"
  for pg_n in "${pg_sizes[@]}"; do
    CHITTA_PG_BENCH_SIZES="$pg_n" bash scripts/pglite.sh \
      go -C pgstore test -run '^$' -bench BenchmarkStores -benchtime 100x -timeout 0 . \
      2>&1 | tee -a out/bench-pgstore.txt >&2
  done
fi
go run ./examples/internal/benchtable < "$raw"
