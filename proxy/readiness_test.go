package proxy_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/v4cert/v4cert/proxy"
)

// TestReadinessEveryMode: GET and HEAD /-/readiness are the proxy's own in
// every mode, asked directly or through the proxy as HTTP_PROXY: never
// forwarded, checked, counted nor recorded.
func TestReadinessEveryMode(t *testing.T) {
	var upstreamProbes atomic.Int32
	up := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/-/readiness" {
			upstreamProbes.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"message":"404 User Not Found"}`))
	}))
	dir := t.TempDir()
	recorded, empty := filepath.Join(dir, "recorded.yaml"), filepath.Join(dir, "empty.yaml")
	for _, c := range []struct {
		name string
		opts proxy.Options
		real bool // also send one request of the API
	}{
		{"validate", proxy.Options{Mode: proxy.ModeValidate, Upstream: up}, true},
		{"forward only", proxy.Options{Mode: proxy.ModeValidate}, false},
		{"record", proxy.Options{Mode: proxy.ModeRecord, Upstream: up, Cassette: recorded}, true},
		{"record nothing else", proxy.Options{Mode: proxy.ModeRecord, Upstream: up, Cassette: empty}, false},
		{"replay", proxy.Options{Mode: proxy.ModeReplay, Cassette: recorded}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, base := startProxy(t, c.opts)
			pu, _ := url.Parse(base)
			viaProxy := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}} // absolute form, to the proxy itself
			for _, client := range []*http.Client{http.DefaultClient, viaProxy} {
				res, body := get(t, client, base+"/-/readiness")
				var ready struct {
					Status string
					Proxy  string `json:"v4cert_proxy"`
				}
				json.Unmarshal([]byte(body), &ready)
				if res.StatusCode != 200 || ready.Status != "ok" || ready.Proxy != string(c.opts.Mode) || res.Header.Get("X-V4cert-Proxy") != "readiness" {
					t.Errorf("GET /-/readiness: %d %v %s", res.StatusCode, res.Header, body)
				}
				res, body = do(t, http.MethodHead, base+"/-/readiness", "", "")
				if res.StatusCode != 200 || body != "" || res.ContentLength <= 0 {
					t.Errorf("HEAD /-/readiness: %d, length %d, body %q", res.StatusCode, res.ContentLength, body)
				}
				res, _ = do(t, http.MethodPost, base+"/-/readiness", "", "")
				if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
					t.Errorf("POST /-/readiness: %d %v", res.StatusCode, res.Header)
				}
			}
			want := 0
			if c.real {
				if res, _ := get(t, http.DefaultClient, base+"/api/v4/users/1"); res.StatusCode != http.StatusNotFound {
					t.Errorf("GET /api/v4/users/1 through the proxy: %d", res.StatusCode)
				}
				want = 1
			}
			s, vs, err := p.Close()
			if err != nil || len(vs) != 0 {
				t.Errorf("close: %v, findings %+v", err, vs)
			}
			if s.Exchanges != want || s.Unknown != 0 || s.Misses != 0 {
				t.Errorf("%d exchange(s), %d unknown endpoint(s), %d miss(es): want %d, 0, 0", s.Exchanges, s.Unknown, s.Misses, want)
			}
			if got := upstreamProbes.Load(); got != 0 {
				t.Errorf("the upstream was probed %d times", got)
			}
			if c.opts.Mode == proxy.ModeRecord {
				cas, err := proxy.LoadCassette(c.opts.Cassette)
				switch {
				case c.real && (err != nil || len(cas.Interactions) != 1):
					t.Errorf("cassette: %v, want the one request of the API", err)
				case !c.real && err == nil:
					t.Errorf("a recording of nothing but probes wrote a cassette of %d interactions", len(cas.Interactions))
				}
			}
		})
	}
}
