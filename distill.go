package chitta

import "context"

// Distilled describes one memory recorded by [Options.DistillNovel].
type Distilled struct {
	Index int    `json:"index"` // the dropped message's index in the input
	Kind  string `json:"kind"`
	Text  string `json:"text"`
	ID    string `json:"id"`
}

// distill is implemented with the memory issue.
func distill(ctx context.Context, o *resolved, msgs []Message, p *pass) ([]Distilled, error) {
	return nil, nil
}
