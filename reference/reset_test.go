package reference_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/v4cert/v4cert/reference"
)

// resetLoops is how many times TestDeleteThenReset deletes and resets; make
// test runs the default, `go test ./reference -run DeleteThenReset
// -args -reset-loops=5000` runs the long form.
var resetLoops = flag.Int("reset-loops", 100, "iterations of TestDeleteThenReset per storage")

// TestDeleteThenReset drives what a user's CI does between tests, over one
// keep-alive connection: read a file, write one, delete the project (202:
// its repository goes in the background), reset (204), and read again. The
// deletion that outlives its request must never reach the repository the
// reset put back at the same path, in memory or under --data-dir.
func TestDeleteThenReset(t *testing.T) {
	for _, storage := range []string{"memory", "data-dir"} {
		t.Run(storage, func(t *testing.T) {
			cfg := reference.Config{RootToken: persistRoot, Seed: "demo"}
			if storage == "data-dir" {
				cfg.DataDir = t.TempDir()
			}
			inst, err := reference.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(inst.Handler())
			defer func() {
				srv.Close()
				if err := inst.Close(); err != nil {
					t.Error(err)
				}
			}()
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			defer hc.CloseIdleConnections()
			do := func(method, path string, body any) (int, []byte) {
				t.Helper()
				var rd io.Reader
				if body != nil {
					data, _ := json.Marshal(body)
					rd = bytes.NewReader(data)
				}
				target := srv.URL + "/api/v4" + path
				if path == "/-/reset" {
					target = srv.URL + path
				}
				req, _ := http.NewRequest(method, target, rd)
				req.Header.Set("PRIVATE-TOKEN", persistRoot)
				if body != nil {
					req.Header.Set("Content-Type", "application/json")
				}
				resp, err := hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				data, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, data
			}
			const project = "/projects/demo%2Fwebsite"
			const readme = project + "/repository/files/README.md/raw?ref=main"
			_, seeded := do("GET", readme, nil)
			for i := range *resetLoops {
				expect := func(want int, method, path string, body any) []byte {
					t.Helper()
					status, data := do(method, path, body)
					if status != want {
						t.Fatalf("iteration %d: %s %s: %d, want %d: %s", i, method, path, status, want, data)
					}
					return data
				}
				expect(200, "GET", readme, nil)
				file := fmt.Sprintf("%s/repository/files/loop-%d.txt", project, i)
				expect(201, "POST", file, map[string]any{"branch": "main", "content": "x", "commit_message": "loop"})
				expect(202, "DELETE", project, nil)
				expect(204, "POST", "/-/reset", nil)
				if got := expect(200, "GET", readme, nil); !bytes.Equal(got, seeded) {
					t.Fatalf("iteration %d: README after the reset differs from the seed's:\n%s", i, got)
				}
				expect(404, "GET", file+"?ref=main", nil)
				expect(200, "GET", project+"/repository/commits?ref_name=main", nil)
			}
		})
	}
}

// TestDataDirRelativeAndFailedStart: a relative --data-dir works (git runs in
// each repository's directory, so every path is made absolute first), and a
// start that fails leaves no half-built world for the next start to restore.
func TestDataDirRelativeAndFailedStart(t *testing.T) {
	t.Chdir(t.TempDir())
	// A file where the repositories go: the world is written, then the start fails.
	if err := os.MkdirAll("dd", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join("dd", "repositories"), []byte("in the way"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := reference.Config{RootToken: persistRoot, Seed: "demo", DataDir: "dd"}
	if inst, err := reference.New(cfg); err == nil {
		inst.Close()
		t.Fatal("a start whose repositories cannot be written succeeded")
	}
	if _, err := os.Stat(filepath.Join("dd", "world.db")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the failed start left its world behind: %v", err)
	}
	os.Remove(filepath.Join("dd", "repositories"))
	inst, err := reference.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Restored {
		t.Error("the start after a failed one restored a world")
	}
	srv := httptest.NewServer(inst.Handler())
	c := &client{t: t, base: srv.URL}
	c.must(200, "GET", "/projects/demo%2Fwebsite/repository/files/README.md/raw?ref=main", persistRoot, nil)
	srv.Close()
	if err := inst.Close(); err != nil {
		t.Fatal(err)
	}
	// And the relative directory restores on the next start.
	inst, err = reference.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	if !inst.Restored {
		t.Error("the world under the relative --data-dir was not restored")
	}
}
