package clipmsg

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestCut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		max      int
		want     string
	}{
		{"short", "hook_event_name \"Stop\"", Max, "hook_event_name \"Stop\""},
		{"exactly max", strings.Repeat("x", 30), 30, strings.Repeat("x", 30)},
		{"cut", strings.Repeat("x", 100), 40, strings.Repeat("x", 40-len("… ( bytes cut)")-3) + "… (79 bytes cut)"},
		{"character boundary", strings.Repeat("é", 50), 40, strings.Repeat("é", 10) + "… (80 bytes cut)"},
		{"max below the note", strings.Repeat("x", 100), 3, "… (100 bytes cut)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Cut(tc.in, tc.max)
			assert.Equal(t, tc.want, got)
			assert.True(t, utf8.ValidString(got))
			if tc.max >= len("… (100 bytes cut)") {
				assert.LessOrEqual(t, len(got), tc.max)
			}
		})
	}
	huge := strings.Repeat("y", 1<<20)
	got := Cut(huge, Max)
	assert.LessOrEqual(t, len(got), Max)
	assert.True(t, strings.HasSuffix(got, "bytes cut)"), got)
}
