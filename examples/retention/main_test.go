package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtures writes one small input of each kind and returns their paths.
func fixtures(t *testing.T) (locomo, tau, claude string) {
	t.Helper()
	dir := t.TempDir()
	locomo = filepath.Join(dir, "locomo.json")
	require.NoError(t, os.WriteFile(locomo, []byte(`[{"sample_id": "c1",
 "conversation": {"speaker_a": "Ann", "speaker_b": "Bob",
  "session_1": [
   {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a grey cat called Miso last week."},
   {"speaker": "Bob", "dia_id": "D1:2", "text": "Congratulations! I started pottery classes on Tuesdays."},
   {"speaker": "Ann", "dia_id": "D1:3", "text": "My sister lives in Lisbon and visits in June."},
   {"speaker": "Bob", "dia_id": "D1:4", "text": "I am training for a marathon in October."},
   {"speaker": "Ann", "dia_id": "D1:5", "text": "Work has been hectic with the product launch."},
   {"speaker": "Bob", "dia_id": "D1:6", "text": "Take care of yourself, and say hi to Miso."}]},
 "qa": [
  {"question": "What is the name of Ann's cat?", "answer": "Miso", "evidence": ["D1:1"], "category": 4},
  {"question": "When does Bob run his marathon?", "answer": "October", "evidence": ["D1:4"], "category": 2},
  {"question": "Where does Bob's sister live?", "adversarial_answer": "Lisbon", "evidence": ["D1:3"], "category": 5}],
 "observation": {"session_1_observation": {"Ann": [["Ann adopted a cat named Miso.", "D1:1"]]}}}]`), 0o644))
	tau = filepath.Join(dir, "tau")
	require.NoError(t, os.Mkdir(tau, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tau, "run.json"), []byte(`{"task_id": 1, "reward": 1,
 "info": {"task": {"actions": [{"name": "get_user_details", "kwargs": {"user_id": "ann_42"}}]}},
 "traj": [
  {"role": "system", "content": "You are an airline agent."},
  {"role": "user", "content": "Hello, my user id is ann_42 and I need help with a booking."},
  {"role": "assistant", "content": "Sure, let me look you up."},
  {"role": "user", "content": "Thanks, please hurry."},
  {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get_user_details", "arguments": "{\"user_id\": \"ann_42\"}"}}]},
  {"role": "tool", "tool_call_id": "c1", "content": "{\"user_id\": \"ann_42\"}"}]}`), 0o644))
	claude = filepath.Join(dir, "claude")
	require.NoError(t, os.Mkdir(claude, 0o755))
	var b strings.Builder
	b.WriteString(`{"type":"user","uuid":"u0","isSidechain":false,"message":{"role":"user","content":"please fix the parser in parse_config.go"}}` + "\n")
	for i := range 12 {
		id := "tu" + string(rune('a'+i))
		b.WriteString(`{"type":"assistant","uuid":"a` + id + `","isSidechain":false,"message":{"id":"m` + id + `","role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Read","input":{"file_path":"/src/parse_config.go"}}]}}` + "\n")
		b.WriteString(`{"type":"user","uuid":"r` + id + `","isSidechain":false,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"func parseConfig() {}"}]}}` + "\n")
	}
	require.NoError(t, os.WriteFile(filepath.Join(claude, "s.jsonl"), []byte(b.String()), 0o644))
	return locomo, tau, claude
}

func runReport(t *testing.T, args ...string) (rows []map[string]any, md, svg string) {
	t.Helper()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(t.Context(), append(args, "-out", out), &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), filepath.Join(out, "report.json"))
	assert.Contains(t, stderr.String(), "ratio", "progress on stderr")
	data, err := os.ReadFile(filepath.Join(out, "report.json"))
	require.NoError(t, err)
	var rep struct {
		Rows []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(data, &rep))
	mdb, err := os.ReadFile(filepath.Join(out, "report.md"))
	require.NoError(t, err)
	svgb, err := os.ReadFile(filepath.Join(out, "retention.svg"))
	require.NoError(t, err)
	return rep.Rows, string(mdb), string(svgb)
}

func TestRunAllDatasets(t *testing.T) {
	t.Parallel()
	locomo, tau, claude := fixtures(t)
	swe := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(swe, "t.traj.json"), []byte(`{"history": [
 {"role": "system", "content": "You edit files."},
 {"role": "user", "content": "Fix calc.py."},
 {"role": "assistant", "content": "Open it.", "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "open", "arguments": "{\"path\":\"/r/calc.py\"}"}}]},
 {"role": "tool", "tool_call_ids": ["t1"], "content": "[File: /r/calc.py (1 lines total)]\n1:def divide(a, b)\n(Open file: /r/calc.py)"},
 {"role": "assistant", "content": "Fix.", "tool_calls": [{"id": "t2", "type": "function", "function": {"name": "edit", "arguments": "{\"search\":\"def divide(a, b)\",\"replace\":\"def divide(a, b):\"}"}}]},
 {"role": "tool", "tool_call_ids": ["t2"], "content": "done"}]}`), 0o644))
	args := []string{"-locomo", locomo, "-tau", tau, "-claude", claude, "-swe", swe, "-ratios", "0.5,0.3", "-seed", "7"}
	rows, md, svg := runReport(t, args...)
	seen := map[string]bool{}
	for _, r := range rows {
		seen[r["dataset"].(string)+"/"+r["metric"].(string)] = true
		seen["method/"+r["method"].(string)] = true
		seen[r["dataset"].(string)+"/method/"+r["method"].(string)] = true
		if r["metric"] == "pair_integrity" {
			assert.InDelta(t, 1, r["value"], 1e-12, "%v", r)
		}
	}
	for _, k := range []string{
		"locomo/evidence_recall", "locomo/kept_or_covered_recall", "locomo/uncovered_recall",
		"locomo/covered_token_share", "locomo/all_evidence_kept", "locomo/ms_per_compaction",
		"tau/argument_recall", "tau/pair_integrity", "tau/ms_per_compaction",
		"claude/needed_recall", "claude/pair_integrity", "claude/ms_per_compaction",
		"locomo-blind/uncovered_recall", "locomo-blind/evidence_recall", "locomo-blind/ms_per_compaction",
		"tau-nonsystem/argument_recall", "tau-nonsystem/pair_integrity",
		"swe/edit_context_recall", "swe/pair_integrity",
		"method/chitta", "method/chitta-nomem", "method/recency", "method/random", "method/chitta-reserve",
	} {
		assert.True(t, seen[k], k)
	}
	for _, d := range []string{"tau", "tau-nonsystem", "claude"} {
		assert.True(t, seen[d+"/method/recency-live"], "%s has recency-live", d)
	}
	for _, d := range []string{"locomo", "locomo-blind", "swe"} {
		assert.False(t, seen[d+"/method/recency-live"], "%s has no recency-live", d)
	}
	assert.Contains(t, md, "## LoCoMo")
	assert.Contains(t, md, "| method | 0.3 | 0.5 |", "ratios sorted")
	assert.True(t, strings.HasPrefix(svg, "<svg"))

	// Deterministic for a fixed seed, timings aside.
	again, _, _ := runReport(t, args...)
	strip := func(rows []map[string]any) []map[string]any {
		var out []map[string]any
		for _, r := range rows {
			if r["metric"] != "ms_per_compaction" {
				out = append(out, r)
			}
		}
		return out
	}
	assert.Equal(t, strip(rows), strip(again))
}

func TestRunFlagErrors(t *testing.T) {
	t.Parallel()
	locomo, _, _ := fixtures(t)
	for _, args := range [][]string{
		{},
		{"-locomo", locomo, "-ratios", "0.01"},
		{"-locomo", locomo, "-ratios", "x"},
		{"-swe", filepath.Join(t.TempDir(), "missing")},
		{"-locomo", locomo, "-embedder", "nope"},
		{"-locomo", locomo, "extra"},
		{"-locomo", filepath.Join(t.TempDir(), "missing.json")},
		{"-nosuchflag"},
	} {
		var stdout, stderr bytes.Buffer
		assert.Error(t, run(t.Context(), append(args, "-out", t.TempDir()), &stdout, &stderr), "%q", args)
	}
}

// TestRunOpenAIEmbedder runs the program against a fake OpenAI-compatible
// embeddings server.
func TestRunOpenAIEmbedder(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		calls.Add(1)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var resp struct {
			Data []item `json:"data"`
		}
		for i, text := range req.Input {
			v := make([]float32, 8)
			for k, r := range text {
				v[(k+int(r))%8] += 1
			}
			resp.Data = append(resp.Data, item{Index: i, Embedding: v})
		}
		_ = json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	locomo, _, _ := fixtures(t)
	rows, md, _ := runReport(t, "-locomo", locomo, "-ratios", "0.5", "-variants=false", "-embedder", "openai:"+srv.URL+"#fake-model")
	assert.NotEmpty(t, rows)
	assert.Contains(t, md, "fake-model")
	assert.Positive(t, calls.Load())
}
