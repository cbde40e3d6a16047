package registry

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/specs"
)

// world is a store with an owner (password and token), a reporter and an
// outsider of a private project, and a registry host over it on loopback.
type world struct {
	st              *store.Store
	reg             *Registry
	srv             *httptest.Server
	host            string
	project         *store.Project
	owner, reporter *store.User
	jobToken        string
}

const ownerToken, ownerPassword = "glpat-owner-token", "owner-password-1"

func newWorld(t testing.TB, root string) *world {
	t.Helper()
	return newWorldOn(t, root, store.New(func() time.Time { return store.FixedTime }))
}

// newWorldOn builds the world in st.
func newWorldOn(t testing.TB, root string, st *store.Store) *world {
	t.Helper()
	w := &world{st: st}
	err := w.st.Write(func(d *store.Data) error {
		var err error
		if w.owner, err = d.CreateUser(store.NewUser{Username: "owner", Name: "Owner", Email: "o@example.com", Password: ownerPassword}); err != nil {
			return err
		}
		if _, err = d.CreateToken(w.owner, "t", []string{"api"}, nil, ownerToken); err != nil {
			return err
		}
		if w.reporter, err = d.CreateUser(store.NewUser{Username: "reporter", Name: "R", Email: "r@example.com", Password: "reporter-pass"}); err != nil {
			return err
		}
		private, name := "private", "app"
		if w.project, err = d.CreateProject(w.owner, store.ProjectFields{Name: &name, Path: &name, Visibility: &private}); err != nil {
			return err
		}
		if _, err = d.AddMember(store.SourceProject, w.project.ID, w.reporter.ID, access.Reporter, nil, w.owner.ID); err != nil {
			return err
		}
		other := "other"
		otherProject, err := d.CreateProject(w.owner, store.ProjectFields{Name: &other, Path: &other, Visibility: &private})
		if err != nil {
			return err
		}
		w.jobToken = "job-token-1"
		d.AddJobToken(&store.JobToken{Secret: w.jobToken, JobID: 1, ProjectID: otherProject.ID, UserID: w.owner.ID})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if w.reg, err = New(w.st, Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	w.srv = httptest.NewServer(w.reg)
	w.host = strings.TrimPrefix(w.srv.URL, "http://")
	t.Cleanup(func() { w.srv.Close(); w.reg.Close() })
	return w
}

func (w *world) ref(t *testing.T, image string) name.Reference {
	t.Helper()
	ref, err := name.ParseReference(w.host+"/"+image, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func testImage(t testing.TB, layer string, created time.Time) v1.Image {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, static.NewLayer([]byte(layer), types.OCILayer))
	if err != nil {
		t.Fatal(err)
	}
	if img, err = mutate.CreatedAt(img, v1.Time{Time: created}); err != nil {
		t.Fatal(err)
	}
	return img
}

func basic(user, secret string) remote.Option {
	return remote.WithAuth(&authn.Basic{Username: user, Password: secret})
}

// A real registry client pushes with the user's password (docker login -u
// USER -p PASSWORD), and what it pushed is what the project API reads: the
// repository record, the tag, its digest, configuration, creation time and
// size; a tag removed through Untag is gone from what a pull sees.
func TestRealClientPushReadUntag(t *testing.T) {
	w := newWorld(t, "")
	ctx := context.Background()
	created := time.Date(2020, 5, 6, 7, 8, 9, 0, time.UTC)
	img := testImage(t, "layer one", created)
	if err := remote.Write(w.ref(t, "owner/app/web:v1"), img, basic("owner", ownerPassword)); err != nil {
		t.Fatalf("push with the password: %v", err)
	}
	var recorded []string
	w.st.Read(func(d *store.Data) error {
		for _, r := range d.RegistryRepositories(w.project.ID) {
			recorded = append(recorded, r.Name)
		}
		return nil
	})
	if len(recorded) != 1 || recorded[0] != "web" {
		t.Fatalf("repository records after a push = %q, want [web]", recorded)
	}
	pulled, err := remote.Image(w.ref(t, "owner/app/web:v1"), basic("owner", ownerToken))
	if err != nil {
		t.Fatalf("pull with the token: %v", err)
	}
	want, _ := img.Digest()
	if got, _ := pulled.Digest(); got != want {
		t.Fatalf("pulled digest %s, pushed %s", got, want)
	}
	tag, err := w.reg.Tag(ctx, "owner/app/web", "v1")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := img.ConfigName()
	raw, _ := img.RawConfigFile()
	if tag.Digest != want.String() || tag.ConfigDigest != cfg.String() || !tag.CreatedAt.Equal(created) ||
		tag.TotalSize != int64(len(raw)+len("layer one")) {
		t.Errorf("Tag = %+v, want digest %s config %s created %s size %d", tag, want, cfg, created, len(raw)+len("layer one"))
	}
	if size, _ := w.reg.Size(ctx, "owner/app/web"); size != tag.TotalSize {
		t.Errorf("Size = %d, want %d", size, tag.TotalSize)
	}
	if err := w.reg.Untag(ctx, "owner/app/web", "v1"); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Image(w.ref(t, "owner/app/web:v1"), basic("owner", ownerToken)); err == nil {
		t.Error("an untagged image still pulls by its tag")
	}
	if names, _ := w.reg.TagNames(ctx, "owner/app/web"); len(names) != 0 {
		t.Errorf("TagNames after Untag = %v", names)
	}
}

// The token issuer grants what the role allows: a Reporter pulls but may not
// push, a wrong secret gets 401 in the registry's envelope, a job token
// reaches its own project only.
func TestTokenIssuerRoles(t *testing.T) {
	w := newWorld(t, "")
	img := testImage(t, "layer", time.Unix(0, 0).UTC())
	if err := remote.Write(w.ref(t, "owner/app:v1"), img, basic("owner", ownerToken)); err != nil {
		t.Fatal(err)
	}
	if _, err := remote.Image(w.ref(t, "owner/app:v1"), basic("reporter", "reporter-pass")); err != nil {
		t.Errorf("a Reporter's pull: %v", err)
	}
	if err := remote.Write(w.ref(t, "owner/app:v2"), img, basic("reporter", "reporter-pass")); err == nil {
		t.Error("a Reporter pushed")
	}
	if _, err := remote.Image(w.ref(t, "owner/app:v1"), basic(store.CIUsername, w.jobToken)); err == nil {
		t.Error("a job token of another project pulled")
	}
	if err := remote.Write(w.ref(t, "owner/other:v1"), img, basic(store.CIUsername, w.jobToken)); err != nil {
		t.Errorf("a job token pushing to its own project: %v", err)
	}
	res, err := http.Get(strings.Replace(w.srv.URL, "://", "://owner:wrong@", 1) + "/jwt/auth?service=container_registry")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	var env struct {
		Errors []struct{ Code, Message string }
	}
	if res.StatusCode != http.StatusUnauthorized || json.Unmarshal(body, &env) != nil || len(env.Errors) != 1 || env.Errors[0].Code != "UNAUTHORIZED" {
		t.Errorf("wrong password: %d %s", res.StatusCode, body)
	}
}

// Removing a project's root repository leaves the repositories nested below
// its name (distribution's own Remove would delete them too), and Reset
// empties the registry.
func TestRemoveRepositoryKeepsNestedAndReset(t *testing.T) {
	w := newWorld(t, t.TempDir())
	ctx := context.Background()
	img := testImage(t, "layer", time.Unix(0, 0).UTC())
	for _, ref := range []string{"owner/app:v1", "owner/app/web:v1"} {
		if err := remote.Write(w.ref(t, ref), img, basic("owner", ownerToken)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.reg.RemoveRepository(ctx, "owner/app"); err != nil {
		t.Fatal(err)
	}
	if names, _ := w.reg.TagNames(ctx, "owner/app"); len(names) != 0 {
		t.Errorf("root repository still has %v", names)
	}
	if names, _ := w.reg.TagNames(ctx, "owner/app/web"); len(names) != 1 {
		t.Errorf("nested repository lost its tags: %v", names)
	}
	if err := w.reg.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := w.reg.Tag(ctx, "owner/app/web", "v1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after Reset, Tag = %v", err)
	}
	if err := remote.Write(w.ref(t, "owner/app:v2"), img, basic("owner", ownerToken)); err != nil {
		t.Errorf("pushing after Reset: %v", err)
	}
}

// Every endpoint of the rulebook whose base is the token issuer or the
// registry host is served here: distribution's router or the extras take
// it, and nothing falls through to the 404 of paths the registry does not
// serve. With api.New checking the rest, every rulebook endpoint has its server.
func TestRegistryHostServesRulebook(t *testing.T) {
	w := newWorld(t, "")
	n := 0
	for _, e := range specs.Default().Endpoints {
		if e.UnderAPI() {
			continue
		}
		n++
		path := strings.NewReplacer("*name", "owner/app", ":reference", "v1", ":tag", "v1", ":uuid", "0b3c2f1e-0000-4000-8000-000000000000",
			":digest", "sha256:"+strings.Repeat("a", 64)).Replace(e.Path)
		req, _ := http.NewRequest(e.Method, w.srv.URL+path+"?service=container_registry", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if strings.Contains(string(body), "does not serve this path") {
			t.Errorf("%s (%s %s) is not served: %d %s", e.ID, e.Method, path, res.StatusCode, body)
		}
		if res.StatusCode != e.Status && !slices.Contains(e.Statuses, res.StatusCode) {
			t.Errorf("%s (%s %s) answered %d, which the rulebook does not list", e.ID, e.Method, path, res.StatusCode)
		}
	}
	if n < 10 {
		t.Fatalf("only %d registry endpoints in the rulebook", n)
	}
}

// The referrers API distribution lacks: an artifact pushed with a subject
// gets OCI-Subject, and a registry client finds it among the subject's
// referrers, filtered by artifact type.
func TestReferrers(t *testing.T) {
	w := newWorld(t, "")
	subject := testImage(t, "subject", time.Unix(0, 0).UTC())
	if err := remote.Write(w.ref(t, "owner/app:v1"), subject, basic("owner", ownerToken)); err != nil {
		t.Fatal(err)
	}
	desc, err := partial.Descriptor(subject)
	if err != nil {
		t.Fatal(err)
	}
	sbom := mutate.ConfigMediaType(testImage(t, "sbom", time.Unix(0, 0).UTC()), "application/vnd.example.sbom")
	artifact := mutate.Subject(sbom, *desc).(v1.Image)
	if err := remote.Write(w.ref(t, "owner/app:sbom"), artifact, basic("owner", ownerToken)); err != nil {
		t.Fatal(err)
	}
	dgst, _ := subject.Digest()
	ref, _ := name.NewDigest(w.host+"/owner/app@"+dgst.String(), name.Insecure)
	idx, err := remote.Referrers(ref, basic("reporter", "reporter-pass"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := artifact.Digest()
	if len(m.Manifests) != 1 || m.Manifests[0].Digest != want || m.Manifests[0].ArtifactType != "application/vnd.example.sbom" {
		t.Errorf("referrers = %+v, want the artifact %s", m.Manifests, want)
	}
	idx, err = remote.Referrers(ref, basic("reporter", "reporter-pass"), remote.WithFilter("artifactType", "application/other"))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := idx.IndexManifest(); len(m.Manifests) != 0 {
		t.Errorf("artifactType filter kept %+v", m.Manifests)
	}
}

// flakyBackend fails every commit while failing is set.
type flakyBackend struct{ failing bool }

func (b *flakyBackend) Load(func(table, key string, value []byte) error) error { return nil }
func (b *flakyBackend) Replace([]store.Change) error                           { return nil }
func (b *flakyBackend) Commit([]store.Change) error {
	if b.failing {
		return errors.New("disk full")
	}
	return nil
}

// With --data-dir, a push whose repository record cannot be stored is not
// acknowledged: the client gets 503 rather than 201, and the same push goes
// through once the disk is back.
func TestPushAnswersFailedCommit(t *testing.T) {
	db := &flakyBackend{}
	st, _, err := store.Open(func() time.Time { return store.FixedTime }, db)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorldOn(t, "", st)
	img := testImage(t, "layer", time.Unix(0, 0).UTC())
	db.failing = true
	err = remote.Write(w.ref(t, "owner/app/web:v1"), img, basic("owner", ownerPassword))
	var te *transport.Error
	if !errors.As(err, &te) || te.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("push with the disk failing: %v, want 503", err)
	}
	db.failing = false
	if err := remote.Write(w.ref(t, "owner/app/web:v1"), img, basic("owner", ownerPassword)); err != nil {
		t.Fatalf("push with the disk back: %v", err)
	}
}
