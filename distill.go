package chitta

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chitta-go/chitta/internal/vecmath"
)

// Distillation limits.
const (
	// DistillMinRunes is the shortest message text, in runes, that
	// DistillNovel records.
	DistillMinRunes = 40
	// DistillMaxRunes is how much of a message's text a distilled memory
	// keeps, in runes.
	DistillMaxRunes = 600
	// DistillPrefix starts the text of every distilled memory, followed by
	// the message's role and "] ".
	DistillPrefix = "[distill-on-drop:"
	// distillConfidenceBase and distillConfidenceSpan give a distilled
	// memory's confidence: base + span·(1 − coverage).
	distillConfidenceBase = 0.5
	distillConfidenceSpan = 0.25
	// DistillDuplicate is the cosine at or above which DistillNovel treats
	// a dropped message as a near-duplicate of a stored memory (of any
	// kind) or of another message distilled in the same call, and skips it.
	// It also skips a message whose memory text (see [Distilled.Text]) is
	// that of another distilled in the call, whatever their cosine.
	DistillDuplicate = 0.92
)

// Distilled describes one memory recorded by [Options.DistillNovel]. Every
// field of one that [Compact] returns is set; the zero value describes no
// memory.
type Distilled struct {
	// Index is the dropped (or masked) message's index in the input.
	Index int `json:"index"`
	// Kind is the memory's kind, as [ClassifyNovel] gives it:
	// [KindCorrection], [KindPreference], [KindHabit], [KindWisdom]
	// (assistant messages only) or [KindFact].
	Kind string `json:"kind"`
	// Text is the memory's text as stored: [DistillPrefix], the message's
	// role, "] " and at most [DistillMaxRunes] runes of its content (white
	// space around it trimmed, invalid UTF-8 replaced by U+FFFD).
	Text string `json:"text"`
	// ID is the stored memory's ID, [MemoryID](Kind, Text); a masked tool
	// result's placeholder names it.
	ID string `json:"id"`
}

// distillRules are tried in order; the first whose phrase occurs as whole
// words wins. assistantOnly rules apply to assistant messages only.
var distillRules = []struct {
	kind          string
	assistantOnly bool
	phrases       []string
}{
	{KindCorrection, false, []string{"wrong", "mistake", "incorrect", "that's not", "not what i", "should be", "actually, "}},
	{KindPreference, false, []string{"i prefer", "i always", "please always", "please don't", "from now on", "in the future", "never do", "stop doing"}},
	{KindHabit, false, []string{"every time", "whenever", "habit", "convention"}},
	{KindWisdom, true, []string{"the reason", "because", "the fix", "the way to", "the correct", "you should", "best practice", "important:"}},
}

// ClassifyNovel returns the memory kind DistillNovel gives a message of the
// given role and text: correction, preference, habit, wisdom (assistant
// messages only) or fact. (A distilled message is a fact the conversation
// established, not an episode: the default [Options.CoverageFilter] ignores
// episodes, so distilled episodes would never cover the message they came
// from and would be distilled again.) Phrases match case-insensitively as whole
// words, so "standard library" is not a habit; a typographic apostrophe
// matches a straight one, and any run of white space matches a space.
func ClassifyNovel(role Role, text string) string {
	t := strings.ToLower(strings.ReplaceAll(text, "’", "'"))
	t = strings.Join(strings.Fields(t), " ")
	for _, r := range distillRules {
		if r.assistantOnly && role != RoleAssistant {
			continue
		}
		for _, p := range r.phrases {
			if containsPhrase(t, p) {
				return r.kind
			}
		}
	}
	return KindFact
}

// containsPhrase reports whether phrase occurs in t with word boundaries:
// no letter or digit right before it, and none right after it when the
// phrase ends in a letter or digit.
func containsPhrase(t, phrase string) bool {
	for off := 0; off <= len(t)-len(phrase); {
		i := strings.Index(t[off:], phrase)
		if i < 0 {
			return false
		}
		start, end := off+i, off+i+len(phrase)
		before, _ := utf8.DecodeLastRuneInString(t[:start])
		after, _ := utf8.DecodeRuneInString(t[end:])
		last, _ := utf8.DecodeLastRuneInString(phrase)
		okBefore := start == 0 || !isWordRune(before)
		okAfter := end == len(t) || !isWordRune(last) || !isWordRune(after)
		if okBefore && okAfter {
			return true
		}
		off = start + 1
	}
	return false
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// MemoryID returns the deterministic ID chitta gives a memory that has none:
// the hex of the first 16 bytes of SHA-256(kind + "\x00" + text). Adding the
// same kind and text twice therefore replaces rather than duplicates.
func MemoryID(kind, text string) string {
	sum := sha256.Sum256([]byte(kind + "\x00" + text))
	return hex.EncodeToString(sum[:16])
}

// distillText is the text of the memory distilled from a message: the
// prefix, the role, and the first DistillMaxRunes runes of valid UTF-8.
func distillText(role Role, content string) string {
	content = strings.ToValidUTF8(strings.TrimSpace(content), "\uFFFD")
	if utf8.RuneCountInString(content) > DistillMaxRunes {
		n := 0
		for i := range content {
			if n == DistillMaxRunes {
				content = content[:i]
				break
			}
			n++
		}
	}
	return DistillPrefix + string(role) + "] " + content
}

// novel reports whether message i is a candidate for distillation when it
// is dropped or masked (it has a vector, is not covered, is long enough,
// is not filler and not skipped by DistillSkip), and the kind and text of
// its memory. Masking names MemoryID(kind, text) in its placeholder before
// distillation runs; a candidate that distillation then passes over (a
// near-duplicate, DistillMax, a store error) loses the ID again.
func (p *pass) novel(o *resolved, i int) (kind, text string, ok bool) {
	if !o.DistillNovel || !p.embedded || o.Store == nil {
		return "", "", false
	}
	s, m := &p.scores[i], &p.msgs[i]
	if p.vecs[i] == nil || s.Coverage >= o.novelThreshold ||
		utf8.RuneCountInString(strings.TrimSpace(m.Content)) < DistillMinRunes ||
		IsFiller(m.Role, m.Content) || (o.DistillSkip != nil && o.DistillSkip(i, *m)) {
		return "", "", false
	}
	return ClassifyNovel(m.Role, m.Content), distillText(m.Role, m.Content), true
}

// storedMemory returns the ID of the memory distilled from message i when
// it is known stored (o.stored, with DistillNovel and a Store), else "": a
// message masked and distilled by an earlier compaction is covered by that
// memory, so it is no candidate now, yet its placeholder still names it.
func (p *pass) storedMemory(o *resolved, i int) string {
	if len(o.stored) == 0 || !o.DistillNovel || o.Store == nil {
		return ""
	}
	m := &p.msgs[i]
	if id := MemoryID(ClassifyNovel(m.Role, m.Content), distillText(m.Role, m.Content)); o.stored[id] {
		return id
	}
	return ""
}

// distill records the dropped, uncovered, long-enough messages as memories
// (and those whose tool results masking replaced by a placeholder),
// most novel first, skipping filler, the caller's DistillSkip, and
// near-duplicates of stored memories or of one another; at most DistillMax
// of them, added in message order. Store failures are logged and joined
// into the returned error; they never change the selection. A write that
// fails does not use up a DistillMax slot: the next candidate gets it, in
// a further round of writes, until DistillMax writes have failed.
// Distillation also stops after distillFailStreak store calls in a row
// (duplicate checks or writes) have failed, so that a store that is down
// is not asked once per candidate when DistillMax is 0 (no cap). When ctx
// is done, distillation stops with ctx's error, which is not logged as a
// store failure.
func distill(ctx context.Context, o *resolved, msgs []Message, p *pass) ([]Distilled, error) {
	var cands []int
	texts := make(map[int]string) // each candidate's memory text
	for _, i := range p.free {
		if p.scores[i].Kept && !p.elided(i) {
			continue
		}
		if _, text, ok := p.novel(o, i); ok {
			cands = append(cands, i)
			texts[i] = text
		}
	}
	// Most novel first; ties: the later message first.
	slices.SortStableFunc(cands, func(a, b int) int {
		if c := cmpFloat(p.scores[a].Coverage, p.scores[b].Coverage); c != 0 {
			return c
		}
		return b - a
	})
	var errs []error
	var out []Distilled
	var added []int // messages stored, in the order picked
	failed := 0
	streak := 0 // store calls failed in a row
	next := 0   // the next candidate to consider
	now := time.Now().UTC()
	for next < len(cands) && (o.DistillMax == 0 || failed < o.DistillMax) {
		picked, err := p.pick(ctx, o, cands, texts, &next, added, &errs, &streak)
		if err != nil {
			errs = append(errs, err)
			break
		}
		if streak >= distillFailStreak {
			errs = append(errs, errStoreDown(len(cands)-next+len(picked)))
			break
		}
		if len(picked) == 0 {
			break // DistillMax memories stored, or no candidate left
		}
		slices.Sort(picked)
		for k, i := range picked {
			d, err := p.write(ctx, o, msgs, i, now)
			if err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					errs = append(errs, doneErr(ctxErr, i, err))
					return sortDistilled(out), errors.Join(errs...)
				}
				o.log.Warn("chitta: distill: store write failed", "index", i, "err", err)
				errs = append(errs, fmt.Errorf("distill message %d: %w", i, err))
				failed++
				if streak++; streak >= distillFailStreak {
					errs = append(errs, errStoreDown(len(cands)-next+len(picked)-k-1))
					return sortDistilled(out), errors.Join(errs...)
				}
				continue
			}
			streak = 0
			added = append(added, i)
			out = append(out, d)
		}
	}
	return sortDistilled(out), errors.Join(errs...)
}

// pick returns the next candidates to write, from cands[*next:], most
// novel first, skipping near-duplicates of the messages already added or
// picked (and those whose memory text, in texts, is one of theirs) and of
// stored memories, until DistillMax minus len(added) are
// picked. A failed duplicate check is logged and joined into errs and
// counts in streak (store calls failed in a row; a check that succeeds
// resets it); picking stops when streak reaches distillFailStreak. The
// error returned is ctx's, when it is done.
func (p *pass) pick(ctx context.Context, o *resolved, cands []int, texts map[int]string, next *int, added []int, errs *[]error, streak *int) ([]int, error) {
	var picked []int
	for ; *next < len(cands); *next++ {
		if o.DistillMax > 0 && len(added)+len(picked) == o.DistillMax {
			break
		}
		if err := ctx.Err(); err != nil {
			return picked, err
		}
		i := cands[*next]
		dup, err := p.duplicate(ctx, o, i, slices.Concat(added, picked), texts)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return picked, doneErr(ctxErr, i, err)
			}
			o.log.Warn("chitta: distill: duplicate check failed", "index", i, "err", err)
			*errs = append(*errs, fmt.Errorf("distill message %d: %w", i, err))
			if *streak++; *streak >= distillFailStreak {
				*next++ // this candidate has been tried
				return picked, nil
			}
			continue
		}
		*streak = 0
		if !dup {
			picked = append(picked, i)
		}
	}
	return picked, nil
}

// write stores the memory distilled from message i.
func (p *pass) write(ctx context.Context, o *resolved, msgs []Message, i int, now time.Time) (Distilled, error) {
	s := &p.scores[i]
	m := &msgs[i]
	kind := ClassifyNovel(m.Role, m.Content)
	text := distillText(m.Role, m.Content)
	mem := Memory{
		ID:         MemoryID(kind, text),
		Text:       text,
		Kind:       kind,
		Confidence: distillConfidenceBase + distillConfidenceSpan*(1-s.Coverage),
		Vector:     append([]float32(nil), p.vecs[i]...),
		CreatedAt:  now,
		Source:     fmt.Sprintf("distill-on-drop: message %d", i),
	}
	if err := o.Store.Add(ctx, mem); err != nil {
		return Distilled{}, err
	}
	return Distilled{Index: i, Kind: kind, Text: text, ID: mem.ID}, nil
}

// doneErr is the error of a store call on message i that failed with err
// once ctx was done (ctxErr): ctxErr, and err too when it is another.
func doneErr(ctxErr error, i int, err error) error {
	if errors.Is(err, ctxErr) {
		return ctxErr
	}
	return errors.Join(fmt.Errorf("distill message %d: %w", i, err), ctxErr)
}

// sortDistilled orders out by message index.
func sortDistilled(out []Distilled) []Distilled {
	slices.SortFunc(out, func(a, b Distilled) int { return a.Index - b.Index })
	return out
}

// duplicate reports whether message i's vector has a cosine of at least
// DistillDuplicate to a message already picked in this pass or to any
// stored memory, whatever its kind, or its memory text (in texts) is that
// of a message picked: the two would be one memory (one MemoryID), the
// second write replacing the first, though their vectors, of the whole
// messages, may differ beyond the DistillMaxRunes the text keeps.
func (p *pass) duplicate(ctx context.Context, o *resolved, i int, picked []int, texts map[int]string) (bool, error) {
	v := p.vecs[i]
	for _, j := range picked {
		if texts[i] == texts[j] || float64(vecmath.Cosine(v, p.vecs[j])) >= DistillDuplicate {
			return true, nil
		}
	}
	hits, err := o.Store.Recall(ctx, v, 1)
	if err != nil {
		return false, err
	}
	return len(hits) > 0 && hits[0].Similarity >= DistillDuplicate, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// fillerOpeners start the acknowledgements and announcements that
// [IsFiller] recognises, matched case-insensitively as whole words.
var fillerOpeners = []string{
	"great", "perfect", "excellent", "good", "awesome", "nice", "ok", "okay", "sure",
	"alright", "all right", "got it", "understood", "thanks", "thank you", "you're right", "you are right",
	"let me", "now let me", "i'll", "i will", "now i'll", "now i will", "let's", "now let's", "next, let me",
}

// IsFiller reports whether an assistant message's text is filler that is
// not worth remembering: it starts with an acknowledgement or an
// announcement ("Great!", "Perfect.", "OK, let me …", "I'll …") and carries
// no artifact — no digit, no path or URL, no code span, no identifier with
// an underscore, a dot or an inner capital (snake_case, pkg.Func,
// camelCase; a word in capitals alone, such as OK or API, is none, and so
// are the abbreviations e.g., i.e., a.k.a., n.b. and p.s.).
// Messages of other roles are never filler. [Options.DistillNovel] skips
// filler.
func IsFiller(role Role, text string) bool {
	if role != RoleAssistant {
		return false
	}
	t := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(text), "’", "'"))
	t = strings.Join(strings.Fields(t), " ")
	opener := false
	for _, o := range fillerOpeners {
		rest, ok := strings.CutPrefix(t, o)
		if after, _ := utf8.DecodeRuneInString(rest); ok && (rest == "" || !isWordRune(after)) {
			opener = true
			break
		}
	}
	return opener && !hasArtifact(text)
}

// hasArtifact reports whether text holds something worth keeping verbatim:
// a digit, a slash, a backquote, or a word with an underscore, an inner dot
// (but for the abbreviations e.g., i.e., a.k.a., n.b. and p.s.) or an inner
// capital letter (see innerCapital).
func hasArtifact(text string) bool {
	if strings.ContainsAny(text, "0123456789/`\\") {
		return true
	}
	for _, w := range strings.Fields(text) {
		w = strings.Trim(w, ".,;:!?()[]{}\"'")
		if strings.Contains(w, "_") || strings.Contains(w, "::") {
			return true
		}
		if i := strings.IndexByte(w, '.'); i > 0 && i < len(w)-1 && !dottedAbbreviations[strings.ToLower(w)] {
			return true
		}
		if innerCapital(w) {
			return true
		}
	}
	return false
}

// dottedAbbreviations are words with an inner dot that are prose, not
// identifiers, as hasArtifact sees them (outer punctuation trimmed).
var dottedAbbreviations = map[string]bool{"e.g": true, "i.e": true, "a.k.a": true, "n.b": true, "p.s": true}

// innerCapital reports whether w has a capital letter after its first
// character and a lower-case letter somewhere (camelCase, HTTPServer): a
// word in capitals alone (OK, API) is not an identifier.
func innerCapital(w string) bool {
	inner, lower := false, false
	for j, r := range w {
		inner = inner || (j > 0 && unicode.IsUpper(r))
		lower = lower || unicode.IsLower(r)
	}
	return inner && lower
}

// EpisodeConfidence is the confidence of a compaction episode memory.
const EpisodeConfidence = 0.7

// EpisodeText returns the text [RecordEpisode] stores for a compaction, e.g.
//
//	[pre-compact] Memory-aware compaction: 48200→18600 tokens (61.4% dropped,
//	38.0% of dropped tokens memory-covered). Session: abc
func EpisodeText(stats Stats, session string) string {
	return fmt.Sprintf("[pre-compact] Memory-aware compaction: %d→%d tokens (%.1f%% dropped, %.1f%% of dropped tokens memory-covered). Session: %s",
		stats.BeforeTokens, stats.AfterTokens, stats.DroppedPct, stats.CoveredDroppedPct, session)
}

// RecordEpisode writes a memory of kind "episode" (confidence 0.7) that
// describes a compaction with [EpisodeText], embedded with embedder, and
// returns it; the caller owns the returned Memory, whose Vector is not
// shared with the store. The covered share it reports is Stats.CoveredDroppedPct: the
// share of dropped tokens whose coverage reached the novelty threshold.
// It returns an error wrapping ErrInvalidOption if store or embedder is nil,
// one wrapping ErrInvalidEmbedding (and, for compatibility,
// ErrInvalidVector) if the embedder's answer is not one finite vector, and
// the embedder's or store's error otherwise.
func RecordEpisode(ctx context.Context, store MemoryStore, embedder Embedder, stats Stats, session string) (Memory, error) {
	if store == nil || embedder == nil {
		return Memory{}, fmt.Errorf("%w: RecordEpisode needs a store and an embedder", ErrInvalidOption)
	}
	text := EpisodeText(stats, session)
	vecs, err := embedder.Embed(ctx, []string{text})
	if err != nil {
		return Memory{}, fmt.Errorf("embed episode: %w", err)
	}
	if err := checkVectors(vecs, 1, true); err != nil {
		return Memory{}, fmt.Errorf("embed episode: %w (%w): %v", ErrInvalidEmbedding, ErrInvalidVector, err)
	}
	m := Memory{
		ID:         MemoryID(KindEpisode, text),
		Text:       text,
		Kind:       KindEpisode,
		Confidence: EpisodeConfidence,
		Vector:     vecs[0],
		CreatedAt:  time.Now().UTC(),
		Source:     "pre-compact: session " + session,
	}
	if err := store.Add(ctx, m); err != nil {
		return Memory{}, fmt.Errorf("store episode: %w", err)
	}
	m.Vector = slices.Clone(m.Vector) // the store may keep the one it was given
	return m, nil
}

// distillFailStreak is how many store calls in a row may fail before
// distillation stops for the call (see distill).
const distillFailStreak = 3

// errStoreDown is the error distillation joins when it stops after
// distillFailStreak failed store calls in a row, untried candidates left.
func errStoreDown(untried int) error {
	return fmt.Errorf("%w after %d failed store calls in a row, %d candidates not tried", ErrDistillStopped, distillFailStreak, untried)
}
