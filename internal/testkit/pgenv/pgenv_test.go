package pgenv_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/chitta-go/chitta/internal/testkit/ci"
	"github.com/chitta-go/chitta/internal/testkit/pgenv"
)

func TestPgBouncer(t *testing.T) {
	t.Setenv("CHITTA_PGBOUNCER_DSN", "postgres://u@127.0.0.1:1/db")
	assert.Equal(t, "postgres://u@127.0.0.1:1/db", pgenv.PgBouncer(t))

	t.Setenv("CHITTA_PGBOUNCER_DSN", "")
	t.Setenv("CI", "true")
	var r ci.Recorder
	pgenv.PgBouncer(&r)
	assert.Contains(t, r.Fatal, "missing in CI: CHITTA_PGBOUNCER_DSN is not set")
}
