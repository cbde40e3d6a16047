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
	"strings"
	"sync"
	"syscall"
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
	cpu      time.Duration // the process's CPU time (user + system) during the measured rounds
	perSec   float64
	lat      []time.Duration
	p50, p99 time.Duration
	// rounds are each round's requests per second and CPU per request, for
	// ratios taken pair by pair against the same round of the baseline.
	rounds []roundResult
}

type roundResult struct {
	perSec    float64
	cpuPerReq time.Duration
}

// processCPU is the CPU time the whole process has used: client, proxy and
// server share it, so per request it is the cost of one exchange end to end.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is /proc/loadavg's first three fields, or "" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
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
	start, cpu0 := time.Now(), processCPU()
	lat := run(d)
	elapsed, cpu := time.Since(start), processCPU()-cpu0
	r.elapsed += elapsed
	r.cpu += cpu
	n := 0
	for _, l := range lat {
		r.lat = append(r.lat, l...)
		n += len(l)
	}
	if n > 0 {
		r.rounds = append(r.rounds, roundResult{perSec: float64(n) / elapsed.Seconds(), cpuPerReq: cpu / time.Duration(n)})
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

// pairRatios are r's rounds against the same rounds of base: throughput
// (r's req/s over base's) and CPU (base's CPU per request over r's, so that
// both read "1.0 is as fast as the baseline, lower is slower"), each as the
// median and the range over the pairs.
func pairRatios(r, base *loadResult) (thr, cpu [3]float64) {
	var ts, cs []float64
	for i := range min(len(r.rounds), len(base.rounds)) {
		ts = append(ts, r.rounds[i].perSec/base.rounds[i].perSec)
		cs = append(cs, float64(base.rounds[i].cpuPerReq)/float64(r.rounds[i].cpuPerReq))
	}
	return medianRange(ts), medianRange(cs)
}

func medianRange(xs []float64) [3]float64 {
	if len(xs) == 0 {
		return [3]float64{}
	}
	sort.Float64s(xs)
	m := xs[len(xs)/2]
	if len(xs)%2 == 0 {
		m = (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
	}
	return [3]float64{m, xs[0], xs[len(xs)-1]}
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
// done per exchange, not of connection reuse. V4CERT_BENCH_BASELINE_READBUF
// (bytes) gives it a read buffer other than net/http's 4 KB too, such as
// the 32 KB v4cert's proxy reads answers through: the stricter comparison,
// where that buffer is no part of the difference.
func plainGoproxy(upstream string) http.Handler {
	u, _ := url.Parse(upstream)
	gp := goproxy.NewProxyHttpServer()
	gp.Tr = &http.Transport{MaxIdleConns: 512, MaxIdleConnsPerHost: 256, DisableCompression: true}
	if s := os.Getenv("V4CERT_BENCH_BASELINE_READBUF"); s != "" {
		fmt.Sscan(s, &gp.Tr.ReadBufferSize)
	}
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
// pass-through. The four take turns in short rounds (A B C D A B C D …), and
// the ratios are taken pair by pair within a round, so a neighbour's load
// falls on all alike: throughput (req/s) and CPU per request of the whole
// process (client, proxy and server share it), each as the median of the
// pairs and their range. The load average is printed before and after.
// Run with -benchtime=1x; V4CERT_BENCH_SECONDS sets each way's total
// measuring time (default 6), V4CERT_BENCH_ROUNDS the rounds (default 8),
// V4CERT_BENCH_BASELINE_READBUF the pass-through's read buffer (plainGoproxy).
func BenchmarkProxyLoopback(b *testing.B) {
	d := 6 * time.Second
	if s := os.Getenv("V4CERT_BENCH_SECONDS"); s != "" {
		var n float64
		fmt.Sscan(s, &n)
		d = time.Duration(n * float64(time.Second))
	}
	rounds := 8
	if s := os.Getenv("V4CERT_BENCH_ROUNDS"); s != "" {
		fmt.Sscan(s, &rounds)
	}
	const conns = 8
	ref := benchReference(b)
	_, page := benchPage(b, ref)
	b.Logf("page size: %d bytes", page.Body.Len())
	direct := serveOn(b, ref)

	plain := serveOn(b, plainGoproxy(direct))
	cassette := filepath.Join(b.TempDir(), "bench.yaml")
	start := func(mode proxy.Mode) (string, *proxy.Proxy) {
		opts := proxy.Options{Mode: mode, Upstream: direct}
		if mode == proxy.ModeRecord {
			opts.Cassette = cassette
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
	loadBefore := loadAverage()
	for range b.N {
		for range rounds {
			for i, r := range results {
				load(b, r, bases[i], conns, d/time.Duration(rounds))
				// What the proxies left queued is their cost too: it lands in
				// this round, not the next way's.
				vp.Flush()
				rp.Flush()
			}
		}
	}
	loadAfter := loadAverage()
	for _, r := range results {
		r.finish()
	}
	vs, _, _ := vp.Close()
	rs, _, _ := rp.Close()
	if vs.Errors > 0 || rs.Errors > 0 || rs.Recorded != rs.Exchanges {
		b.Fatalf("the benchmark traffic must be clean and fully recorded: %+v %+v", vs, rs)
	}
	var perExchange int64
	if fi, err := os.Stat(cassette); err == nil && rs.Recorded > 0 {
		perExchange = fi.Size() / int64(rs.Recorded)
	}
	pass := results[1]
	fmt.Printf("\n%-24s %9s %9s %20s %20s %9s %9s\n", "GET "+benchPath, "req/s", "CPU/req", "req/s ratio (range)", "CPU ratio (range)", "p50", "p99")
	for _, r := range results {
		thr, cpu := pairRatios(r, pass)
		fmt.Printf("%-24s %9.0f %9s %8.2f (%.2f–%.2f) %8.2f (%.2f–%.2f) %9s %9s\n", r.name, r.perSec, (r.cpu / time.Duration(max(r.reqs, 1))).Round(time.Microsecond),
			thr[0], thr[1], thr[2], cpu[0], cpu[1], cpu[2], r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond))
	}
	readBuf := "net/http's 4 KB"
	if s := os.Getenv("V4CERT_BENCH_BASELINE_READBUF"); s != "" {
		readBuf = s + " bytes"
	}
	fmt.Printf("(ratios: to the plain goproxy pass-through (read buffer %s), median of %d pairs taken in the same round, and their range; CPU ratio: its CPU per request over this way's, so below 1 costs more; 8 connections; load average %s before, %s after; cassette %d bytes per exchange, %d of %d exchanges found the recorder behind)\n",
		readBuf, len(pass.rounds), loadBefore, loadAfter, perExchange, rs.Behind, rs.Exchanges)
	vthr, vcpu := pairRatios(results[2], pass)
	rthr, rcpu := pairRatios(results[3], pass)
	b.ReportMetric(vthr[0], "validate/passthrough")
	b.ReportMetric(rthr[0], "record/passthrough")
	b.ReportMetric(vcpu[0], "validate-cpu/passthrough")
	b.ReportMetric(rcpu[0], "record-cpu/passthrough")
	b.ReportMetric(float64(perExchange), "cassette-B/exchange")
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
