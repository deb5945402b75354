package adaptkit

import "slices"

// Pending pairs tool responses with the calls they answer for the SDKs
// whose calls or responses may lack IDs (genai, langchaingo): it holds the
// calls of the last message that made calls (a turn of calls; the first
// call of a new one expires those still unanswered) awaiting a response,
// in order. A response with an ID answers its call; one without answers
// the first call awaiting a response, as the Gemini API pairs function
// calls and responses by position, whether or not that call has an ID.
// chitta.ParseMessages pairs the SDKs' JSON alike. The zero value has no
// calls and is ready to use; a Pending is not safe for concurrent use.
type Pending struct {
	ids  []string
	made bool // the current message has made a call
}

// Start begins a message: its first call starts a new turn of calls.
func (p *Pending) Start() { p.made = false }

// Call records the call id (an ID the adapter gave it when it has none)
// of the current message.
func (p *Pending) Call(id string) {
	if !p.made {
		p.ids, p.made = p.ids[:0], true
	}
	p.ids = append(p.ids, id)
}

// Answer returns the ID of the call a response with the call ID id
// answers, which no longer awaits one: id itself, or, for a response
// without an ID, the first call awaiting a response ("" when none does).
func (p *Pending) Answer(id string) string {
	if id == "" {
		if len(p.ids) == 0 {
			return ""
		}
		id, p.ids = p.ids[0], p.ids[1:]
		return id
	}
	if i := slices.Index(p.ids, id); i >= 0 {
		p.ids = append(p.ids[:i:i], p.ids[i+1:]...)
	}
	return id
}
