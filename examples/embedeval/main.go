// Command embedeval measures how well an embedder finds the evidence of a
// question in a long conversation: for every answerable LoCoMo question it
// ranks all turns of the conversation by cosine to the question and reports
// the mean reciprocal rank of the first evidence turn and the recall of
// evidence turns in the top 10, for chitta's HashEmbedder at several
// dimensions and for a plain whitespace-token hashing baseline.
//
//	go run ./examples/embedeval -locomo ../shared/data/locomo/locomo-dev.json
//
// Turns are read with the retention evaluation's LoCoMo loader (content
// "<speaker>: <text>" plus any image caption; evidence references that name
// no turn are left out). The data is read at run time from the given path
// and never copied.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/exitcode"
	"github.com/chitta-go/chitta/examples/internal/retention"
	"github.com/chitta-go/chitta/internal/vecmath"
)

func main() {
	os.Exit(exitcode.Of("embedeval", run(context.Background(), os.Args[1:], os.Stdout), errUsage, os.Stderr))
}

// errUsage marks a flag error, which the flag package has printed with the
// usage (-h is flag.ErrHelp under it).
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("embedeval", flag.ContinueOnError)
	path := fs.String("locomo", "", "path to a LoCoMo JSON file (required)")
	dimsFlag := fs.String("dims", "256,512,1024", "comma-separated HashEmbedder dimensions")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if *path == "" {
		return errors.New("-locomo is required")
	}
	f, err := os.Open(*path)
	if err != nil {
		return err
	}
	convs, err := retention.LoadLoCoMo(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("parse %s: %w", *path, err)
	}
	type candidate struct {
		name string
		e    chitta.Embedder
	}
	cands := []candidate{{"whitespace hashing, 512 d (baseline)", whitespace(512)}}
	for _, f := range strings.Split(*dimsFlag, ",") {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d <= 0 {
			return fmt.Errorf("-dims: %q is not a positive integer", f)
		}
		cands = append(cands, candidate{fmt.Sprintf("HashEmbedder, %d d", d), chitta.NewHashEmbedder(d)})
	}
	fmt.Fprintln(stdout, "| embedder | questions | MRR | recall@10 | embed time |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|")
	for _, c := range cands {
		s, err := evaluate(ctx, c.e, convs)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		fmt.Fprintf(stdout, "| %s | %d | %.3f | %.3f | %v |\n", c.name, s.questions, s.mrr, s.recall10, s.embedTime.Round(time.Millisecond))
	}
	return nil
}

type score struct {
	questions     int
	mrr, recall10 float64
	embedTime     time.Duration
}

func evaluate(ctx context.Context, e chitta.Embedder, convs []retention.Conversation) (score, error) {
	var s score
	for _, c := range convs {
		var questions []retention.Question
		for _, q := range c.Questions {
			if q.Category >= 1 && q.Category <= 4 && len(q.Evidence) > 0 {
				questions = append(questions, q)
			}
		}
		if len(c.Messages) == 0 || len(questions) == 0 {
			continue
		}
		texts := make([]string, 0, len(c.Messages)+len(questions))
		for _, m := range c.Messages {
			texts = append(texts, m.Content)
		}
		for _, q := range questions {
			texts = append(texts, q.Text)
		}
		start := time.Now()
		vecs, err := e.Embed(ctx, texts)
		s.embedTime += time.Since(start)
		if err != nil {
			return s, err
		}
		if len(vecs) != len(texts) {
			return s, fmt.Errorf("%d vectors for %d texts", len(vecs), len(texts))
		}
		n := len(c.Messages)
		for qi, question := range questions {
			q := vecs[n+qi]
			order := make([]int, n)
			sims := make([]float64, n)
			for i := range n {
				order[i], sims[i] = i, vecmath.Cosine64(q, vecs[i])
			}
			sort.SliceStable(order, func(a, b int) bool { return sims[order[a]] > sims[order[b]] })
			want := map[int]bool{}
			for _, i := range question.Evidence {
				want[i] = true
			}
			first, top := -1, 0
			for rank, i := range order {
				if want[i] {
					if first < 0 {
						first = rank
					}
					if rank < 10 {
						top++
					}
				}
			}
			if first >= 0 {
				s.mrr += 1 / float64(first+1)
			}
			s.recall10 += float64(top) / float64(len(want))
			s.questions++
		}
	}
	if s.questions > 0 {
		s.mrr /= float64(s.questions)
		s.recall10 /= float64(s.questions)
	}
	return s, nil
}

// whitespace is the baseline: strings.Fields tokens, FNV-1a, ±1, normalised.
func whitespace(dims int) chitta.Embedder {
	return chitta.EmbedderFunc(func(ctx context.Context, texts []string) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			v := make([]float32, dims)
			for _, w := range strings.Fields(t) {
				h := fnv.New64a()
				h.Write([]byte(w))
				x := h.Sum64()
				if x>>63 != 0 {
					v[x%uint64(dims)]--
				} else {
					v[x%uint64(dims)]++
				}
			}
			out[i] = v
		}
		return out, ctx.Err()
	})
}
