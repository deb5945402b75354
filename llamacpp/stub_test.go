//go:build !cgo || !llamacpp

package llamacpp

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStubUnavailable(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, err := New("model.gguf", nil)
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Nil(t, e)
	assert.Contains(t, err.Error(), "-tags llamacpp")

	_, err = New("model.gguf", &Options{Threads: -1})
	require.ErrorIs(t, err, ErrInvalidOption)

	var stub *Embedder
	_, err = stub.Embed(ctx, []string{"x"})
	require.ErrorIs(t, err, ErrUnavailable)
	_, err = stub.EmbedQueries(ctx, []string{"x"})
	require.ErrorIs(t, err, ErrUnavailable)
	_, err = stub.Queries().Embed(ctx, []string{"x"})
	require.ErrorIs(t, err, ErrUnavailable)
	assert.Zero(t, stub.Dimensions())
	assert.NoError(t, stub.Close())
}
