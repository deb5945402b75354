package storepath

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsDSN(t *testing.T) {
	assert.True(t, IsDSN("postgres://u:p@h/db"))
	assert.True(t, IsDSN("PostgreSQL://h/db"))
	assert.False(t, IsDSN("/home/u/.local/share/chitta/memory.chitta"))
	assert.False(t, IsDSN("postgres.chitta"))
	assert.False(t, IsDSN(""))
}
