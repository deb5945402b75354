package silentpg

import (
	"net"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestURL: the server accepts a connection, sends nothing on it (a read
// waits until its deadline) and keeps it open; the URL carries the
// password.
func TestURL(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(URL(t))
	require.NoError(t, err)
	pw, ok := u.User.Password()
	assert.True(t, ok)
	assert.Equal(t, Password, pw)
	assert.Equal(t, "postgres", u.Scheme)

	c, err := net.Dial("tcp", u.Host)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Write([]byte("startup"))
	require.NoError(t, err)
	require.NoError(t, c.SetReadDeadline(time.Now().Add(200*time.Millisecond)))
	_, err = c.Read(make([]byte, 1))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded, "nothing is ever sent")
}
