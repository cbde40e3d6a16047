package proxy_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/elazarl/goproxy"

	"github.com/v4cert/v4cert/proxy"
	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/schemas"
)

const (
	benchToken     = "bench-root-token"
	benchUserToken = "bench-user-token"
	benchPath      = "/api/v4/users?per_page=20"
)

// benchReference is the world of reference/bench_test.go's BenchmarkLoopback:
// 200 users with long names, so a page of 20 is about 6 KB, read by a
// regular user.
func benchReference(b *testing.B) http.Handler {
	inst, err := reference.New(reference.Config{RootToken: benchToken, Seed: "none", FixedClock: true})
	if err != nil {
		b.Fatal(err)
	}
	err = inst.Server.Store().Write(func(d *store.Data) error {
		for i := 0; i < 200; i++ {
			name := fmt.Sprintf("benchmark-user-%05d", i)
			if _, err := d.CreateUser(store.NewUser{Username: name, Name: "Bench User " + name + " of the Loopback Measurement Team at the Reference Implementation Working Group (v4cert), Loopback Division",
				Email: name + "@example.com", CreatedByID: 1}); err != nil {
				return err
			}
		}
		_, err := d.CreateToken(d.UserByUsername("benchmark-user-00001"), "bench", []string{"api"}, nil, benchUserToken)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return inst.Server
}

func benchPage(b *testing.B, h http.Handler) (*http.Request, *httptest.ResponseRecorder) {
	req := httptest.NewRequest(http.MethodGet, benchPath, nil)
	req.Header.Set("PRIVATE-TOKEN", benchUserToken)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != 200 {
		b.Fatalf("%d %s", w.Code, w.Body)
	}
	return req, w
}

type loadResult struct {
	name     string
	reqs     int
	elapsed  time.Duration
	perSec   float64
	lat      []time.Duration
	p50, p99 time.Duration
}

// load drives base+benchPath with conns concurrent connections for d and
// adds what it saw to r.
func load(b *testing.B, r *loadResult, base string, conns int, d time.Duration) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}, Timeout: 10 * time.Second}
	defer client.CloseIdleConnections()
	one := func() (time.Duration, error) {
		req, _ := http.NewRequest(http.MethodGet, base+benchPath, nil)
		req.Header.Set("PRIVATE-TOKEN", benchUserToken)
		start := time.Now()
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return 0, fmt.Errorf("status %d", res.StatusCode)
		}
		return time.Since(start), nil
	}
	run := func(d time.Duration) [][]time.Duration {
		lat := make([][]time.Duration, conns)
		var wg sync.WaitGroup
		deadline := time.Now().Add(d)
		for i := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					l, err := one()
					if err != nil {
						b.Error(err)
						return
					}
					lat[i] = append(lat[i], l)
				}
			}()
		}
		wg.Wait()
		return lat
	}
	run(d / 5) // warm the connections
	start := time.Now()
	lat := run(d)
	r.elapsed += time.Since(start)
	for _, l := range lat {
		r.lat = append(r.lat, l...)
	}
}

func (r *loadResult) finish() {
	sort.Slice(r.lat, func(i, j int) bool { return r.lat[i] < r.lat[j] })
	r.reqs = len(r.lat)
	if r.reqs == 0 {
		return
	}
	r.perSec = float64(r.reqs) / r.elapsed.Seconds()
	r.p50, r.p99 = r.lat[r.reqs/2], r.lat[r.reqs*99/100]
}

func serveOn(b *testing.B, h http.Handler) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// plainGoproxy is goproxy passing traffic on and nothing else: the ceiling
// any goproxy-based proxy reaches on this machine. It gets the same roomy
// idle-connection pool as v4cert's proxy, so the comparison is of the work
// done per exchange, not of connection reuse.
func plainGoproxy(upstream string) http.Handler {
	u, _ := url.Parse(upstream)
	gp := goproxy.NewProxyHttpServer()
	gp.Tr = &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, DisableCompression: true}
	gp.KeepAcceptEncoding = true
	gp.Logger = discardLogger{}
	gp.NonproxyHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.URL.Scheme, r.URL.Host, r.Host = u.Scheme, u.Host, u.Host
		gp.ServeHTTP(w, r)
	})
	return gp
}

type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}

// BenchmarkProxyLoopback measures GET /api/v4/users?per_page=20 (about 6 KB)
// over loopback four ways in one run: direct, through a plain goproxy
// pass-through, through v4cert proxy in validate mode and in record mode,
// each with 8 concurrent connections, and reports each against the plain
// pass-through. Client, proxy and server share the machine, so ratios are
// what to read. Run with -benchtime=1x; V4CERT_BENCH_SECONDS sets each
// measurement's length (default 3).
func BenchmarkProxyLoopback(b *testing.B) {
	d := 3 * time.Second
	if s := os.Getenv("V4CERT_BENCH_SECONDS"); s != "" {
		var n float64
		fmt.Sscan(s, &n)
		d = time.Duration(n * float64(time.Second))
	}
	const conns = 8
	ref := benchReference(b)
	_, page := benchPage(b, ref)
	b.Logf("page size: %d bytes", page.Body.Len())
	direct := serveOn(b, ref)

	plain := serveOn(b, plainGoproxy(direct))
	start := func(mode proxy.Mode) (string, *proxy.Proxy) {
		opts := proxy.Options{Mode: mode, Upstream: direct}
		if mode == proxy.ModeRecord {
			opts.Cassette = filepath.Join(b.TempDir(), "bench.yaml")
		}
		p, err := proxy.New(opts)
		if err != nil {
			b.Fatal(err)
		}
		base, err := p.Start("127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		return base, p
	}
	vbase, vp := start(proxy.ModeValidate)
	rbase, rp := start(proxy.ModeRecord)
	results := []*loadResult{{name: "direct"}, {name: "goproxy pass-through"}, {name: "v4cert proxy validate"}, {name: "v4cert proxy record"}}
	bases := []string{direct, plain, vbase, rbase}
	// The four take turns in short rounds, so a neighbour's load on the
	// shared machine falls on all of them alike.
	const rounds = 6
	for range b.N {
		for range rounds {
			for i, r := range results {
				load(b, r, bases[i], conns, d/rounds)
			}
		}
	}
	for _, r := range results {
		r.finish()
	}
	vs, _, _ := vp.Close()
	rs, _, _ := rp.Close()
	if vs.Errors > 0 || rs.Errors > 0 || rs.Recorded != rs.Exchanges {
		b.Fatalf("the benchmark traffic must be clean and fully recorded: %+v %+v", vs, rs)
	}
	pass := results[1]
	fmt.Printf("\n%-24s %10s %8s %10s %10s %14s\n", "GET "+benchPath, "req/s", "ratio", "p50", "p99", "p50 added")
	for _, r := range results {
		fmt.Printf("%-24s %10.0f %7.0f%% %10s %10s %14s\n", r.name, r.perSec, 100*r.perSec/pass.perSec,
			r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), (r.p50 - pass.p50).Round(time.Microsecond))
	}
	fmt.Println("(ratio: to the plain goproxy pass-through; p50 added: over it; 8 connections)")
	b.ReportMetric(results[2].perSec/pass.perSec, "validate/passthrough")
	b.ReportMetric(results[3].perSec/pass.perSec, "record/passthrough")
	b.ReportMetric(float64((results[2].p50 - pass.p50).Microseconds()), "validate-p50-added-µs")
	b.ReportMetric(float64((results[3].p50 - pass.p50).Microseconds()), "record-p50-added-µs")
}

// BenchmarkCheck is the checker's cost for one 6 KB page: where the time of
// validate mode goes. Compare BenchmarkLibraryValidate, the generic
// decode-and-walk it avoids.
func BenchmarkCheck(b *testing.B) {
	ref := benchReference(b)
	req, page := benchPage(b, ref)
	c := proxy.NewChecker(nil)
	ex := &proxy.Exchange{Method: "GET", URL: "http://x" + benchPath, Path: req.URL.EscapedPath(), RawQuery: req.URL.RawQuery,
		ReqHeader: req.Header, Status: 200, Header: page.Header(), Body: page.Body.Bytes()}
	if vs := c.Check(ex); len(vs) > 0 {
		b.Fatalf("%+v", vs)
	}
	b.ReportAllocs()
	b.SetBytes(int64(page.Body.Len()))
	for b.Loop() {
		c.Check(ex)
	}
}

func BenchmarkLibraryValidate(b *testing.B) {
	ref := benchReference(b)
	_, page := benchPage(b, ref)
	body := page.Body.Bytes()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if err := schemas.ValidateArray("user_list_entry", body); err != nil {
			b.Fatal(err)
		}
	}
}
