package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tiny LoCoMo-shaped fixture written for this test.
const fixture = `[{"conversation":{"speaker_a":"Ann","speaker_b":"Bo",
 "session_1_date_time":"1 May 2023",
 "session_1":[
  {"speaker":"Ann","dia_id":"D1:1","text":"I adopted a beagle puppy named Biscuit last week."},
  {"speaker":"Bo","dia_id":"D1:2","text":"Congrats! I started learning the cello in March."}],
 "session_2":[
  {"speaker":"Ann","dia_id":"D2:1","text":"We painted the kitchen yellow on Saturday."},
  {"speaker":"Bo","dia_id":"D2:2","text":"My cello teacher says my bowing improved."}]},
 "qa":[
  {"question":"What is the name of Ann's beagle puppy?","answer":"Biscuit","evidence":["D1:1"],"category":4},
  {"question":"Which instrument is Bo learning?","answer":"cello","evidence":["D1:2","D2:2"],"category":1},
  {"question":"adversarial","adversarial_answer":"x","evidence":["D2:1"],"category":5}]}]`

func TestRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "locomo.json")
	require.NoError(t, os.WriteFile(path, []byte(fixture), 0o600))
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-locomo", path, "-dims", "64"}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 4, out.String())
	assert.Contains(t, lines[3], "| HashEmbedder, 64 d | 2 | 1.000 | 1.000 |", "both questions find their evidence first")
}

func TestRunErrors(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.ErrorContains(t, run(t.Context(), nil, &out), "-locomo is required")
	require.Error(t, run(t.Context(), []string{"-locomo", filepath.Join(t.TempDir(), "missing.json")}, &out))
	path := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(path, []byte("{"), 0o600))
	require.ErrorContains(t, run(t.Context(), []string{"-locomo", path}, &out), "parse")
	require.NoError(t, os.WriteFile(path, []byte(fixture), 0o600))
	require.ErrorContains(t, run(t.Context(), []string{"-locomo", path, "-dims", "0"}, &out), "positive integer")
}
