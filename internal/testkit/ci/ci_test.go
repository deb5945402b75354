package ci

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// fakeTB records what Need does.
type fakeTB struct{ fatal, skip string }

func (*fakeTB) Helper()                             {}
func (f *fakeTB) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }
func (f *fakeTB) Skipf(format string, args ...any)  { f.skip = fmt.Sprintf(format, args...) }

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
			var f fakeTB
			Need(&f, "X is not set: run %s", "x.sh")
			if tc.ci {
				assert.Equal(t, "missing in CI: X is not set: run x.sh", f.fatal)
				assert.Empty(t, f.skip)
			} else {
				assert.Equal(t, "X is not set: run x.sh", f.skip)
				assert.Empty(t, f.fatal)
			}
		})
	}
}
