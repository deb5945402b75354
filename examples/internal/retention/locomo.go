package retention

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/chitta-go/chitta"
)

// ErrInvalidData reports input data this package cannot read.
var ErrInvalidData = errors.New("retention: invalid data")

// Conversation is one LoCoMo conversation flattened to messages: speaker_a
// is the user, speaker_b the assistant, and each message's content is
// "<speaker>: <text>" plus "\n[image: <caption>]" when the turn shares an
// image. The caller owns it; nothing in this package modifies it.
type Conversation struct {
	ID           string
	Messages     []chitta.Message
	DiaIDs       []string // dia_id of each message
	Observations []Observation
	Questions    []Question
	// BadEvidence counts question evidence references that name no turn of
	// the conversation (they are left out of the questions' evidence).
	BadEvidence int
	// NoEvidence counts questions dropped for want of any valid evidence.
	NoEvidence int
}

// Observation is a LoCoMo observation fact with the turns it cites, by
// message index.
type Observation struct {
	Text  string
	Cites []int
}

// Question is a LoCoMo question with its evidence turns, by message index
// (deduplicated, ascending). Category 1–4 are answerable, 5 adversarial.
type Question struct {
	Text     string
	Category int
	Evidence []int
}

// Covered returns, per message, whether an observation cites it.
func (c *Conversation) Covered() []bool {
	cov := make([]bool, len(c.Messages))
	for _, o := range c.Observations {
		for _, i := range o.Cites {
			cov[i] = true
		}
	}
	return cov
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

type locomoItem struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Category int      `json:"category"`
	} `json:"qa"`
	Observation map[string]map[string][][]json.RawMessage `json:"observation"`
}

// LoadLoCoMo reads a LoCoMo JSON file (a list of conversations). Sessions
// are taken in numeric order; date keys without a session list are
// ignored. Evidence strings holding several IDs ("D8:6; D9:17") are split;
// IDs naming no turn are counted in Conversation.BadEvidence and questions
// left without evidence are dropped. An item without a conversation, or
// whose session_N lists hold no turn, is an error naming the item
// (its index and sample_id): it is not an empty conversation. Errors wrap
// [ErrInvalidData].
func LoadLoCoMo(r io.Reader) ([]Conversation, error) {
	var items []locomoItem
	if err := json.NewDecoder(r).Decode(&items); err != nil {
		return nil, fmt.Errorf("%w: locomo: %v", ErrInvalidData, err)
	}
	out := make([]Conversation, 0, len(items))
	for k, it := range items {
		c, err := convertLoCoMo(it)
		if err != nil {
			name := fmt.Sprintf("locomo item %d", k)
			if it.SampleID != "" {
				name += fmt.Sprintf(" (sample_id %q)", it.SampleID)
			}
			return nil, fmt.Errorf("%w: %s: %v", ErrInvalidData, name, err)
		}
		out = append(out, c)
	}
	return out, nil
}

func convertLoCoMo(it locomoItem) (Conversation, error) {
	c := Conversation{ID: it.SampleID}
	if it.Conversation == nil { // absent or null
		return c, errors.New("conversation: required")
	}
	var speakerA string
	if raw, ok := it.Conversation["speaker_a"]; ok {
		if err := json.Unmarshal(raw, &speakerA); err != nil {
			return c, fmt.Errorf("speaker_a: want a string")
		}
	}
	type session struct {
		n     int
		turns []locomoTurn
	}
	var sessions []session
	for key, raw := range it.Conversation {
		rest, ok := strings.CutPrefix(key, "session_")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(rest)
		if err != nil { // session_N_date_time and the like
			continue
		}
		var turns []locomoTurn
		if err := json.Unmarshal(raw, &turns); err != nil {
			return c, fmt.Errorf("%s: want a list of turns", key)
		}
		sessions = append(sessions, session{n, turns})
	}
	slices.SortFunc(sessions, func(a, b session) int { return a.n - b.n })
	index := map[string]int{}
	for _, s := range sessions {
		for _, t := range s.turns {
			role := chitta.RoleAssistant
			if t.Speaker == speakerA {
				role = chitta.RoleUser
			}
			content := t.Speaker + ": " + t.Text
			if t.BlipCaption != "" {
				content += "\n[image: " + t.BlipCaption + "]"
			}
			if _, dup := index[t.DiaID]; !dup {
				index[t.DiaID] = len(c.Messages)
			}
			c.Messages = append(c.Messages, chitta.Message{Role: role, Content: content})
			c.DiaIDs = append(c.DiaIDs, t.DiaID)
		}
	}
	if len(c.Messages) == 0 {
		return c, errors.New("conversation: no turns (want session_N lists of turns)")
	}
	resolve := func(refs []string) (out []int, bad int) {
		for _, ref := range refs {
			for id := range strings.FieldsFuncSeq(ref, func(r rune) bool { return r == ';' || r == ',' || r == ' ' }) {
				i, ok := index[id]
				if !ok {
					bad++
					continue
				}
				if !slices.Contains(out, i) {
					out = append(out, i)
				}
			}
		}
		slices.Sort(out)
		return out, bad
	}
	for _, q := range it.QA {
		ev, bad := resolve(q.Evidence)
		c.BadEvidence += bad
		if len(ev) == 0 {
			c.NoEvidence++
			continue
		}
		c.Questions = append(c.Questions, Question{Text: q.Question, Category: q.Category, Evidence: ev})
	}
	obsKeys := make([]string, 0, len(it.Observation))
	for k := range it.Observation {
		obsKeys = append(obsKeys, k)
	}
	slices.SortFunc(obsKeys, func(a, b string) int { return sessionNumber(a) - sessionNumber(b) })
	for _, k := range obsKeys {
		bySpeaker := it.Observation[k]
		speakers := make([]string, 0, len(bySpeaker))
		for s := range bySpeaker {
			speakers = append(speakers, s)
		}
		slices.Sort(speakers)
		for _, s := range speakers {
			for _, fact := range bySpeaker[s] {
				o, err := observation(fact, resolve)
				if err != nil {
					return c, fmt.Errorf("%s: %s: %v", k, s, err)
				}
				c.Observations = append(c.Observations, o)
			}
		}
	}
	return c, nil
}

// observation decodes [fact, ref] where ref is a dia_id or a list of them.
func observation(fact []json.RawMessage, resolve func([]string) ([]int, int)) (Observation, error) {
	if len(fact) < 2 {
		return Observation{}, fmt.Errorf("want [fact, dia_id]")
	}
	var o Observation
	if err := json.Unmarshal(fact[0], &o.Text); err != nil {
		return o, fmt.Errorf("fact: want a string")
	}
	var refs []string
	var one string
	if err := json.Unmarshal(fact[1], &one); err == nil {
		refs = []string{one}
	} else if err := json.Unmarshal(fact[1], &refs); err != nil {
		return o, fmt.Errorf("dia_id: want a string or a list of strings")
	}
	o.Cites, _ = resolve(refs)
	return o, nil
}

// sessionNumber returns N of "session_N_observation" (0 when absent).
func sessionNumber(key string) int {
	rest, _ := strings.CutPrefix(key, "session_")
	n, _ := strconv.Atoi(strings.TrimSuffix(rest, "_observation"))
	return n
}
