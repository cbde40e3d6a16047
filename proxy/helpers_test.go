package proxy_test

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/v4cert/v4cert/proxy"
	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/store"
)

const rootToken = "glpat-proxytestroottoken0000000"

// newReference serves a fixed-clock reference with a few users.
func newReference(t testing.TB, users int) *httptest.Server {
	t.Helper()
	return newReferenceWith(t, users, nil)
}

// newReferenceWith serves a fixed-clock reference with a few users and
// whatever more adds to its world.
func newReferenceWith(t testing.TB, users int, more func(*store.Data) error) *httptest.Server {
	t.Helper()
	inst, err := reference.New(reference.Config{RootToken: rootToken, Seed: "none", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	err = inst.Server.Store().Write(func(d *store.Data) error {
		for i := 0; i < users; i++ {
			name := fmt.Sprintf("proxy-user-%03d", i)
			if _, err := d.CreateUser(store.NewUser{Username: name, Name: "Proxy User " + name, Email: name + "@example.com", CreatedByID: 1}); err != nil {
				return err
			}
		}
		if more != nil {
			return more(d)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(inst.Server)
	srv.Config.MaxHeaderBytes = reference.MaxHeaderBytes
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

// startProxy starts a proxy and closes it at the end of the test.
func startProxy(t testing.TB, opts proxy.Options) (*proxy.Proxy, string) {
	t.Helper()
	p, err := proxy.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	base, err := p.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			p.Close()
		}
	})
	_ = closed
	return p, base
}

// rawExchange sends one request as raw bytes and returns the raw answer.
func rawExchange(t testing.TB, addr, request string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(bufio.NewReader(conn))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func hostOf(base string) string { return strings.TrimPrefix(base, "http://") }

func get(t testing.TB, c *http.Client, url string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

func newHandlerServer(t testing.TB, h http.Handler) string {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// newLog is a logger writing bare lines to w, safe for the proxy's goroutines.
func newLog(w io.Writer) *log.Logger { return log.New(&lockedWriter{w: w}, "", 0) }

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
