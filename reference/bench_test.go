package reference_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/store"
)

const (
	benchToken     = "bench-root-token"
	benchUserToken = "bench-user-token"
)

// world builds a reference with n extra users created straight in the store.
func world(b *testing.B, n int) *reference.Instance {
	b.Helper()
	inst, err := reference.New(reference.Config{RootToken: benchToken, Seed: "none", FixedClock: true})
	if err != nil {
		b.Fatal(err)
	}
	err = inst.Server.Store().Write(func(d *store.Data) error {
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("benchmark-user-%05d", i)
			// Long names make a 20-user page about 6 KB, the size the target figures were measured on.
			if _, err := d.CreateUser(store.NewUser{Username: name, Name: "Bench User " + name + " of the Loopback Measurement Team at the Reference Implementation Working Group (v4cert), Loopback Division",
				Email: name + "@example.com", CreatedByID: 1}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return inst
}

func serve(b *testing.B, h http.Handler, target string, token ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("PRIVATE-TOKEN", benchToken)
	if len(token) > 0 {
		req.Header.Set("PRIVATE-TOKEN", token[0])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("%s: %d %s", target, w.Code, w.Body.String())
	}
	return w
}

// BenchmarkGetUser is a single-user read, handler only.
func BenchmarkGetUser(b *testing.B) {
	inst := world(b, 100)
	b.ReportAllocs()
	for b.Loop() {
		serve(b, inst.Server, "/api/v4/users/50")
	}
}

var nextLink = regexp.MustCompile(`<http://[^/]+([^>]+)>; rel="next"`)

// BenchmarkListUsers10k pages GET /users?per_page=100 over 10,000 users at
// page 1 and page 50, offset and keyset: a keyset page must cost the same at
// any depth.
func BenchmarkListUsers10k(b *testing.B) {
	inst := world(b, 10000)
	keysetAt := func(page int) string {
		target := "/api/v4/users?pagination=keyset&per_page=100&order_by=id&sort=asc"
		for i := 1; i < page; i++ {
			m := nextLink.FindStringSubmatch(serve(b, inst.Server, target).Header().Get("Link"))
			if m == nil {
				b.Fatalf("no next link at page %d", i)
			}
			target = m[1]
		}
		return target
	}
	cases := []struct{ name, target string }{
		{"offset/page1", "/api/v4/users?per_page=100&page=1"},
		{"offset/page50", "/api/v4/users?per_page=100&page=50"},
		{"keyset/page1", keysetAt(1)},
		{"keyset/page50", keysetAt(50)},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				serve(b, inst.Server, c.target)
			}
		})
	}
}

// BenchmarkLoopback measures GET /api/v4/users?per_page=20 over real loopback
// HTTP, side by side with a bare net/http handler writing the same bytes: the
// ratio of the two req/s figures is what to read, since the machine is shared.
func BenchmarkLoopback(b *testing.B) {
	inst := world(b, 200)
	const path = "/api/v4/users?per_page=20"
	// A regular user's token: the page is the list form of 20 users (about 6 KB).
	err := inst.Server.Store().Write(func(d *store.Data) error {
		_, err := d.CreateToken(d.UserByUsername("benchmark-user-00001"), "bench", []string{"api"}, nil, benchUserToken)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	rec := serve(b, inst.Server, path, benchUserToken)
	bare := bareHandler(b, rec)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare", bare}, {"reference", inst.Server}} {
		b.Run(c.name, func(b *testing.B) { loopback(b, c.h, path, benchUserToken) })
	}
}

// bareHandler writes what the reference answered, headers and bytes alike,
// with nothing else: the floor the loopback benchmarks compare against.
func bareHandler(b *testing.B, rec *httptest.ResponseRecorder) http.Handler {
	body := rec.Body.Bytes()
	hdr := rec.Header().Clone()
	b.Logf("page size: %d bytes", len(body))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range hdr {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	})
}

// BenchmarkLoopbackAdmin is BenchmarkLoopback for an administrator: the page
// is 20 full administrator views (about 23 KB), the answer issue 21 measured
// at a third of the bare server's rate. Read the ratio of the two req/s
// figures, and allocs/op (client and server together) before and after.
func BenchmarkLoopbackAdmin(b *testing.B) {
	inst := world(b, 200)
	const path = "/api/v4/users?per_page=20"
	rec := serve(b, inst.Server, path)
	bare := bareHandler(b, rec)
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare", bare}, {"reference", inst.Server}} {
		b.Run(c.name, func(b *testing.B) { loopback(b, c.h, path, benchToken) })
	}
}

// getOK sends one GET as token and reads the answer through, counting a
// transport error or a status other than 200 as a failure.
func getOK(client *http.Client, url, token string, failures *atomic.Int64) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("PRIVATE-TOKEN", token)
	res, err := client.Do(req)
	if err != nil {
		failures.Add(1)
		return
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		failures.Add(1)
	}
}

func loopback(b *testing.B, h http.Handler, path, token string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	defer srv.Close()
	url := "http://" + ln.Addr().String() + path
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}, Timeout: 10 * time.Second}
	var failures atomic.Int64
	b.SetParallelism(4)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			getOK(client, url, token, &failures)
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	if f := failures.Load(); f > 0 {
		b.Fatalf("%d requests failed", f)
	}
}

// BenchmarkSlowReaders measures what a few slow clients cost everyone else:
// 60 connections read single users and write custom attributes for two
// seconds, once alone (baseline) and once beside 4 clients that fetch
// 100-user administrator pages over a link of about 400 KB/s (a second
// listener of the same server whose connections write 4 KiB every 10 ms).
// A handler that writes its answer while it holds the store's lock lets a
// slow reader stall every writer, and the readers queued behind the writer;
// the ratio of the two req/s figures is what to read. Run with
// -benchtime=1x: each sub-benchmark is one fixed-length run.
func BenchmarkSlowReaders(b *testing.B) {
	inst := world(b, 2000)
	srv := &http.Server{Handler: inst.Server}
	defer srv.Close()
	listen := func(slow bool) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		if slow {
			ln = slowListener{ln}
		}
		go srv.Serve(ln)
		return "http://" + ln.Addr().String()
	}
	fastBase, slowBase := listen(false), listen(true)
	for _, slow := range []int{0, 4} {
		b.Run(fmt.Sprintf("slow=%d", slow), func(b *testing.B) {
			fast, writes, maxWrite := slowReadersRun(b, fastBase, slowBase, 60, slow, 2*time.Second)
			b.ReportMetric(fast, "req/s")
			b.ReportMetric(writes, "writes/s")
			b.ReportMetric(float64(maxWrite.Milliseconds()), "max-write-ms")
		})
	}
}

// slowListener's connections send at most 4 KiB every 10 ms: a slow link.
type slowListener struct{ net.Listener }

func (l slowListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return slowConn{c}, err
}

type slowConn struct{ net.Conn }

func (c slowConn) Write(p []byte) (int, error) {
	n := 0
	for len(p) > 0 {
		chunk := min(len(p), 4096)
		m, err := c.Conn.Write(p[:chunk])
		n += m
		if err != nil {
			return n, err
		}
		p = p[chunk:]
		time.Sleep(10 * time.Millisecond)
	}
	return n, nil
}

func slowReadersRun(b *testing.B, fastBase, slowBase string, fastConns, slowConns int, d time.Duration) (reqs, writes float64, maxWrite time.Duration) {
	stop := make(chan struct{})
	var done, wrote, failures atomic.Int64
	var maxNanos atomic.Int64
	var wg sync.WaitGroup
	fastClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: fastConns, MaxConnsPerHost: fastConns}, Timeout: 30 * time.Second}
	for i := 0; i < slowConns; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := &http.Client{Transport: &http.Transport{}, Timeout: 60 * time.Second}
			for {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest(http.MethodGet, slowBase+"/api/v4/users?per_page=100&page=2", nil)
				req.Header.Set("PRIVATE-TOKEN", benchToken)
				if res, err := cl.Do(req); err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
			}
		}()
	}
	start := time.Now()
	for i := 0; i < fastConns; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				user := 2 + (i*31+n)%2000
				var req *http.Request
				write := n%5 == 4
				if write {
					req, _ = http.NewRequest(http.MethodPut, fmt.Sprintf("%s/api/v4/users/%d/custom_attributes/bench", fastBase, user), strings.NewReader(`{"value":"v"}`))
					req.Header.Set("Content-Type", "application/json")
				} else {
					req, _ = http.NewRequest(http.MethodGet, fmt.Sprintf("%s/api/v4/users/%d", fastBase, user), nil)
				}
				req.Header.Set("PRIVATE-TOKEN", benchToken)
				t0 := time.Now()
				res, err := fastClient.Do(req)
				if err != nil {
					failures.Add(1)
					continue
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusOK {
					failures.Add(1)
					continue
				}
				done.Add(1)
				if write {
					wrote.Add(1)
					el := int64(time.Since(t0))
					for m := maxNanos.Load(); el > m && !maxNanos.CompareAndSwap(m, el); m = maxNanos.Load() {
					}
				}
			}
		}(i)
	}
	time.Sleep(d)
	close(stop)
	elapsed := time.Since(start)
	wg.Wait()
	if f := failures.Load(); f > 0 {
		b.Errorf("%d fast requests failed", f)
	}
	return float64(done.Load()) / elapsed.Seconds(), float64(wrote.Load()) / elapsed.Seconds(), time.Duration(maxNanos.Load())
}

// BenchmarkLoopbackVsBare puts the reference beside a bare net/http handler
// writing byte for byte the same answer (headers and body), over loopback
// with 4 parallel clients, in one run: each op sends a block of requests to
// the bare server, then the same block to the reference (A B A B …), so the
// machine's drift falls on both alike. It reports the reference's rate as a
// ratio to the bare one's (x-bare: req/s; cpu-x-bare: the inverse ratio of
// process CPU a request, client included, the figure to trust on a loaded
// machine) and each side's allocations a request (client included). Pages,
// as an administrator: 20 users' full views (GET /users, about 23 KB) and
// 20 projects (GET /projects).
func BenchmarkLoopbackVsBare(b *testing.B) {
	users := world(b, 200)
	projects, _ := groupWorld(b, 200)
	for _, c := range []struct {
		name string
		inst *reference.Instance
		path string
	}{
		{"users-admin", users, "/api/v4/users?per_page=20"},
		{"projects-admin", projects, "/api/v4/projects?per_page=20"},
	} {
		b.Run(c.name, func(b *testing.B) { loopbackVsBare(b, c.inst, c.path) })
	}
}

func loopbackVsBare(b *testing.B, inst *reference.Instance, path string) {
	rec := serve(b, inst.Server, path)
	bare := bareHandler(b, rec)
	type side struct {
		url          string
		wall, cpu    time.Duration
		mallocs, req uint64
	}
	sides := [2]*side{}
	for i, h := range []http.Handler{bare, inst.Server} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		srv := &http.Server{Handler: h}
		go srv.Serve(ln)
		defer srv.Close()
		sides[i] = &side{url: "http://" + ln.Addr().String() + path}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}, Timeout: 10 * time.Second}
	const clients, perClient = 4, 50
	var failures atomic.Int64
	block := func(s *side) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		m0 := ms.Mallocs
		c0, _ := processCPU()
		t0 := time.Now()
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range perClient {
					getOK(client, s.url, benchToken, &failures)
				}
			}()
		}
		wg.Wait()
		s.wall += time.Since(t0)
		c1, _ := processCPU()
		s.cpu += c1 - c0
		runtime.ReadMemStats(&ms)
		s.mallocs += ms.Mallocs - m0
		s.req += clients * perClient
	}
	block(sides[0]) // warm both: connections, pools, the reference's kept views
	block(sides[1])
	*sides[0], *sides[1] = side{url: sides[0].url}, side{url: sides[1].url}
	for b.Loop() {
		block(sides[0])
		block(sides[1])
	}
	if f := failures.Load(); f > 0 {
		b.Fatalf("%d requests failed", f)
	}
	bareS, refS := sides[0], sides[1]
	b.ReportMetric(float64(bareS.wall)/float64(refS.wall), "x-bare")
	if _, ok := processCPU(); ok {
		b.ReportMetric(float64(bareS.cpu)/float64(refS.cpu), "cpu-x-bare")
		b.ReportMetric(float64(refS.cpu.Nanoseconds())/float64(refS.req), "cpu-ns/req")
		b.ReportMetric(float64(bareS.cpu.Nanoseconds())/float64(bareS.req), "bare-cpu-ns/req")
	}
	b.ReportMetric(float64(refS.mallocs)/float64(refS.req), "allocs/req")
	b.ReportMetric(float64(bareS.mallocs)/float64(bareS.req), "bare-allocs/req")
}
