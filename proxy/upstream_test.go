package proxy_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/v4cert/v4cert/proxy"
)

// badUpstream misbehaves by path and answers /api/v4/users/1 correctly, so
// the test can see that one bad answer does not stop the proxy.
func badUpstream(t *testing.T) string {
	t.Helper()
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	return newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v4/users/1":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"message":"404 User Not Found"}`))
		case "/api/v4/users/2": // malformed JSON
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(404)
			w.Write([]byte(`{"message": "404 User`))
		case "/api/v4/users/3": // wrong content type
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(404)
			w.Write([]byte(`<h1>Not Found</h1>`))
		case "/api/v4/users/4": // truncated: promises more than it sends
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "500")
			w.WriteHeader(404)
			w.Write([]byte(`{"message":`))
			w.(http.Flusher).Flush()
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		case "/api/v4/users/5": // hangs before answering
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "/api/v4/users/6": // hangs in the middle of the body
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "100")
			w.WriteHeader(404)
			w.Write([]byte(`{"message":`))
			w.(http.Flusher).Flush()
			select {
			case <-release:
			case <-r.Context().Done():
			}
		case "/api/v4/users/7": // closes without a word
			conn, _, _ := w.(http.Hijacker).Hijack()
			conn.Close()
		}
	}))
}

func TestBadUpstreamAnswers(t *testing.T) {
	up := badUpstream(t)
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeValidate, Upstream: up, Timeout: 300 * time.Millisecond})
	client := &http.Client{Timeout: 5 * time.Second}
	want := map[string]string{
		"2": "malformed JSON",
		"3": "Content-Type application/json",
		"4": "cut short",
		"5": "did not answer within",
		"6": "stalled",
		"7": "the upstream failed",
	}
	var wg sync.WaitGroup
	for id := range want {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := client.Get(base + "/api/v4/users/" + id)
			if err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if (id == "5" || id == "7") && (res.StatusCode < 502 || res.Header.Get("X-V4cert-Proxy") == "") {
					t.Errorf("users/%s: the proxy's own answer should be a marked 502/504, got %d", id, res.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	// Still serving.
	res, body := get(t, client, base+"/api/v4/users/1")
	if res.StatusCode != 200 || !strings.Contains(body, "404 User Not Found") {
		t.Fatalf("after bad answers: %d %s", res.StatusCode, body)
	}
	vs := p.Drain()
	for id, what := range want {
		found := false
		for _, v := range vs {
			if strings.HasSuffix(v.URL, "/users/"+id) && v.Severity == proxy.SeverityError && strings.Contains(v.Expected+" "+v.Seen, what) {
				found = true
			}
		}
		if !found {
			t.Errorf("users/%s: no error finding mentioning %q in %+v", id, what, vs)
		}
	}
}

// TestProxyKeepsAliveUnderGarbage feeds the proxy itself malformed requests.
func TestProxyKeepsAliveUnderGarbage(t *testing.T) {
	ref := newReference(t, 1)
	_, base := startProxy(t, proxy.Options{Mode: proxy.ModeValidate, Upstream: ref.URL})
	for _, raw := range []string{"GARBAGE\r\n\r\n", "GET /api/v4/users HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", "POST /api/v4/users HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nshort"} {
		conn, err := net.Dial("tcp", hostOf(base))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(2 * time.Second))
		io.WriteString(conn, raw)
		if strings.HasSuffix(raw, "short") {
			conn.(*net.TCPConn).CloseWrite()
		}
		bufio.NewReader(conn).ReadString('\n')
		conn.Close()
	}
	res, _ := get(t, http.DefaultClient, base+"/api/v4/users/1", "PRIVATE-TOKEN", rootToken)
	if res.StatusCode != 200 {
		t.Fatalf("after garbage: %d", res.StatusCode)
	}
}
