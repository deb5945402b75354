package adaptkit

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// TestMemoIdentity: a memo finds a text by the identity of the strings it
// was composed from, never by their bytes (an equal string elsewhere in
// memory is another key), finds nearly all of a conversation's texts in
// the next, and keeps no entry that the last two conversations did not
// use.
func TestMemoIdentity(t *testing.T) {
	t.Parallel()
	const n = 500
	vals := commands(n)
	var mm memo
	pass := func(vals []string, name string) (hits int) {
		mm.turn()
		for i, v := range vals {
			if text, h, ok := mm.recall(memoCall, name, "cmd", v); ok {
				require.Equal(t, name+" "+v, text, "value %d", i)
				hits++
			} else {
				mm.put(h, memoCall, name, "cmd", v, name+" "+v)
			}
		}
		return hits
	}
	assert.Zero(t, pass(vals, "bash"))
	assert.Zero(t, pass(vals, "bash"), "the table grew to the conversation's size, losing its entries")
	// Where the hash puts a key depends on the strings' addresses, so the
	// share lost to full sets of places varies from run to run (0.8% on
	// average, at most 4% in 5 000 runs); 90% leaves no room for a flake.
	full := pass(vals, "bash")
	assert.GreaterOrEqual(t, full, n*90/100, "the same strings again")
	// The suffix's texts were all found or made by the last pass; it loses
	// about what that pass lost (never more in 5 000 runs; twice that is
	// the bound, for a put in this pass that takes a later text's place).
	assert.GreaterOrEqual(t, pass(vals[n/2:], "bash"), n/2-2*(n-full), "a suffix of them")
	copies := clones(vals)
	assert.Zero(t, pass(copies, "bash"), "equal strings elsewhere in memory")
	assert.Zero(t, pass(vals, strings.Clone("bash")), "another name string")
	// Three conversations of other strings: the entries of vals died two
	// turns ago and hold nothing.
	pass(copies, "bash")
	pass(copies, "bash")
	for _, e := range mm.table {
		if e.h != 0 {
			assert.GreaterOrEqual(t, e.gen+1, mm.gen, "an entry of a conversation the last two did not use")
		}
	}
}

// TestMemoGuess: a conversation looked up in the order of the last one
// (the same again, or with its first texts dropped) is found by the
// memo's guesses, without hashing; one in another order, or with other
// strings, is not, and gets the same texts from recall.
func TestMemoGuess(t *testing.T) {
	t.Parallel()
	const n = 300
	vals := commands(n)
	var mm memo
	pass := func(vals []string) (guessed, recalled int) {
		mm.turn()
		for i, v := range vals {
			want := "bash " + v
			if text, ok := mm.guessCall("bash", map[string]any{"cmd": v}); ok {
				require.Equal(t, want, text, "value %d", i)
				guessed++
			} else if text, h, ok := mm.recall(memoCall, "bash", "cmd", v); ok {
				require.Equal(t, want, text, "value %d", i)
				recalled++
			} else {
				mm.put(h, memoCall, "bash", "cmd", v, want)
			}
		}
		return guessed, recalled
	}
	pass(vals)
	pass(vals) // the table grew, losing its entries
	guessed, recalled := pass(vals)
	// A text lost to a full set of places (see TestMemoIdentity) is made
	// again; the guess after it fails once, and recall finds that text.
	lost := n - guessed - recalled
	assert.GreaterOrEqual(t, guessed, n-3*lost-1, "the same order again (%d recalled, %d lost)", recalled, lost)
	guessed, _ = pass(vals[10:])
	assert.GreaterOrEqual(t, guessed, n-10-3*lost-2, "its first texts dropped")
	rev := slices.Clone(vals)
	slices.Reverse(rev)
	guessed, recalled = pass(rev)
	assert.LessOrEqual(t, guessed, 2, "in reverse order")
	assert.Greater(t, recalled, n/2, "in reverse order, by recall")
	guessed, recalled = pass(clones(vals))
	assert.Zero(t, guessed+recalled, "equal strings elsewhere in memory")
}

// commands returns n distinct argument values.
func commands(n int) []string {
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("go test ./p%d", i)
	}
	return vals
}

// clones returns copies of vals elsewhere in memory.
func clones(vals []string) []string {
	c := make([]string, len(vals))
	for i, v := range vals {
		c[i] = strings.Clone(v)
	}
	return c
}

// TestMemoArgsHeld: the memo counts the checks of arguments its entries
// hold as entries are made, replaced and swept and as its table grows,
// and remembers no more arguments once it holds maxArgChecks (their
// texts are still right, composed every time).
func TestMemoArgsHeld(t *testing.T) {
	t.Parallel()
	held := func(mm *memo) (n int) {
		for _, e := range mm.table {
			n += len(e.args)
		}
		return n
	}
	var b Builder
	for conv, n := range []int{50, 400, 400, 60, 60, 60, 900} {
		b.Reuse(n)
		for i := range n {
			v := fmt.Sprint(i % (conv*40 + 7))
			b.CallMessage(chitta.RoleAssistant, "c", "book", map[string]any{"a": v, "b": []any{1.0, v}})
		}
		b.Finish()
		require.Equal(t, held(&b.memo), b.memo.held, "conversation %d", conv)
	}
	big := make([]string, maxChecks-2) // a map, a []string and its strings: maxChecks checks
	for i := range big {
		big[i] = fmt.Sprint(i)
	}
	const n = 4 * maxArgChecks / maxChecks
	var want []chitta.Message
	for range 3 {
		b.Reuse(n)
		for i := range n {
			b.CallMessage(chitta.RoleAssistant, "c", "read", map[string]any{"paths": big[i%len(big):]})
		}
		got := b.Finish()
		require.Equal(t, held(&b.memo), b.memo.held)
		assert.Less(t, b.memo.held, maxArgChecks+maxChecks)
		assert.Greater(t, b.memo.held, maxArgChecks-maxChecks, "the budget is reached")
		if want == nil {
			want = slices.Clone(got)
		}
		assert.Equal(t, want, got)
	}
}
