package pgstore

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
)

// killSwitch wraps a dialer so that, once armed, the next read from any of
// its connections closes that connection instead: the server's answer is
// lost mid-call, as when the network or the backend dies.
type killSwitch struct {
	armed atomic.Bool
}

func (k *killSwitch) arm() { k.armed.Store(true) }

func (k *killSwitch) dial(next func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if next == nil {
		var d net.Dialer
		next = d.DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := next(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &killableConn{Conn: c, k: k}, nil
	}
}

type killableConn struct {
	net.Conn
	k    *killSwitch
	once sync.Once
}

func (c *killableConn) Read(p []byte) (int, error) {
	if c.k.armed.CompareAndSwap(true, false) {
		c.once.Do(func() { c.Conn.Close() })
	}
	return c.Conn.Read(p)
}
