package adapttest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/chitta-go/chitta"
)

// PNGBase64 returns a w × h PNG image in standard base64.
func PNGBase64(t *testing.T, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))))
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// ParsedMedia checks that got, an adapter's messages for the SDK values
// sdk, have the MediaTokens want, and the Content and MediaTokens that
// chitta.ParseMessages reads from the SDK's JSON of them.
func ParsedMedia(t *testing.T, sdk any, got []chitta.Message, want []int) {
	t.Helper()
	wire, err := json.Marshal(sdk)
	require.NoError(t, err)
	parsed, err := chitta.ParseMessages(wire)
	require.NoError(t, err)
	require.Len(t, got, len(want))
	require.Len(t, parsed, len(got))
	for i := range got {
		assert.Equal(t, want[i], got[i].MediaTokens, "message %d", i)
		assert.Equal(t, parsed[i].MediaTokens, got[i].MediaTokens, "message %d as chitta.ParseMessages counts it", i)
		assert.Equal(t, parsed[i].Content, got[i].Content, "message %d as chitta.ParseMessages reads it", i)
	}
}
