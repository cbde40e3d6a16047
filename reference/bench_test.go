package reference_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"v4cert/reference"
	"v4cert/reference/store"
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
	body := rec.Body.Bytes()
	hdr := rec.Header().Clone()
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range hdr {
			w.Header()[k] = v
		}
		w.WriteHeader(http.StatusOK)
		w.Write(body)
	})
	b.Logf("page size: %d bytes", len(body))
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"bare", bare}, {"reference", inst.Server}} {
		b.Run(c.name, func(b *testing.B) { loopback(b, c.h, path) })
	}
}

func loopback(b *testing.B, h http.Handler, path string) {
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
			req, _ := http.NewRequest(http.MethodGet, url, nil)
			req.Header.Set("PRIVATE-TOKEN", benchUserToken)
			res, err := client.Do(req)
			if err != nil {
				failures.Add(1)
				continue
			}
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				failures.Add(1)
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
	if f := failures.Load(); f > 0 {
		b.Fatalf("%d requests failed", f)
	}
}
