package ci

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestNeed(t *testing.T) {
	for _, tc := range []struct {
		env string
		ci  bool
	}{
		{"", false}, {"0", false}, {"false", false},
		{"true", true}, {"1", true}, {"yes", true},
	} {
		t.Run("CI="+tc.env, func(t *testing.T) {
			t.Setenv("CI", tc.env)
			assert.Equal(t, tc.ci, Enabled())
			var f Recorder
			Need(&f, "X is not set: run %s", "x.sh")
			if tc.ci {
				assert.Equal(t, "missing in CI: X is not set: run x.sh", f.Fatal)
				assert.Empty(t, f.Skip)
			} else {
				assert.Equal(t, "X is not set: run x.sh", f.Skip)
				assert.Empty(t, f.Fatal)
			}
		})
	}
}
