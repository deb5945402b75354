package openai

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmbedClientCertRefusedNotRetried: a server that requires a client
// certificate refuses the client by a TLS alert, which the next attempt
// meets again: the call fails at once, the alert in its error. On main it
// was retried (MaxRetries, 3 waits), as a network error is. Under TLS 1.2
// the alert ends the handshake, so the first attempt meets it. Under TLS
// 1.3 the client's handshake is done before the server checks the
// certificate, and an attempt may first see the connection close (a
// network error, retried) before the alert: there the test allows
// retries (MaxRetries 20) but checks that the call stops at the alert,
// before its retries run out (a CI run saw 2 waits with HTTP/2).
func TestEmbedClientCertRefusedNotRetried(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		version uint16
		http2   bool
	}{{tls.VersionTLS12, false}, {tls.VersionTLS13, false}, {tls.VersionTLS13, true}} {
		version := tt.version
		t.Run(fmt.Sprintf("%s/http2=%v", tls.VersionName(version), tt.http2), func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				openAIAnswer(w, request{Input: []string{"x"}}, 2, nil)
			}))
			srv.EnableHTTP2 = tt.http2
			srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake errors are the point
			srv.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: version, MaxVersion: version}
			srv.StartTLS()
			t.Cleanup(srv.Close)
			retries := 0 // Options default (3); not used under TLS 1.2: no wait is allowed
			if version == tls.VersionTLS13 {
				retries = 20
			}
			e, err := New(&Options{BaseURL: srv.URL, Model: "m", HTTPClient: srv.Client(), MaxRetries: retries}) // trusts the server, has no certificate
			require.NoError(t, err)
			var waits int
			e.sleep = func(context.Context, time.Duration) error { waits++; return nil }
			_, err = e.Embed(t.Context(), []string{"x"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "remote error: tls:")
			if version == tls.VersionTLS13 {
				assert.Less(t, waits, retries, "stopped at the alert, not by running out of retries")
			} else {
				assert.Zero(t, waits, "not retried")
			}
		})
	}
}

// TestLastingAlert: which alerts from the server are not retried, in the
// form crypto/tls reports them over TCP (a *net.OpError "remote error"
// whose Err reads as the alert) and over QUIC (a wrapped tls.AlertError);
// an alert the client sent over TCP (a "local error"), or one that may
// pass (internal error), is retried.
func TestLastingAlert(t *testing.T) {
	t.Parallel()
	remote := func(a tls.AlertError) error {
		return &url.Error{Op: "Post", URL: "https://h/v1/embeddings", Err: &net.OpError{Op: "remote error", Err: a}}
	}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"certificate required", remote(116), true},
		{"bad certificate", remote(42), true},
		{"unknown authority", remote(48), true},
		{"protocol version", remote(70), true},
		{"handshake failure", remote(40), true},
		{"QUIC form", fmt.Errorf("handshake: %w%.0w", errors.New("x"), tls.AlertError(116)), true},
		{"internal error", remote(80), false},
		{"bad record MAC", remote(20), false},
		{"sent, not received", &net.OpError{Op: "local error", Err: errors.New(tls.AlertError(42).Error())}, false},
		{"plain network error", &net.OpError{Op: "dial", Err: errors.New("connection refused")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, lastingTLSError(tt.err))
		})
	}
}
