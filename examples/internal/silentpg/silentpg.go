// Package silentpg is a stand-in for a PostgreSQL server that accepts
// every connection and never answers, as a host that drops the packets
// would leave a client: for the harnesses' tests of how long opening a
// postgres:// store may wait, and what it says when it gives up.
package silentpg

import (
	"net"
	"testing"
)

// Password is the password of the URL [URL] returns, which no error or
// log line may show.
const Password = "hunter2"

// URL starts a silent server on 127.0.0.1, stopped (its connections
// closed) when t ends, and returns a postgres:// URL for it, with user
// agent, password [Password], database db and sslmode=disable.
func URL(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("silentpg: listen: %v", err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		ln.Close()
		<-done
	})
	go func() {
		defer close(done)
		var conns []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				break
			}
			conns = append(conns, c) // held open, never answered
		}
		for _, c := range conns {
			c.Close()
		}
	}()
	return "postgres://agent:" + Password + "@" + ln.Addr().String() + "/db?sslmode=disable"
}
