package proxy_test

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/v4cert/v4cert/proxy"
)

var dateLine = regexp.MustCompile(`(?m)^Date: .*\r\n`)

// TestPassThroughUnchanged compares raw answers, byte for byte, direct and
// through the proxy in reverse mode: status line, every header (Content-Length
// included) and body. Date is the one header the server stamps per answer, so
// a handler that sets it explicitly is compared in full as well.
func TestPassThroughUnchanged(t *testing.T) {
	ref := newReference(t, 25)
	body := `[{"id":1,"name":"é\u2028"}]`
	fixed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Date", "Mon, 02 Jan 2006 15:04:05 GMT")
		h.Set("Content-Type", "application/json")
		h["X-Odd-Case"] = []string{"a", "b"}
		h.Set("Link", `<http://example.com/api/v4/users?page=2>; rel="next"`)
		if r.URL.Query().Get("length") != "computed" {
			h.Set("Content-Length", strconv.Itoa(len(body)))
		}
		w.WriteHeader(http.StatusOK)
		w.Write([]byte(body))
		if r.URL.Query().Get("length") == "chunked" {
			w.(http.Flusher).Flush()
			w.Write([]byte(strings.Repeat(" ", 9000)))
		}
	})
	fixedSrv := newHandlerServer(t, fixed)
	for _, c := range []struct {
		name, upstream, request string
		keepDate                bool
	}{
		{"reference users page", ref.URL, "GET /api/v4/users?per_page=5&page=2 HTTP/1.1\r\nHost: HOST\r\nPRIVATE-TOKEN: " + rootToken + "\r\nConnection: close\r\n\r\n", false},
		{"reference encoded path 404", ref.URL, "GET /api/v4/groups/a%2Fb HTTP/1.1\r\nHost: HOST\r\nPRIVATE-TOKEN: " + rootToken + "\r\nConnection: close\r\n\r\n", false},
		{"reference POST", ref.URL, "POST /api/v4/groups HTTP/1.1\r\nHost: HOST\r\nPRIVATE-TOKEN: " + rootToken + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}", false},
		{"reference HEAD", ref.URL, "HEAD /api/v4/users HTTP/1.1\r\nHost: HOST\r\nPRIVATE-TOKEN: " + rootToken + "\r\nConnection: close\r\n\r\n", false},
		{"fixed handler", fixedSrv, "GET /api/v4/users HTTP/1.1\r\nHost: HOST\r\nConnection: close\r\n\r\n", true},
		{"gzip asked", fixedSrv, "GET /api/v4/users HTTP/1.1\r\nHost: HOST\r\nAccept-Encoding: gzip\r\nConnection: close\r\n\r\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, base := startProxy(t, proxy.Options{Mode: proxy.ModeValidate, Upstream: c.upstream, PreserveHost: true})
			host := hostOf(c.upstream)
			direct := rawExchange(t, host, strings.ReplaceAll(c.request, "HOST", host))
			proxied := rawExchange(t, hostOf(base), strings.ReplaceAll(c.request, "HOST", host))
			if !c.keepDate {
				direct, proxied = dateLine.ReplaceAllString(direct, ""), dateLine.ReplaceAllString(proxied, "")
			}
			if direct != proxied {
				t.Errorf("answers differ\ndirect:\n%s\nproxied:\n%s", direct, proxied)
			}
			if !strings.Contains(direct, "Content-Length:") && !strings.Contains(c.request, "HEAD") {
				t.Errorf("expected a Content-Length in\n%s", direct)
			}
		})
	}
	// A length net/http computes goes after the sorted headers directly but
	// among them through the proxy, and chunk sizes are the writer's choice:
	// there the parsed answers (fields, length, framing, body) must agree.
	for _, q := range []string{"computed", "chunked"} {
		t.Run("length "+q, func(t *testing.T) {
			_, base := startProxy(t, proxy.Options{Mode: proxy.ModeValidate, Upstream: fixedSrv})
			req := "GET /api/v4/users?length=" + q + " HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
			d := parseRaw(t, rawExchange(t, hostOf(fixedSrv), req))
			p := parseRaw(t, rawExchange(t, hostOf(base), req))
			if !reflect.DeepEqual(d, p) {
				t.Errorf("answers differ\ndirect:  %+v\nproxied: %+v", d, p)
			}
		})
	}
}

type parsedAnswer struct {
	Status        string
	Header        http.Header
	ContentLength int64
	Chunked       bool
	Body          string
}

func parseRaw(t *testing.T, raw string) parsedAnswer {
	t.Helper()
	res, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return parsedAnswer{res.Status, res.Header, res.ContentLength, len(res.TransferEncoding) > 0, string(body)}
}

// TestForwardMode uses the proxy the way HTTP_PROXY clients do.
func TestForwardMode(t *testing.T) {
	ref := newReference(t, 3)
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeValidate})
	pu, _ := url.Parse(base)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}}
	res, body := get(t, client, ref.URL+"/api/v4/users?per_page=2", "PRIVATE-TOKEN", rootToken)
	dres, dbody := get(t, http.DefaultClient, ref.URL+"/api/v4/users?per_page=2", "PRIVATE-TOKEN", rootToken)
	if body != dbody || res.StatusCode != dres.StatusCode || res.Header.Get("Link") != dres.Header.Get("Link") || res.ContentLength != dres.ContentLength {
		t.Fatalf("forward answer differs: %d %q vs %d %q", res.StatusCode, body, dres.StatusCode, dbody)
	}
	vs := p.Drain()
	if len(vs) != 0 {
		t.Errorf("clean traffic gave findings: %+v", vs)
	}
	s := p.Summary()
	if s.Exchanges != 1 || s.Coverage["users.list"][200] != 1 {
		t.Errorf("summary %+v", s)
	}
}

// TestReverseStreams: reverse mode passes each piece of a body on as it
// comes (with a length and chunked), so a client reads the first piece
// while the upstream still holds the rest back; the exchange is checked
// once the body is whole. (goproxy's own path, through net/http's
// ReadFrom, holds back a first piece under 512 bytes.)
func TestReverseStreams(t *testing.T) {
	first, rest := `{"message":"first piece`, ` and the rest"}`
	releases := map[string]chan struct{}{"length": make(chan struct{}), "chunked": make(chan struct{})}
	up := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		release := releases[r.URL.Query().Get("framing")]
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("framing") == "length" {
			w.Header().Set("Content-Length", strconv.Itoa(len(first+rest)))
		}
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, rest)
	}))
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeValidate, Upstream: up})
	for _, framing := range []string{"length", "chunked"} {
		t.Run(framing, func(t *testing.T) {
			release := releases[framing]
			res, err := http.Get(base + "/api/v4/users/1?framing=" + framing)
			if err != nil {
				close(release)
				t.Fatal(err)
			}
			defer res.Body.Close()
			got := make([]byte, len(first))
			read := make(chan error, 1)
			go func() { _, err := io.ReadFull(res.Body, got); read <- err }()
			select {
			case err := <-read:
				close(release)
				if err != nil || string(got) != first {
					t.Fatalf("first piece: %q, %v", got, err)
				}
			case <-time.After(20 * time.Second):
				close(release)
				t.Fatal("the first piece never reached the client: the proxy held the body back")
			}
			tail, err := io.ReadAll(res.Body)
			if err != nil || string(tail) != rest {
				t.Fatalf("rest: %q, %v", tail, err)
			}
			if chunked := len(res.TransferEncoding) > 0; chunked != (framing == "chunked") {
				t.Errorf("framing %s became chunked=%v", framing, chunked)
			}
		})
	}
	p.Flush()
	if s := p.Summary(); s.Exchanges != 2 {
		t.Errorf("exchanges: %+v", s)
	}
}

// TestReverseTrailers: trailers the upstream announces, and those it adds
// late (http.TrailerPrefix), reach a reverse-mode client as goproxy passes
// them on.
func TestReverseTrailers(t *testing.T) {
	up := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Checksum")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		io.WriteString(w, `{"version":"17.0.0","revision":"abc"}`)
		w.Header().Set("X-Checksum", "sum-1")
		w.Header().Set(http.TrailerPrefix+"X-Late", "late-1")
	}))
	_, base := startProxy(t, proxy.Options{Mode: proxy.ModeValidate, Upstream: up})
	for _, target := range []string{up, base} {
		res, body := get(t, http.DefaultClient, target+"/api/v4/version")
		if res.StatusCode != 200 || !strings.Contains(body, "17.0.0") {
			t.Fatalf("%s: %d %s", target, res.StatusCode, body)
		}
		if res.Trailer.Get("X-Checksum") != "sum-1" || res.Trailer.Get("X-Late") != "late-1" {
			t.Errorf("%s: trailers %v", target, res.Trailer)
		}
	}
}
