package adaptkit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoIdentity: a memo finds a text by the identity of the strings it
// was composed from, never by their bytes (an equal string elsewhere in
// memory is another key), finds nearly all of a conversation's texts in
// the next, and keeps no entry that the last two conversations did not
// use.
func TestMemoIdentity(t *testing.T) {
	t.Parallel()
	const n = 500
	vals := make([]string, n)
	for i := range vals {
		vals[i] = fmt.Sprintf("go test ./p%d", i)
	}
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
	copies := make([]string, n)
	for i, v := range vals {
		copies[i] = strings.Clone(v)
	}
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
