package chitta

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta/internal/testkit/benchcpu"
)

// refBM25 is BM25 as the textbook writes it, over maps: the reference the
// indexed bm25 must agree with. Each text's features are its word-level
// HashEmbedder features (lexFeatures); a feature's document frequency is
// the number of texts holding it; the query weighs each of its features by
// the feature's mean occurrence weight in the query.
func refBM25(query string, texts []string) []float64 {
	type feature struct{ count, weight float64 }
	features := func(text string) (map[uint64]feature, []uint64, float64) {
		m := map[uint64]feature{}
		var order []uint64
		length := 0.0
		lexFeatures(text, func(key uint64, cnt, sumw float32) {
			m[key] = feature{float64(cnt), float64(sumw / cnt)}
			order = append(order, key)
			length += float64(sumw)
		})
		return m, order, length
	}
	qf, qorder, _ := features(query)
	docs := make([]map[uint64]feature, len(texts))
	lengths := make([]float64, len(texts))
	df := map[uint64]int{}
	total := 0.0
	for j, t := range texts {
		docs[j], _, lengths[j] = features(t)
		total += lengths[j]
		for key := range docs[j] {
			df[key]++
		}
	}
	out := make([]float64, len(texts))
	if len(texts) == 0 {
		return out
	}
	n, avg := float64(len(texts)), total/float64(len(texts))
	best := 0.0
	for j, d := range docs {
		for _, key := range qorder {
			f, ok := d[key]
			if !ok || avg <= 0 {
				continue
			}
			idf := qf[key].weight * math.Log(1+(n-float64(df[key])+0.5)/(float64(df[key])+0.5))
			out[j] += idf * f.count * (bm25K1 + 1) / (f.count + bm25K1*(1-bm25B+bm25B*lengths[j]/avg))
		}
		best = max(best, out[j])
	}
	if best > 0 {
		for j := range out {
			out[j] /= best
		}
	}
	return out
}

// randomTurn draws a turn from a small vocabulary (so that features repeat
// within and across turns, with very different document frequencies) with
// stop words, identifiers, numbers, non-ASCII words and rare words.
func randomTurn(r *rand.Rand, words int) string {
	common := strings.Fields("deploy rollback cluster staging build failed parseConfig config_file retry logs the a of and is to 42 línea résumé 東京 HTTPServer")
	w := make([]string, words)
	for i := range w {
		switch r.IntN(10) {
		case 0:
			w[i] = fmt.Sprintf("rare%d", r.IntN(500))
		case 1:
			w[i] = common[r.IntN(4)] // a few words far more frequent
		default:
			w[i] = common[r.IntN(len(common))]
		}
	}
	return strings.Join(w, " ")
}

func TestBM25MatchesReference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 1))
	for round := range 300 {
		texts := make([]string, 1+r.IntN(60))
		for j := range texts {
			switch r.IntN(12) {
			case 0:
				texts[j] = "" // no feature at all
			case 1:
				texts[j] = randomTurn(r, 400+r.IntN(600)) // a long tool result
			default:
				texts[j] = randomTurn(r, 1+r.IntN(60))
			}
		}
		if r.IntN(4) == 0 && len(texts) > 1 {
			texts[r.IntN(len(texts))] = texts[0] // a repeated turn
		}
		query := randomTurn(r, 1+r.IntN(8))
		docs := make([]*lexDoc, len(texts))
		for j, t := range texts {
			docs[j] = newLexDoc(t)
		}
		got, want := new(lexScratch).bm25(newLexQuery(query), docs), refBM25(query, texts)
		require.Len(t, got, len(want))
		for j := range want {
			require.InDelta(t, want[j], got[j], 1e-12, "round %d, turn %d of %d, query %q", round, j, len(texts), query)
		}
	}
}

func TestLexDocCount(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(15, 2))
	for range 200 {
		text := randomTurn(r, r.IntN(300))
		d := newLexDoc(text)
		want := map[uint64]float32{}
		lexFeatures(text, func(key uint64, cnt, _ float32) { want[key] = cnt })
		require.Len(t, d.keys(), len(want))
		for key, cnt := range want {
			require.Equal(t, cnt, d.count(key), "a feature of the text")
		}
		for range 50 { // features the text does not hold
			key := r.Uint64()
			if _, ok := want[key]; !ok {
				require.Zero(t, d.count(key))
			}
		}
		for _, key := range d.keys() { // neighbours of held keys
			for _, k := range []uint64{key - 1, key + 1} {
				if _, ok := want[k]; !ok {
					require.Zero(t, d.count(k))
				}
			}
		}
	}
	assert.Zero(t, newLexDoc("").count(1), "no feature")
}

// BenchmarkBM25 scores 1 000 cached turns against an 8-feature query: the
// lexical pass of a warm re-compaction, without the rest of Compact.
func BenchmarkBM25(b *testing.B) {
	r := rand.New(rand.NewPCG(15, 4))
	docs := make([]*lexDoc, 1000)
	for j := range docs {
		docs[j] = newLexDoc(randomTurn(r, 20+r.IntN(100)))
	}
	query := newLexQuery("why did parseConfig fail on the staging cluster")
	sc := new(lexScratch)
	b.ReportAllocs()
	defer benchcpu.Start(b)()
	for b.Loop() {
		sc.bm25(query, docs)
	}
}
