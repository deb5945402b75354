package chitta

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSameMessageComparesEveryField: the Compactor reuses a kept message
// of the last call when sameMessage says the caller's is the same, so a
// field it skips comes back stale (OpensWithThinking did). Each exported
// field of Message, changed alone, must make two messages differ.
func TestSameMessageComparesEveryField(t *testing.T) {
	t.Parallel()
	base := Message{Role: RoleAssistant, Content: "c", MediaTokens: 1, ToolCallIDs: []string{"a"},
		ToolResultIDs: []string{"b"}, Raw: []byte(`{}`)}
	require.True(t, sameMessage(&base, &base))
	typ := reflect.TypeFor[Message]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		t.Run(f.Name, func(t *testing.T) {
			other := base
			v := reflect.ValueOf(&other).Elem().Field(i)
			switch v.Kind() {
			case reflect.String:
				v.SetString(v.String() + "x")
			case reflect.Int:
				v.SetInt(v.Int() + 1)
			case reflect.Bool:
				v.SetBool(!v.Bool())
			case reflect.Slice:
				switch f.Type.Elem().Kind() {
				case reflect.String:
					v.Set(reflect.ValueOf([]string{"z"}))
				case reflect.Uint8:
					v.SetBytes([]byte(`{"x":1}`))
				default:
					t.Fatalf("field %s: slice of %v: teach this test to change it", f.Name, f.Type.Elem())
				}
			default:
				t.Fatalf("field %s of kind %v: teach this test to change it", f.Name, v.Kind())
			}
			assert.False(t, sameMessage(&base, &other), "messages differing in %s compared the same", f.Name)
		})
	}
}

// TestCompactorOpensWithThinkingNotStale: between compactions the
// Compactor returned the last call's copy of a message whose
// OpensWithThinking the caller had since set.
func TestCompactorOpensWithThinkingNotStale(t *testing.T) {
	t.Parallel()
	c, err := NewCompactor(nil, Policy{MaxTokens: 10000})
	require.NoError(t, err)
	msgs := []Message{{Role: RoleUser, Content: "hi"}, {Role: RoleAssistant, Content: "let me think"}}
	_, err = c.Compact(t.Context(), msgs)
	require.NoError(t, err)
	msgs = append([]Message{msgs[0], msgs[1]}, Message{Role: RoleUser, Content: "go on"})
	msgs[1].OpensWithThinking = true
	res, err := c.Compact(t.Context(), msgs)
	require.NoError(t, err)
	require.False(t, res.Stats.Compacted)
	for j, i := range res.Kept {
		assert.Equal(t, msgs[i].OpensWithThinking, res.Messages[j].OpensWithThinking, "kept message %d", i)
	}
}
