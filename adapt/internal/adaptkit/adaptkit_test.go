package adaptkit_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
	"github.com/chitta-go/chitta/adapt/internal/adaptkit"
)

func TestText(t *testing.T) {
	t.Parallel()
	var x adaptkit.Text
	x.Add("a")
	x.Add("  \n")
	x.Add("b")
	assert.Equal(t, "a\nb", x.String())
}

func TestJSON(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "", adaptkit.JSON(nil))
	assert.Equal(t, "s", adaptkit.JSON("s"))
	assert.Equal(t, `{"a":1}`, adaptkit.JSON(json.RawMessage(`{"a":1}`)))
	assert.Equal(t, `{"a":1}`, adaptkit.JSON(map[string]int{"a": 1}))
	assert.NotEmpty(t, adaptkit.JSON(func() {}), "unmarshalable values still give text")
}

func TestCompact(t *testing.T) {
	t.Parallel()
	in := []string{"system", "old question old question old question", "new question"}
	conv := func(s []string) ([]chitta.Message, error) {
		out := make([]chitta.Message, len(s))
		for i, x := range s {
			out[i] = chitta.Message{Role: chitta.RoleUser, Content: x}
		}
		out[0].Role = chitta.RoleSystem
		return out, nil
	}
	out, res, err := adaptkit.Compact(t.Context(), in, &chitta.Options{TargetRatio: 0.4}, conv)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 2}, res.Kept)
	assert.Equal(t, []string{"system", "new question"}, out)

	boom := errors.New("boom")
	_, _, err = adaptkit.Compact(t.Context(), in, nil, func([]string) ([]chitta.Message, error) { return nil, boom })
	require.ErrorIs(t, err, boom)
	_, _, err = adaptkit.Compact(t.Context(), in, &chitta.Options{TargetRatio: 7}, conv)
	require.ErrorIs(t, err, chitta.ErrInvalidTargetRatio)
}
