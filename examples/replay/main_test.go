package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/exitcode/exitcodetest"
	"github.com/chitta-go/chitta/examples/internal/retention"
	"github.com/chitta-go/chitta/internal/testkit/shareddata"
)

// writeLoCoMo writes a LoCoMo file of one conversation: sessions of turns
// alternating between two speakers, twelve words each, and one question
// whose evidence is the first turn.
func writeLoCoMo(t *testing.T, sessions, turns int) string {
	t.Helper()
	conv := map[string]any{"speaker_a": "Ann", "speaker_b": "Bob"}
	for s := 1; s <= sessions; s++ {
		var ts []map[string]string
		for k := 1; k <= turns; k++ {
			speaker := "Ann"
			if k%2 == 0 {
				speaker = "Bob"
			}
			ts = append(ts, map[string]string{"speaker": speaker, "dia_id": fmt.Sprintf("D%d:%d", s, k),
				"text": strings.Repeat(fmt.Sprintf("s%dt%d ", s, k), 12)})
		}
		conv["session_"+strconv.Itoa(s)] = ts
	}
	data, err := json.Marshal([]map[string]any{{
		"sample_id":    "fixture",
		"conversation": conv,
		"qa":           []map[string]any{{"question": "what first?", "answer": "x", "evidence": []string{"D1:1"}, "category": 4}},
	}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "locomo.json")
	require.NoError(t, os.WriteFile(path, data, 0o600))
	return path
}

func TestRunFixture(t *testing.T) {
	t.Parallel()
	path := writeLoCoMo(t, 6, 20)
	swe := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(swe, "a.traj.json"), []byte(`{"history": [
		{"role": "system", "content": "sys"}, {"role": "user", "content": "fix it"},
		{"role": "assistant", "content": "look", "tool_calls": [{"id": "c1", "function": {"name": "ls"}}]},
		{"role": "tool", "content": "out", "tool_call_ids": ["c1"]},
		{"role": "assistant", "content": "done"}]}`), 0o600))
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-locomo", path, "-swe", swe, "-locomo-window", "300"}, &out, io.Discard))
	text := out.String()
	assert.Contains(t, text, "### LoCoMo · 1 sessions · window 300 tokens, target 150")
	assert.Contains(t, text, "### SWE-agent · 1 sessions")
	rows := map[string][]string{} // the LoCoMo table's
	locomo, _, _ := strings.Cut(text, "### SWE-agent")
	for _, line := range strings.Split(locomo, "\n") {
		if f := strings.Split(line, "|"); len(f) > 10 && !strings.Contains(line, "---") {
			rows[strings.TrimSpace(f[1])] = f
		}
	}
	require.Contains(t, rows, "compactor")
	compactions := func(s string) int {
		n, err := strconv.Atoi(strings.TrimSpace(rows[s][3]))
		require.NoError(t, err)
		return n
	}
	// 120 turns of ~15 tokens in a 300-token window: compacting every turn
	// rewrites the context on most calls, the Compactor only every ~10.
	assert.Greater(t, compactions("compact-every-turn"), 3*compactions("compactor"))
	assert.Zero(t, compactions("no-compaction"))

	var again bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-locomo", path, "-swe", swe, "-locomo-window", "300"}, &again, io.Discard))
	assert.Equal(t, text, again.String(), "deterministic")
}

func TestRunFlagErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{},
		{"-locomo", "x", "extra"},
		{"-locomo", "x", "-target", "1"},
		{"-locomo", "x", "-target", "0"},
		{"-locomo", "x", "-locomo-window", "1"},
		{"-locomo", "x", "-horizon", "-1"},
		{"-locomo", "x", "-locomo-probe", "never"},
		{"-bogus"},
	} {
		err := run(t.Context(), args, io.Discard, io.Discard)
		require.Error(t, err, "%v", args)
	}
	err := run(t.Context(), []string{"-locomo", filepath.Join(t.TempDir(), "missing.json")}, io.Discard, io.Discard)
	require.ErrorIs(t, err, os.ErrNotExist)
	err = run(t.Context(), []string{"-swe", t.TempDir()}, io.Discard, io.Discard)
	require.ErrorContains(t, err, "no *.traj.json files")
}

// TestLoCoMoItemWithoutConversation: an item with no conversation is an
// error naming the file and the item; replay counted it as an empty
// session and went on.
func TestLoCoMoItemWithoutConversation(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "locomo.json")
	require.NoError(t, os.WriteFile(path, []byte(`[
		{"sample_id": "a", "conversation": {"speaker_a": "Ann", "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "hi"}]}},
		{"sample_id": "b", "qa": [{"question": "q", "evidence": ["D1:1"], "category": 4}]}]`), 0o600))
	var out bytes.Buffer
	err := run(t.Context(), []string{"-locomo", path}, &out, io.Discard)
	require.ErrorIs(t, err, retention.ErrInvalidData)
	assert.ErrorContains(t, err, path+": ")
	assert.ErrorContains(t, err, `locomo item 1 (sample_id "b"): conversation: required`)
	assert.Empty(t, out.String(), "no table for a file that did not load")
}

// TestSharedData replays the shared LoCoMo data and checks the issue's
// targets where BENCHMARKS.md says they are met: at a 2 000-token window
// the Compactor serves >= 85% of prompt tokens from the cache, bills
// <= 0.35x of compacting every turn, and keeps the evidence within 2
// points of it (both probes).
func TestSharedData(t *testing.T) {
	t.Parallel()
	dir := shareddata.ForTest(t, "locomo")
	f, err := os.Open(filepath.Join(dir, "locomo-dev.json"))
	require.NoError(t, err)
	convs, err := retention.LoadLoCoMo(f)
	f.Close()
	require.NoError(t, err)
	env := retention.Env{
		Embedder: chitta.NewCachedEmbedder(chitta.NewHashEmbedder(0), 1<<16),
		Tokens:   chitta.NewCachedTokenCounter(nil, 1<<16),
	}
	cfg := retention.ReplayConfig{Env: env, Window: 2000, Strategies: []string{retention.StrategyEveryTurn, retention.StrategyCompactor}}
	for _, afterSession := range []bool{false, true} {
		stats, err := retention.Replay(t.Context(), cfg, retention.LoCoMoReplays(convs, afterSession))
		require.NoError(t, err)
		every, c := stats[0], stats[1]
		assert.GreaterOrEqual(t, c.CacheShare(), 0.85)
		assert.LessOrEqual(t, c.Billed/every.Billed, 0.35)
		assert.GreaterOrEqual(t, c.Retention.Value(0), every.Retention.Value(0)-0.02, "after session: %v", afterSession)
	}
}

// TestHelpExitsZero: -h prints the usage and exits 0, as the other
// harness programs do; replay printed "replay: usage" after it and exited
// 1. A flag error still exits 1, printed once (by the flag package).
func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	exitcodetest.Help(t, "replay", func(args ...string) error {
		return run(t.Context(), args, io.Discard, io.Discard)
	}, errUsage)
}
