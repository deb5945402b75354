package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunMask(t *testing.T) {
	t.Parallel()
	_, tau, claude := fixtures(t)
	swe := filepath.Join(t.TempDir(), "swe")
	require.NoError(t, os.Mkdir(swe, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(swe, "x.traj.json"), []byte(`{"history": [
  {"role": "system", "content": "SETTING"},
  {"role": "user", "content": "fix missing_colon.py"},
  {"role": "assistant", "content": "find", "tool_calls": [{"function": {"arguments": "{\"file_name\":\"missing_colon.py\"}", "name": "find_file"}, "id": "f1", "type": "function"}]},
  {"role": "tool", "content": "Found it", "tool_call_ids": ["f1"]}]}`), 0o644))
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-mask", "-tau", tau, "-claude", claude, "-mask-swe", swe, "-ratios", "0.3", "-out", out}, &stdout, &stderr), stderr.String())
	assert.Contains(t, stdout.String(), "mask-report.md")
	data, err := os.ReadFile(filepath.Join(out, "mask-report.json"))
	require.NoError(t, err)
	var rep struct {
		Rows []struct{ Dataset, Method, Metric string } `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(data, &rep))
	seen := map[string]bool{}
	for _, r := range rep.Rows {
		seen[r.Dataset+"/"+r.Method+"/"+r.Metric] = true
	}
	for _, want := range []string{
		"mask-tau/chitta-mask/argument_recall", "mask-tau-nonsystem/chitta/pair_integrity", "mask-claude/chitta/calls_kept",
		"mask-claude/chitta-mask/needed_recall", "mask-swe/chitta-mask-all/pair_integrity",
	} {
		assert.True(t, seen[want], want)
	}
	md, err := os.ReadFile(filepath.Join(out, "mask-report.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "calls_kept")
	assert.NoFileExists(t, filepath.Join(out, "report.json"), "-mask writes its own report only")
}
