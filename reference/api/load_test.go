package api_test

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/apitest"
	"github.com/v4cert/v4cert/specs"
)

// loadRequest is one request of the concurrent load.
type loadRequest struct {
	endpoint, method, target string
	body                     any
}

// loadRequests is every endpoint of the rulebook under /api/v4 as the world
// can fill it: reads with their required query, writes with a valid value for
// each required parameter (accepted or refused, each runs its handler), the
// deletes kept apart so they come last.
func loadRequests(w *apitest.World) (reads, writes, deletes []loadRequest) {
	for _, e := range specs.Default().Endpoints {
		if !e.UnderAPI() {
			continue
		}
		req := loadRequest{endpoint: e.ID, method: e.Method, target: w.Target(e)}
		switch e.Method {
		case http.MethodGet, http.MethodHead:
			reads = append(reads, req)
			continue
		case http.MethodDelete:
			deletes = append(deletes, req)
			continue
		}
		body := map[string]any{}
		for _, p := range e.Params {
			if p.Required && !e.InPath(p.Name) && !strings.Contains(p.Name, "[") {
				body[p.Name] = w.ValidParam(p)
			}
		}
		req.body = body
		writes = append(writes, req)
	}
	// Orderings whose caches readers fill (the users' keyset orderings).
	for _, by := range []string{"name", "username", "created_at", "updated_at"} {
		reads = append(reads,
			loadRequest{endpoint: "users.list", method: "GET", target: apitest.API("/users?order_by=" + by)},
			loadRequest{endpoint: "users.list", method: "GET", target: apitest.API("/users?pagination=keyset&order_by=" + by + "&sort=asc&per_page=2")})
	}
	return reads, writes, deletes
}

// TestConcurrentLoad runs every read and write of the rulebook at once against
// one reference, then the deletes and resets among more reads, from several
// clients, bounded in count. Under the race detector (make race) it is the
// check that no state changes under a read lock, caches included; without it,
// that nothing answers 5xx while others write.
func TestConcurrentLoad(t *testing.T) {
	inst, err := reference.New(reference.Config{RootToken: repoRootToken, Seed: "none", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(inst.Handler())
	defer func() { srv.Close(); inst.Close() }()
	root := &apitest.Client{Base: srv.URL, Token: repoRootToken}
	w, err := apitest.Build(root)
	if err != nil {
		t.Fatal(err)
	}
	reads, writes, deletes := loadRequests(w)
	if len(reads) < 60 || len(writes) < 40 || len(deletes) < 10 {
		t.Fatalf("the rulebook gave %d reads, %d writes, %d deletes: is the walk broken?", len(reads), len(writes), len(deletes))
	}
	var mu sync.Mutex
	var failures []string
	run := func(phase string, reqs []loadRequest, workers int) {
		var wg sync.WaitGroup
		for n := range workers {
			order := rand.New(rand.NewPCG(uint64(n), 17)).Perm(len(reqs))
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, i := range order {
					q := reqs[i]
					target := q.target
					if q.endpoint == "reset" {
						target = "/-/reset"
					}
					r, err := root.Do(q.method, target, q.body)
					mu.Lock()
					switch {
					case err != nil:
						failures = append(failures, fmt.Sprintf("%s: %s %s: %v", phase, q.method, target, err))
					case r.Status >= 500:
						failures = append(failures, fmt.Sprintf("%s: %s (%s): %s", phase, q.endpoint, r, r.Body))
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
	}
	// Reads alone first: readers share the lock, so whatever a read changes
	// (a cache filled) races only with another read.
	run("reads", reads, 4)
	// Every read and write at once, four clients each in its own order.
	both := append(append([]loadRequest(nil), reads...), writes...)
	run("reads and writes", both, 4)
	// Then the deletes and two resets among the reads.
	reset := loadRequest{endpoint: "reset", method: "POST"}
	last := append(append(append([]loadRequest(nil), reads...), deletes...), reset, reset)
	run("deletes and resets", last, 4)
	if len(failures) > 0 {
		t.Errorf("%d requests failed under load:\n%s", len(failures), strings.Join(failures, "\n"))
	}
}
