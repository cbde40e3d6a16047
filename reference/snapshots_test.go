package reference_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/v4cert/v4cert/reference"
)

// snapshotLoops is how many times TestSnapshots deletes a project and
// restores the snapshot that holds it.
const snapshotLoops = 5

// A test suite's day with snapshots, over HTTP, in memory and under
// --data-dir: save the seed, prepare a world (a project, a file, an image),
// save it, change it all (delete the project, whose repository goes in the
// background, rewrite the file, push another tag), restore, and find the
// prepared world whole: store, repositories and registry. Under --data-dir
// the snapshots outlive a restart.
func TestSnapshots(t *testing.T) {
	for _, storage := range []string{"memory", "data-dir"} {
		t.Run(storage, func(t *testing.T) {
			cfg := reference.Config{}
			if storage == "data-dir" {
				cfg.DataDir = t.TempDir()
			}
			c := newConvServer(t, cfg)
			c.adminOnly("GET", "/-/snapshots")
			c.adminOnly("POST", "/-/snapshots/base")
			c.adminOnly("POST", "/-/snapshots/base/restore")
			c.adminOnly("DELETE", "/-/snapshots/base")
			for _, bad := range []string{"/-/snapshots/.hidden", "/-/snapshots/a%2Fb"} {
				if status, body := c.do("POST", bad, c.admin, ""); status != 400 || !strings.Contains(string(body), "name is invalid") {
					t.Errorf("POST %s: %d %s, want 400", bad, status, body)
				}
			}
			c.expect(http.StatusNotFound, "POST", "/-/snapshots/never/restore", c.admin, "")
			c.expect(http.StatusCreated, "POST", "/-/snapshots/base", c.admin, "")

			const site = "/api/v4/projects/demo%2Fwebsite"
			const file = site + "/repository/files/notes.txt"
			c.expect(http.StatusCreated, "POST", "/api/v4/projects", c.admin, `{"name":"snapped","initialize_with_readme":true}`)
			c.expect(http.StatusCreated, "POST", file, c.admin, `{"branch":"main","content":"prepared","commit_message":"prepare"}`)
			push := func(tag, layer string) {
				t.Helper()
				if err := remote.Write(c.ref(t, "demo/website:"+tag), testImage(t, layer), remote.WithAuth(&authn.Basic{Username: "root", Password: c.admin})); err != nil {
					t.Fatalf("push demo/website:%s: %v", tag, err)
				}
			}
			push("v1", "prepared layer")
			var info reference.SnapshotInfo
			json.Unmarshal(c.expect(http.StatusCreated, "POST", "/-/snapshots/prepared", c.admin, ""), &info)
			if info.Name != "prepared" || info.Projects < 2 || info.Bytes == 0 {
				t.Fatalf("snapshot info: %+v", info)
			}
			prepared := func() {
				t.Helper()
				if body := c.expect(http.StatusOK, "GET", file+"/raw?ref=main", c.admin, ""); string(body) != "prepared" {
					t.Errorf("notes.txt after restore: %q", body)
				}
				c.expect(http.StatusOK, "GET", "/api/v4/projects/root%2Fsnapped/repository/files/README.md/raw?ref=main", c.admin, "")
				if _, err := remote.Image(c.ref(t, "demo/website:v1"), remote.WithAuth(&authn.Basic{Username: "root", Password: c.admin})); err != nil {
					t.Errorf("pull v1 after restore: %v", err)
				}
				if _, err := remote.Image(c.ref(t, "demo/website:v2"), remote.WithAuth(&authn.Basic{Username: "root", Password: c.admin})); err == nil {
					t.Error("v2, pushed after the snapshot, pulls after restore")
				}
				var repos []map[string]any
				json.Unmarshal(c.expect(http.StatusOK, "GET", site+"/registry/repositories?tags=true", c.admin, ""), &repos)
				if len(repos) != 1 || len(repos[0]["tags"].([]any)) != 1 {
					t.Errorf("registry records after restore: %+v", repos)
				}
			}
			for range snapshotLoops {
				c.expect(http.StatusAccepted, "DELETE", "/api/v4/projects/root%2Fsnapped", c.admin, "")
				c.expect(http.StatusOK, "PUT", file, c.admin, `{"branch":"main","content":"changed","commit_message":"change"}`)
				push("v2", "later layer")
				c.expect(http.StatusNoContent, "POST", "/-/snapshots/prepared/restore", c.admin, "")
				prepared()
			}

			c.expect(http.StatusNoContent, "POST", "/-/snapshots/base/restore", c.admin, "")
			c.expect(http.StatusNotFound, "GET", "/api/v4/projects/root%2Fsnapped", c.admin, "")
			c.expect(http.StatusNotFound, "GET", file+"/raw?ref=main", c.admin, "")
			if _, err := remote.Image(c.ref(t, "demo/website:v1"), remote.WithAuth(&authn.Basic{Username: "root", Password: c.admin})); err == nil {
				t.Error("v1 pulls after restoring the seed")
			}

			var list []reference.SnapshotInfo
			json.Unmarshal(c.expect(http.StatusOK, "GET", "/-/snapshots", c.admin, ""), &list)
			if len(list) != 2 || list[0].Name != "base" || list[1].Name != "prepared" {
				t.Fatalf("GET /-/snapshots: %+v", list)
			}
			if storage == "data-dir" {
				// A restart on the same directory keeps them.
				c.srv.Close()
				if err := c.inst.Close(); err != nil {
					t.Fatal(err)
				}
				c = newConvServer(t, cfg)
				c.expect(http.StatusNoContent, "POST", "/-/snapshots/prepared/restore", c.admin, "")
				prepared()
			}
			c.expect(http.StatusNoContent, "DELETE", "/-/snapshots/prepared", c.admin, "")
			c.expect(http.StatusNotFound, "DELETE", "/-/snapshots/prepared", c.admin, "")
			c.expect(http.StatusNotFound, "POST", "/-/snapshots/prepared/restore", c.admin, "")
		})
	}
}

func (c *convServer) ref(t *testing.T, image string) name.Reference {
	t.Helper()
	ref, err := name.ParseReference(strings.TrimPrefix(c.srv.URL, "http://")+"/"+image, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func testImage(t *testing.T, layer string) v1.Image {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, static.NewLayer([]byte(layer), types.OCILayer))
	if err != nil {
		t.Fatal(err)
	}
	img, err = mutate.CreatedAt(img, v1.Time{Time: time.Unix(0, 0).UTC()})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// BenchmarkResetVersusRestore compares POST /-/reset with restoring a
// snapshot of the same seeded world, in memory and under --data-dir.
func BenchmarkResetVersusRestore(b *testing.B) {
	for _, storage := range []string{"memory", "data-dir"} {
		cfg := reference.Config{RootToken: persistRoot, Seed: "demo"}
		if storage == "data-dir" {
			cfg.DataDir = b.TempDir()
		}
		inst, err := reference.New(cfg)
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		if _, err := inst.SaveSnapshot(ctx, "seed"); err != nil {
			b.Fatal(err)
		}
		b.Run(storage+"/reset", func(b *testing.B) {
			for b.Loop() {
				if err := inst.Reset(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(storage+"/restore", func(b *testing.B) {
			for b.Loop() {
				if err := inst.RestoreSnapshot(ctx, "seed"); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(storage+"/save", func(b *testing.B) {
			for b.Loop() {
				if _, err := inst.SaveSnapshot(ctx, "seed"); err != nil {
					b.Fatal(err)
				}
			}
		})
		inst.Close()
	}
}
