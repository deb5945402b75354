// Command scoreviz draws one chitta scoring pass as a picture: one bar per
// turn, its height the turn's score, kept turns solid green, dropped turns
// faded, memory-covered drops hatched, with the score breakdown on hover.
//
//	scoreviz -in conversation.json -query "fix the retry test" -ratio 0.4 -o pass.html
//	scoreviz -in - -memory facts.txt -o pass.svg < conversation.json
//
// The input is a JSON array of OpenAI- or Anthropic-format messages (or an
// object holding one under "messages", like a chat request body). The
// output format follows the extension of -o (.html or .svg; "-" writes HTML
// to stdout). With -memory, each non-empty line of the file (lines starting
// with # are comments) is stored as a memory first, so that turns the memory
// already covers score lower and are shown as covered when dropped.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chitta-go/chitta"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scoreviz:", err)
		os.Exit(1)
	}
}

// config holds the parsed command line.
type config struct {
	in, out, query, memory string
	ratio, threshold       float64
	maxTokens, keepLast    int
}

var errUsage = errors.New("usage")

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	var c config
	fs := flag.NewFlagSet("scoreviz", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.in, "in", "", "conversation: a JSON array of OpenAI/Anthropic messages (- for stdin)")
	fs.StringVar(&c.out, "o", "-", "output file; .html or .svg picks the format (- writes HTML to stdout)")
	fs.StringVar(&c.query, "query", "", "hint about the upcoming task; turns similar to it score higher")
	fs.Float64Var(&c.ratio, "ratio", chitta.DefaultTargetRatio, "fraction of tokens to keep (0.05–1.0)")
	fs.IntVar(&c.maxTokens, "max-tokens", 0, "absolute token budget instead of -ratio (0: unused)")
	fs.IntVar(&c.keepLast, "keep-last", 0, "always keep the last N non-system turns")
	fs.Float64Var(&c.threshold, "novel-threshold", 0, "coverage at which a dropped turn counts as known (0: default 0.5)")
	fs.StringVar(&c.memory, "memory", "", "optional file of facts, one per line, stored as memories before scoring")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: scoreviz -in conversation.json [-query TEXT] [-ratio 0.4] [-memory facts.txt] -o pass.html|pass.svg")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	if c.in == "" {
		return nil, fmt.Errorf("%w: -in is required (a file, or - for stdin)", errUsage)
	}
	return &c, nil
}

// format returns the output format for an -o value.
func format(out string) (string, error) {
	if out == "-" {
		return "html", nil
	}
	switch strings.ToLower(filepath.Ext(out)) {
	case ".html", ".htm":
		return "html", nil
	case ".svg":
		return "svg", nil
	}
	return "", fmt.Errorf("%w: -o %q: want a .html or .svg file, or - for HTML on stdout", errUsage, out)
}

// run is the whole command: it parses args, reads the conversation (and the
// memory file), compacts it once with the embedded defaults and writes the
// picture to the -o file or stdout. Progress goes to stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	kind, err := format(c.out)
	if err != nil {
		return err
	}
	data, err := readInput(c.in, stdin)
	if err != nil {
		return err
	}
	msgs, err := chitta.ParseMessages(unwrap(data))
	if err != nil {
		return fmt.Errorf("read %s: %w", c.in, err)
	}
	emb := newEmbedder()
	opts := &chitta.Options{
		Query:          c.query,
		TargetRatio:    c.ratio,
		MaxTokens:      c.maxTokens,
		KeepLast:       c.keepLast,
		NovelThreshold: c.threshold,
		Embedder:       emb,
	}
	facts := 0
	if c.memory != "" {
		store, n, err := loadMemory(ctx, c.memory, emb, stderr)
		if err != nil {
			return err
		}
		opts.Store, facts = store, n
	}
	res, err := chitta.Compact(ctx, msgs, opts)
	if err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	ch := &chart{
		Source:    displayName(c.in),
		Query:     c.query,
		Budget:    budgetLabel(c),
		Facts:     facts,
		Threshold: c.threshold,
		Msgs:      msgs,
		Res:       res,
	}
	if ch.Threshold == 0 {
		ch.Threshold = chitta.DefaultNovelThreshold
	}
	var buf bytes.Buffer
	if kind == "svg" {
		writeSVG(&buf, ch, true)
	} else {
		writeHTML(&buf, ch)
	}
	if c.out == "-" {
		_, err = stdout.Write(buf.Bytes())
		return err
	}
	if err := os.WriteFile(c.out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	st := res.Stats
	fmt.Fprintf(stderr, "scoreviz: wrote %s: %d turns, %d → %d tokens, %d dropped (%.1f%% of tokens)\n",
		c.out, len(msgs), st.BeforeTokens, st.AfterTokens, st.Dropped, st.DroppedPct)
	return nil
}

// newEmbedder returns the embedder scoreviz scores with: the embedded
// default, a HashEmbedder of the default size.
func newEmbedder() *chitta.HashEmbedder { return chitta.NewHashEmbedder(0) }

func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		return data, nil
	}
	return os.ReadFile(name)
}

// unwrap returns the "messages" array of a {"messages": [...]} request body
// (the shape of a chat completion request or of the chitta tool call), and
// data itself otherwise.
func unwrap(data []byte) []byte {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return data
	}
	var body struct {
		Messages json.RawMessage `json:"messages"`
	}
	if json.Unmarshal(trimmed, &body) != nil || len(body.Messages) == 0 {
		return data
	}
	return body.Messages
}

func displayName(in string) string {
	if in == "-" {
		return "stdin"
	}
	return filepath.Base(in)
}

func budgetLabel(c *config) string {
	if c.maxTokens > 0 {
		return fmt.Sprintf("max %d tokens", c.maxTokens)
	}
	r := c.ratio
	if r == 0 {
		r = chitta.DefaultTargetRatio
	}
	return fmt.Sprintf("keep %g%%", r*100)
}

// loadMemory stores every fact of the file (one per non-empty line; # starts
// a comment line) in a new store and returns it with the number of facts
// stored. A fact the embedder finds no feature in (its vector is zero) is
// skipped with a warning on warn.
func loadMemory(ctx context.Context, path string, emb *chitta.HashEmbedder, warn io.Writer) (chitta.MemoryStore, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var facts []string
	var lines []int
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		facts = append(facts, line)
		lines = append(lines, n)
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("read memory %s: %w", path, err)
	}
	store, err := chitta.NewHNSWStore(emb.Dimensions(), nil)
	if err != nil {
		return nil, 0, err
	}
	if len(facts) == 0 {
		return store, 0, nil
	}
	vecs, err := emb.Embed(ctx, facts)
	if err != nil {
		return nil, 0, fmt.Errorf("embed memory: %w", err)
	}
	stored := 0
	for i, text := range facts {
		m := chitta.Memory{
			ID:         fmt.Sprintf("fact-%d", lines[i]),
			Text:       text,
			Kind:       chitta.KindFact,
			Confidence: 1,
			Vector:     vecs[i],
			Source:     fmt.Sprintf("%s:%d", filepath.Base(path), lines[i]),
		}
		if err := store.Add(ctx, m); errors.Is(err, chitta.ErrInvalidVector) {
			fmt.Fprintf(warn, "scoreviz: %s line %d: skipped, nothing to embed\n", path, lines[i])
			continue
		} else if err != nil {
			return nil, 0, fmt.Errorf("memory %s line %d: %w", path, lines[i], err)
		}
		stored++
	}
	return store, stored, nil
}
