package chitta

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestShowsValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text, v string
		want    bool
	}{
		{`{"id": "JG7FMM"}`, "JG7FMM", true},
		{"my id is JG7FMM.", "JG7FMM", true},
		{"JG7FMM: booked", "JG7FMM", true},
		{"JG7FMMX", "JG7FMM", false},
		{"XJG7FMM", "JG7FMM", false},
		{"2024-05-21T10:00", "2024-05-21", false},
		{"on 2024-05-21.5 or 2024-05-21", "2024-05-21", true},
		{"a_12 and 12", "12", true},
		{"a_12", "12", false},
		{"", "12", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, showsValue(tt.text, tt.v), "%q in %q", tt.v, tt.text)
	}
}

func TestValueSet(t *testing.T) {
	t.Parallel()
	s := newValueSet()
	s.logging = true
	s.addText(`user omar_davis_3817 asked: "JG7FMM" on 2024-05-21. x`)
	for _, v := range []string{"omar_davis_3817", "JG7FMM", "2024-05-21"} {
		assert.True(t, s.has(v), v)
	}
	for _, v := range []string{"x", "asked", "user"} {
		assert.False(t, s.has(v), "%s is never listed", v)
	}
	mark := s.mark()
	s.addText("HAT028 JG7FMM")
	assert.True(t, s.has("HAT028"))
	s.undo(mark)
	assert.False(t, s.has("HAT028"), "undone")
	assert.True(t, s.has("JG7FMM"), "held before the mark")
	var none *valueSet
	none.addText("HAT028")
	none.undo(none.mark())
	assert.False(t, none.has("HAT028"))
}
