package apitest_test

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/apitest"
)

// TestBuildAndSnapshot builds the world on a fresh reference and checks that
// two snapshots without a request in between are equal.
func TestBuildAndSnapshot(t *testing.T) {
	inst, err := reference.New(reference.Config{RootToken: "world-root", Seed: "none", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(inst.Server)
	t.Cleanup(func() { srv.Close(); inst.Close() })
	root := &apitest.Client{Base: srv.URL, Token: "world-root"}
	start := time.Now()
	w, err := apitest.Build(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("world built in %v", time.Since(start))
	start = time.Now()
	a, err := apitest.Take(w, root, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("snapshot of %d answers in %v", len(a), time.Since(start))
	b, err := apitest.Take(w, root, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := a.Diff(b); d != "" {
		t.Fatalf("two snapshots differ:\n%s", d)
	}
	// In process (no sockets) as a fuzz target reads it.
	inproc := &apitest.Client{Handler: inst.Server, Token: "world-root"}
	start = time.Now()
	c, err := apitest.Take(w, inproc, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("in-process snapshot in %v", time.Since(start))
	if len(c) == 0 || len(c) >= len(a) {
		t.Fatalf("in-process snapshot without repositories has %d answers, with them %d", len(c), len(a))
	}
	// A write changes the snapshot.
	if _, err := root.Must(200, "PUT", apitest.API(fmt.Sprintf("/topics/%d", w.Topic)), map[string]any{"description": "changed"}); err != nil {
		t.Fatal(err)
	}
	after, err := apitest.Take(w, root, true)
	if err != nil {
		t.Fatal(err)
	}
	if a.Diff(after) == "" {
		t.Fatal("a write left the snapshot as it was")
	}
}
