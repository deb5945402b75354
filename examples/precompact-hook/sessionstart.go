package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/examples/internal/brief"
	"github.com/chitta-go/chitta/examples/internal/claudecode"
)

// Recall parameters of SessionStart.
const (
	recallK       = 8   // memories recalled at most
	minSimilarity = 0.2 // below this a memory is not relevant
	memoryWords   = 60  // words printed per memory at most

	// briefWordRunes bounds a word of a stored brief that SessionStart
	// prints: a brief's artifact is at most brief.MaxItemRunes runes, its
	// "…" and a list's comma. A brief that an earlier hook stored with a
	// longer word (one made before its prose was cut at brief.MaxWordRunes)
	// is cut, as a memory's words are cut at brief.MaxWordRunes: the cap
	// counts words, and a pasted token is one.
	briefWordRunes = brief.MaxItemRunes + 2
)

// relevantKinds are the memories SessionStart brings back: facts, not
// compaction episodes or briefs (the brief is printed on its own).
var relevantKinds = chitta.KindFilter{Exclude: []string{chitta.KindEpisode, chitta.KindBrief}}

// sessionStart prints, after a compaction or on resume, the memories most
// relevant to the session's latest prompt and the items of the session's
// last brief (not its first line, which is the summariser's instruction),
// together at most --brief-tokens and maxOutputChars (whole lines, the
// brief's last ones left out first). Other sources print nothing.
func sessionStart(ctx context.Context, cfg *config, in *hookInput) outcome {
	if in.Source != "compact" && in.Source != "resume" {
		return outcome{summary: fmt.Sprintf("SessionStart (%s): nothing to bring back", orNone(in.Source))}
	}
	emb, store, err := openMemory(ctx, cfg, in)
	if err != nil {
		return outcome{err: err}
	}
	defer emb.Close()
	defer closeStore(store)

	// The latest real prompt is the query. A transcript that cannot be
	// read leaves only the brief to print. Without a session_id (a hand
	// run), the session is the transcript's, as PreCompact records it.
	session := in.SessionID
	query, note := "", ""
	if in.TranscriptPath == "" {
		note = "; no transcript_path, no query"
	} else if tr, err := readTranscript(ctx, in.TranscriptPath); err != nil {
		if ctx.Err() != nil {
			return outcome{err: err}
		}
		note = "; transcript unreadable (" + err.Error() + "), no query"
	} else {
		query = claudecode.LastPrompt(tr.Turns)
		if session == "" {
			session = tr.SessionID
		}
	}
	var hits []chitta.Hit
	if strings.TrimSpace(query) != "" {
		vecs, err := emb.Embed(ctx, []string{query})
		if err != nil {
			return outcome{err: fmt.Errorf("embed prompt: %w", err)}
		}
		all, err := store.RecallMatching(ctx, vecs[0], recallK, relevantKinds)
		if err != nil {
			return outcome{err: fmt.Errorf("recall: %w", err)}
		}
		for _, h := range all {
			if h.Similarity >= minSimilarity {
				hits = append(hits, h)
			}
		}
	}
	last, hasBrief := store.Get(brief.ID(session))

	var lines []string
	capWords := cfg.briefTokens * 10 / 13
	// used counts the words of lines, usedChars the characters of the
	// output (brief.Chars of lines joined by newlines).
	used, usedChars := 0, 0
	// fits reports whether next fit under both caps after lines.
	fits := func(next ...string) bool {
		n, c, k := used, usedChars, len(lines)
		for _, line := range next {
			if k > 0 {
				c++ // the newline before it
			}
			n, c, k = n+chitta.CountWords(line), c+brief.Chars(line), k+1
		}
		return n <= capWords && c <= maxOutputChars
	}
	add := func(line string) bool {
		if !fits(line) {
			return false
		}
		if len(lines) > 0 {
			usedChars++
		}
		lines = append(lines, line)
		used, usedChars = used+chitta.CountWords(line), usedChars+brief.Chars(line)
		return true
	}
	// The memories' header counts those printed under it (as many as fit
	// below it), and goes in only with one.
	memories := 0
	memoryHeader := func(n int) string {
		return fmt.Sprintf("chitta memory: what this project's memory store holds about the latest prompt (%s, most relevant first):", counted(n, "memory", "memories"))
	}
	if len(hits) > 0 && add(memoryHeader(len(hits))) {
		for _, h := range hits {
			if !add(fmt.Sprintf("- [%s] %s", h.Kind, clip(brief.CutWords(oneLine(h.Text), brief.MaxWordRunes), memoryWords))) {
				break
			}
			memories++
		}
		if memories == 0 {
			lines, used, usedChars = lines[:0], 0, 0
		} else {
			// No more words (the count is one) nor characters.
			h := memoryHeader(memories)
			usedChars += brief.Chars(h) - brief.Chars(lines[0])
			lines[0] = h
		}
	}
	briefLines := 0
	// The brief's own first line is addressed to the summariser ("keep
	// the items below verbatim in the summary"): once the summary is
	// written, only its items are for the model.
	items := strings.TrimLeft(strings.TrimPrefix(last.Text, brief.Header), "\n")
	if hasBrief && strings.TrimSpace(items) != "" {
		// The header goes in only with the brief's first line under it.
		const header = "chitta's preservation brief from before the last compaction of this session:"
		text := strings.Split(brief.CutWords(items, briefWordRunes), "\n")
		if fits(header, text[0]) && add(header) {
			for _, line := range text {
				if !add(line) {
					break
				}
				briefLines++
			}
		}
	}
	if memories == 0 && briefLines == 0 {
		lines = nil
	}
	summary := fmt.Sprintf("SessionStart (%s): %s, %s from %s%s", in.Source, counted(memories, "memory", "memories"), counted(briefLines, "brief line", "brief lines"), store.Path(), note) + indexNote(store)
	return outcome{stdout: strings.Join(lines, "\n"), summary: summary}
}

// counted is n with the noun's singular or plural form: "1 memory",
// "2 memories".
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func orNone(s string) string {
	if s == "" {
		return "no source"
	}
	return s
}

// clip returns the first n words of s, with "…" when it cut.
func clip(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return s
	}
	return strings.Join(f[:n], " ") + "…"
}
