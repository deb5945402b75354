package retention

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sampleResults() *Results {
	var r Results
	for _, m := range []string{"chitta", "recency"} {
		for i, ratio := range []float64{0.1, 0.3} {
			t := r.Tally(LoCoMo, m, ratio, 0)
			t.Add(UncoveredRecall, float64(i+1), 4)
			t.Add(MsPerCompaction, 2.5, 1)
			r.Tally(LoCoMo, m, ratio, 5).Add(EvidenceRecall, 1, 2)
			r.Tally(Tau, m, ratio, 0).Add(ArgumentRecall, 3, 4)
			r.Tally(Tau, m, ratio, 0).Add(PairIntegrity, 0, 0)
		}
	}
	r.Note(LoCoMo, "two conversations")
	return &r
}

func TestRowsOrderAndValues(t *testing.T) {
	t.Parallel()
	rows := sampleResults().Rows()
	require.NotEmpty(t, rows)
	first := rows[0]
	assert.Equal(t, Row{Dataset: LoCoMo, Method: "chitta", Ratio: 0.1, Metric: UncoveredRecall, Value: 0.25, N: 4}, first)
	var tauPairs []Row
	for _, r := range rows {
		if r.Dataset == Tau && r.Metric == PairIntegrity {
			tauPairs = append(tauPairs, r)
		}
	}
	require.Len(t, tauPairs, 4)
	for _, r := range tauPairs {
		assert.InDelta(t, 1, r.Value, 1e-12, "no pair touched is whole")
	}
	assert.Equal(t, LoCoMo, rows[0].Dataset)
	assert.Equal(t, Tau, rows[len(rows)-1].Dataset, "datasets in fixed order")
}

func TestWriteJSON(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, sampleResults().Rows()))
	var got struct {
		Rows []map[string]any `json:"rows"`
	}
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	require.NotEmpty(t, got.Rows)
	for _, r := range got.Rows {
		for _, k := range []string{"dataset", "method", "ratio", "metric", "value"} {
			assert.Contains(t, r, k)
		}
	}
	assert.NotContains(t, got.Rows[0], "category", "pooled rows carry no category")
	b.Reset()
	require.NoError(t, WriteJSON(&b, nil))
	assert.JSONEq(t, `{"rows": []}`, b.String())
}

func TestWriteMarkdown(t *testing.T) {
	t.Parallel()
	r := sampleResults()
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, r.Rows(), &MarkdownOptions{Header: []string{"Command: x"}, Notes: r.Notes}))
	md := b.String()
	for _, want := range []string{
		"# Retention report", "Command: x", "## LoCoMo", "- two conversations", "### Categories 1–4",
		"### Category 5", "## tau-bench", "| method | 0.1 | 0.3 |", "| chitta | 0.250 | 0.500 |",
		"| recency | 2.50 | 2.50 |",
	} {
		assert.Contains(t, md, want)
	}
	assert.Less(t, strings.Index(md, "uncovered_recall"), strings.Index(md, "ms_per_compaction"))
}

func TestWriteSVG(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteSVG(&b, sampleResults().Rows()))
	dec := xml.NewDecoder(&b)
	counts := map[string]int{}
	var texts []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "well-formed XML")
		switch x := tok.(type) {
		case xml.StartElement:
			counts[x.Name.Local]++
		case xml.CharData:
			texts = append(texts, string(x))
		}
	}
	assert.Equal(t, 1, counts["svg"])
	assert.Equal(t, 4, counts["polyline"], "two panels (LoCoMo, tau) × two methods")
	assert.Equal(t, 8, counts["circle"], "a marker per point")
	joined := strings.Join(texts, "|")
	for _, want := range []string{"LoCoMo: uncovered_recall", "tau-bench: argument_recall", "chitta", "recency", "target ratio", "0.1", "0.3"} {
		assert.Contains(t, joined, want)
	}
	b.Reset()
	require.NoError(t, WriteSVG(&b, nil))
	assert.Contains(t, b.String(), "no data")
}
