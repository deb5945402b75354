package storepath

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsDSN(t *testing.T) {
	assert.True(t, IsDSN("postgres://u:p@h/db"))
	assert.True(t, IsDSN("PostgreSQL://h/db"))
	assert.False(t, IsDSN("/home/u/.local/share/chitta/memory.chitta"))
	assert.False(t, IsDSN("postgres.chitta"))
	assert.False(t, IsDSN(""))
}

func TestSplitDSN(t *testing.T) {
	rest, table, ns, err := SplitDSN("postgres://u:hunter2@h:5432/db?sslmode=disable&chitta_table=team_mem&chitta_namespace=proj+a")
	require.NoError(t, err)
	assert.Equal(t, "postgres://u:hunter2@h:5432/db?sslmode=disable", rest)
	assert.Equal(t, "team_mem", table)
	assert.Equal(t, "proj a", ns)

	rest, table, ns, err = SplitDSN("postgres://h/db")
	require.NoError(t, err)
	assert.Equal(t, "postgres://h/db", rest)
	assert.Empty(t, table)
	assert.Empty(t, ns)

	_, _, _, err = SplitDSN("postgres://u:hunter2%zz@h/db")
	require.ErrorIs(t, err, ErrBadDSN)
	assert.NotContains(t, err.Error(), "hunter2")
}
