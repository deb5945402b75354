package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/chitta-go/chitta"
)

// Limits of list_memories.
const (
	defaultListLimit = 50
	maxListLimit     = 1000
)

// listInput is the arguments of list_memories.
type listInput struct {
	Kinds        []string `json:"kinds,omitempty" jsonschema:"only memories of these kinds (default: every kind)"`
	ExcludeKinds []string `json:"exclude_kinds,omitempty" jsonschema:"never memories of these kinds, e.g. [\"episode\", \"brief\"]"`
	Limit        *int     `json:"limit,omitempty" jsonschema:"how many memories to return, 1 to 1000 (default 50)"`
	Offset       int      `json:"offset,omitempty" jsonschema:"how many of the newest matching memories to skip (default 0)"`
}

// listed is one memory returned by list_memories (and, with its
// similarity, by recall).
type listed struct {
	ID         string    `json:"id"`
	Text       string    `json:"text"`
	Kind       string    `json:"kind"`
	Confidence float64   `json:"confidence"`
	CreatedAt  time.Time `json:"created_at"`
	Source     string    `json:"source,omitempty"`
}

// listOutput is the structured result of list_memories.
type listOutput struct {
	Memories []listed `json:"memories" jsonschema:"the matching memories, newest first (ties by ID)"`
	Total    int      `json:"total" jsonschema:"how many memories match the kind filter"`
	Offset   int      `json:"offset" jsonschema:"the offset of the first memory returned"`
}

func listedOf(m chitta.Memory) listed {
	return listed{ID: m.ID, Text: m.Text, Kind: m.Kind, Confidence: m.Confidence, CreatedAt: m.CreatedAt, Source: m.Source}
}

// forgetInput is the arguments of forget.
type forgetInput struct {
	ID string `json:"id" jsonschema:"the ID of the memory to delete (as remember, recall and list_memories report it)"`
}

// forgetOutput is the structured result of forget.
type forgetOutput struct {
	ID       string `json:"id" jsonschema:"the deleted memory's ID"`
	Memories int    `json:"memories" jsonschema:"number of memories left in the store"`
}

// manageTools are list_memories and forget.
func (a *app) manageTools() []tool {
	return []tool{
		{
			def: &mcp.Tool{
				Name:         "list_memories",
				Description:  "List the stored memories, newest first, optionally only some kinds (fact, correction, preference, habit, wisdom, episode, brief, …), a page at a time.",
				InputSchema:  listSchema(),
				OutputSchema: schemaFor[listOutput](),
			},
			call: a.listMemories,
		},
		{
			def: &mcp.Tool{
				Name:         "forget",
				Description:  "Delete one memory by its ID.",
				InputSchema:  forgetSchema(),
				OutputSchema: schemaFor[forgetOutput](),
			},
			call: a.forget,
		},
	}
}

// listMemories implements the list_memories tool.
func (a *app) listMemories(ctx context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var in listInput
	if err := decodeArgs(args, &in); err != nil {
		return nil, err
	}
	limit := defaultListLimit
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > maxListLimit {
			return nil, outOfRange("limit", *in.Limit)
		}
		limit = *in.Limit
	}
	if in.Offset < 0 {
		return nil, outOfRange("offset", in.Offset)
	}
	for field, kinds := range map[string][]string{"kinds": in.Kinds, "exclude_kinds": in.ExcludeKinds} {
		for i, k := range kinds {
			if strings.TrimSpace(k) == "" {
				return nil, invalidParams("%s[%d]: want a non-empty kind", field, i)
			}
		}
	}
	all, err := a.allMatching(ctx, chitta.KindFilter{Include: in.Kinds, Exclude: in.ExcludeKinds})
	if err != nil {
		return toolError("list memories: %v", err), nil
	}
	for i := range all {
		all[i].Vector = nil // not returned: keep only what is listed
	}
	slices.SortFunc(all, func(x, y chitta.Memory) int {
		if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(x.ID, y.ID)
	})
	out := listOutput{Memories: []listed{}, Total: len(all), Offset: in.Offset}
	start := min(in.Offset, len(all))
	for _, m := range all[start : start+min(limit, len(all)-start)] { // in.Offset+limit may overflow
		out.Memories = append(out.Memories, listedOf(m))
	}
	summary := fmt.Sprintf("%d of %d memories", len(out.Memories), out.Total)
	if in.Offset > 0 {
		summary += fmt.Sprintf(" from offset %d", in.Offset)
	}
	return structured(out, summary)
}

// forget implements the forget tool.
func (a *app) forget(_ context.Context, args json.RawMessage) (*mcp.CallToolResult, error) {
	var in forgetInput
	if err := decodeArgs(args, &in); err != nil {
		return nil, err
	}
	if in.ID == "" {
		return nil, invalidParams("id: required (the ID of a memory)")
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := a.store.Delete(in.ID); err != nil {
		if errors.Is(err, chitta.ErrNotFound) {
			return nil, invalidParams("id: no memory with ID %q", in.ID)
		}
		return toolError("forget: %v", err), nil
	}
	if err := a.save(); err != nil {
		return toolError("%v", err), nil // Save says "save store"
	}
	out := forgetOutput{ID: in.ID, Memories: a.store.Len()}
	return structured(out, fmt.Sprintf("forgot %s (%d memories)", in.ID, out.Memories))
}

func listSchema() *jsonschema.Schema {
	s := schemaFor[listInput]()
	l := plain(s.Properties["limit"], "integer")
	l.Minimum, l.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(maxListLimit))
	l.Default = json.RawMessage(fmt.Sprint(defaultListLimit))
	s.Properties["offset"].Minimum = jsonschema.Ptr(0.0)
	s.Properties["offset"].Default = json.RawMessage("0")
	return s
}

func forgetSchema() *jsonschema.Schema {
	s := schemaFor[forgetInput]()
	s.Properties["id"].MinLength = jsonschema.Ptr(1)
	return s
}
