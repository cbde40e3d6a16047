package api

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"time"

	"v4cert/reference/params"
	"v4cert/reference/store"
)

// The registry host and the token issuer live beside the API on the same
// server ({registry_url} and {auth_url} are this server's root). They speak
// the registry protocol, not the API's: a bearer from /jwt/auth instead of
// access tokens, and image names of several segments.

// maxRegistryBody bounds one blob or manifest.
const maxRegistryBody = 32 << 20

// manifestV2 is the only manifest media type the push path accepts.
const manifestV2 = "application/vnd.docker.distribution.manifest.v2+json"

// tagNameRe is the registry's grammar of a tag.
var tagNameRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)

// mountRegistryHost routes the endpoints whose base is auth or registry.
func (s *Server) mountRegistryHost() {
	h := http.HandlerFunc(s.serveRegistryHost)
	s.mux.Handle("/v2/", h)
	s.mux.Handle("/jwt/auth", h)
}

// serveRegistryHost finds the rulebook endpoint of a registry-host request,
// sets its placeholders as path values and runs its handler without the
// API's authentication: each handler checks its bearer itself.
func (s *Server) serveRegistryHost(w http.ResponseWriter, r *http.Request) {
	path := r.URL.EscapedPath()
	e := s.book.MatchRoot(r.Method, path)
	if e == nil || e.UnderAPI() {
		writeError(w, errorf(http.StatusNotFound, "404 Not Found"))
		return
	}
	for k, v := range globValues(e.Path, path) {
		r.SetPathValue(k, v)
	}
	c := &Ctx{W: w, R: r, Endpoint: e, base: externalBase(r, s.opts.ExternalURL)}
	p, err := params.FromQuery(r.URL.RawQuery)
	if err != nil {
		writeError(w, asError(err, "Resource"))
		return
	}
	c.P = p
	if err := s.routes[e.ID].handle(s, c); err != nil {
		writeError(w, asError(err, "Resource"))
	}
}

// globValues captures the placeholders of a rulebook path (`:x` one segment,
// `*x` the rest up to the literal that follows) from an escaped path.
func globValues(pattern, escaped string) map[string]string {
	pat := strings.Split(strings.Trim(pattern, "/"), "/")
	segs := strings.Split(strings.Trim(escaped, "/"), "/")
	out := map[string]string{}
	var walk func(i, j int) bool
	walk = func(i, j int) bool {
		if i == len(pat) {
			return j == len(segs)
		}
		switch p := pat[i]; {
		case strings.HasPrefix(p, "*"):
			for n := len(segs) - j; n >= 1; n-- {
				if walk(i+1, j+n) {
					out[p[1:]] = strings.Join(segs[j:j+n], "/")
					return true
				}
			}
			return false
		case j == len(segs):
			return false
		case strings.HasPrefix(p, ":"):
			if walk(i+1, j+1) {
				out[p[1:]] = segs[j]
				return true
			}
			return false
		default:
			return p == segs[j] && walk(i+1, j+1)
		}
	}
	walk(0, 0)
	return out
}

// RegistryTokenJSON is the answer of GET /jwt/auth.
type RegistryTokenJSON struct {
	Token string `json:"token"`
}

// registryCaller authenticates the basic credentials of /jwt/auth: a user's
// name with one of their personal access tokens, or gitlab-ci-token with a CI
// job token. No credentials is an anonymous caller.
func (s *Server) registryCaller(c *Ctx, d *store.Data) (ok bool) {
	user, pass, given := c.R.BasicAuth()
	if !given {
		return true
	}
	if user == "gitlab-ci-token" {
		if jt := d.JobTokenBySecret(pass); jt != nil {
			if u := d.User(jt.UserID); u != nil && u.Active() {
				c.Caller, c.JobToken = u, jt
				return true
			}
		}
		return false
	}
	t := d.TokenBySecret(pass)
	if t == nil || !t.Active(d.Now()) {
		return false
	}
	u := d.User(t.UserID)
	if u == nil || !u.Active() || !strings.EqualFold(u.Username, user) {
		return false
	}
	c.Caller, c.Token = u, t
	return true
}

// registryAuth implements GET {auth_url}/jwt/auth (rules registry.native.auth.*).
// Like the platform it grants the subset of the asked actions the caller
// holds; the registry refuses what was not granted.
func (s *Server) registryAuth(c *Ctx) error {
	in := c.In()
	in.Require("service")
	in.Enum("service", "container_registry")
	scope := in.String("scope")
	if err := in.Err(); err != nil {
		if c.P.Has("service") {
			return notFound("Service")
		}
		return err
	}
	return s.store.Write(func(d *store.Data) error {
		if !s.registryCaller(c, d) {
			return unauthorized()
		}
		t := &store.RegistryToken{Secret: newRegistrySecret(), Expires: d.Now().Add(store.RegistryTokenLife)}
		if c.Caller != nil {
			t.UserID = c.Caller.ID
		}
		if scope != nil {
			s.grantRegistryScope(c, d, t, *scope)
		}
		d.AddRegistryToken(t)
		return c.JSON(http.StatusOK, RegistryTokenJSON{Token: t.Secret})
	})
}

// grantRegistryScope fills t with what the caller may do of scope:
// repository:<image>:<actions> or registry:catalog:* (administrators only).
func (s *Server) grantRegistryScope(c *Ctx, d *store.Data, t *store.RegistryToken, scope string) {
	if scope == "registry:catalog:*" {
		t.Catalog = c.Admin()
		return
	}
	rest, ok := strings.CutPrefix(scope, "repository:")
	i := strings.LastIndexByte(rest, ':')
	if !ok || i < 0 {
		return
	}
	image, actions := rest[:i], strings.Split(rest[i+1:], ",")
	t.Image = image
	p, _ := d.ImageProject(image)
	if p == nil || !d.CanSeeProject(c.Caller, p) {
		return
	}
	for _, a := range actions {
		need := registryRead
		switch a {
		case "pull":
		case "push", "delete":
			need = registryDestroy
		case "*":
			need = registryAdmin
		default:
			continue
		}
		if c.registryAllows(d, p, need) == nil {
			t.Actions = append(t.Actions, a)
		}
	}
}

func newRegistrySecret() string {
	b := make([]byte, 20)
	rand.Read(b)
	return "rt-" + hex.EncodeToString(b)
}

// registryBearer checks the bearer of a registry-host request for action on
// image (empty image: the catalog); without it the registry answers 401 with
// the challenge that names the token issuer.
func (c *Ctx) registryBearer(d *store.Data, image, action string) error {
	var t *store.RegistryToken
	if b, ok := strings.CutPrefix(c.R.Header.Get("Authorization"), "Bearer "); ok {
		t = d.RegistryTokenBySecret(strings.TrimSpace(b))
	}
	granted := false
	if t != nil {
		if image == "" {
			granted = t.Catalog
		} else {
			granted = t.Image == image && (slices.Contains(t.Actions, action) || slices.Contains(t.Actions, "*"))
		}
	}
	if granted {
		return nil
	}
	scope := "registry:catalog:*"
	if image != "" {
		scope = "repository:" + image + ":" + action
	}
	challenge := fmt.Sprintf(`Bearer realm="%s/jwt/auth",service="container_registry",scope="%s"`, c.base, scope)
	if t != nil {
		challenge += `,error="insufficient_scope"`
	}
	c.W.Header().Set("WWW-Authenticate", challenge)
	return unauthorized()
}

// imageRepository resolves :name to its project and repository name; an
// unknown project is the registry's NAME_UNKNOWN (404).
func (c *Ctx) imageRepository(d *store.Data) (*store.Project, string, error) {
	p, name := d.ImageProject(c.R.PathValue("name"))
	if p == nil {
		return nil, "", notFound("Repository")
	}
	return p, name, nil
}

// registryDeleteManifest implements DELETE {registry_url}/v2/<name>/manifests/<tag>
// and the deprecated /v2/<name>/tags/reference/<tag> (rules registry.native.delete.*):
// the tag goes, its blobs stay. A digest reference deletes every tag of that manifest.
func (s *Server) registryDeleteManifest(c *Ctx) error {
	ref := c.R.PathValue("reference")
	if ref == "" {
		ref = c.R.PathValue("tag")
	}
	return s.store.Write(func(d *store.Data) error {
		if err := c.registryBearer(d, c.R.PathValue("name"), "delete"); err != nil {
			return err
		}
		p, name, err := c.imageRepository(d)
		if err != nil {
			return err
		}
		r := d.RegistryRepositoryByName(p.ID, name)
		if r == nil {
			return notFound("Repository")
		}
		var names []string
		for _, t := range r.Tags {
			if t.Name == ref || t.Digest == ref {
				names = append(names, t.Name)
			}
		}
		if len(names) == 0 {
			return notFound("Manifest")
		}
		for _, n := range names {
			d.DeleteRegistryTag(r, n)
		}
		c.W.WriteHeader(http.StatusAccepted)
		return nil
	})
}

// RegistryCatalogJSON is the answer of GET /v2/_catalog.
type RegistryCatalogJSON struct {
	Repositories []string `json:"repositories"`
}

// registryCatalog implements GET {registry_url}/v2/_catalog (rules registry.native.catalog.*).
func (s *Server) registryCatalog(c *Ctx) error {
	return s.store.Read(func(d *store.Data) error {
		if err := c.registryBearer(d, "", "*"); err != nil {
			return err
		}
		out := RegistryCatalogJSON{Repositories: []string{}}
		for _, r := range d.AllRegistryRepositories() {
			out.Repositories = append(out.Repositories, d.RegistryRepositoryPath(r))
		}
		slices.Sort(out.Repositories)
		return c.JSON(http.StatusOK, out)
	})
}

func (c *Ctx) registryBody() ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(c.R.Body, maxRegistryBody+1))
	if err != nil || len(b) > maxRegistryBody {
		return nil, badRequest("could not read the request body")
	}
	return b, nil
}

func sha256Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// storeBlob checks a monolithic upload against its digest and keeps it.
func (c *Ctx) storeBlob(d *store.Data, body []byte) error {
	digest := c.In().String("digest")
	if err := c.In().Err(); err != nil {
		return err
	}
	if digest == nil || *digest != sha256Digest(body) {
		return invalidParam("digest")
	}
	d.PutRegistryBlob(*digest, body)
	h := c.W.Header()
	h.Set("Location", "/v2/"+c.R.PathValue("name")+"/blobs/"+*digest)
	h.Set("Docker-Content-Digest", *digest)
	c.W.WriteHeader(http.StatusCreated)
	return nil
}

// registryStartUpload implements POST {registry_url}/v2/<name>/blobs/uploads/
// (provisioning): 202 with the upload's Location, or 201 for a monolithic
// upload that carries ?digest= and the blob.
func (s *Server) registryStartUpload(c *Ctx) error {
	body, err := c.registryBody()
	if err != nil {
		return err
	}
	return s.store.Write(func(d *store.Data) error {
		if err := c.registryBearer(d, c.R.PathValue("name"), "push"); err != nil {
			return err
		}
		if _, _, err := c.imageRepository(d); err != nil {
			return err
		}
		if c.P.Has("digest") {
			return c.storeBlob(d, body)
		}
		id := d.StartRegistryUpload(c.R.PathValue("name"))
		h := c.W.Header()
		h.Set("Location", "/v2/"+c.R.PathValue("name")+"/blobs/uploads/"+id)
		h.Set("Docker-Upload-UUID", id)
		h.Set("Range", "0-0")
		c.W.WriteHeader(http.StatusAccepted)
		return nil
	})
}

// registryPutBlob implements PUT {registry_url}/v2/<name>/blobs/uploads/<uuid>?digest=
// (provisioning): completes a monolithic upload.
func (s *Server) registryPutBlob(c *Ctx) error {
	body, err := c.registryBody()
	if err != nil {
		return err
	}
	return s.store.Write(func(d *store.Data) error {
		if err := c.registryBearer(d, c.R.PathValue("name"), "push"); err != nil {
			return err
		}
		id := c.R.PathValue("uuid")
		if img, ok := d.RegistryUpload(id); !ok || img != c.R.PathValue("name") {
			return notFound("Upload")
		}
		if err := c.storeBlob(d, body); err != nil {
			return err
		}
		d.FinishRegistryUpload(id)
		return nil
	})
}

// registryPutManifest implements PUT {registry_url}/v2/<name>/manifests/<tag>
// (provisioning): an image manifest whose blobs were uploaded creates the
// tag, and the repository on its first push. The tag's creation time is the
// image's (`created` of its config), which orders tags (bulk delete rule 2).
func (s *Server) registryPutManifest(c *Ctx) error {
	body, err := c.registryBody()
	if err != nil {
		return err
	}
	tag := c.R.PathValue("reference")
	if !tagNameRe.MatchString(tag) {
		return invalidParam("tag")
	}
	var m store.ImageManifest
	if ct := c.R.Header.Get("Content-Type"); ct != manifestV2 || json.Unmarshal(body, &m) != nil ||
		m.SchemaVersion != 2 || m.Config.Digest == "" {
		return badRequest("manifest invalid")
	}
	return s.store.Write(func(d *store.Data) error {
		if err := c.registryBearer(d, c.R.PathValue("name"), "push"); err != nil {
			return err
		}
		p, name, err := c.imageRepository(d)
		if err != nil {
			return err
		}
		total := int64(0)
		for _, b := range append([]store.ManifestBlob{m.Config}, m.Layers...) {
			if _, ok := d.RegistryBlob(b.Digest); !ok {
				return badRequest("blob unknown to registry: " + b.Digest)
			}
			total += b.Size
		}
		created := d.Now()
		config, _ := d.RegistryBlob(m.Config.Digest)
		var cfg struct {
			Created time.Time `json:"created"`
		}
		if json.Unmarshal(config, &cfg) == nil && !cfg.Created.IsZero() {
			created = cfg.Created
		}
		digest := sha256Digest(body)
		d.PutRegistryTag(p, name, &store.RegistryTag{Name: tag, Digest: digest, ConfigDigest: m.Config.Digest,
			CreatedAt: created, TotalSize: total, Manifest: body})
		h := c.W.Header()
		h.Set("Location", "/v2/"+c.R.PathValue("name")+"/manifests/"+digest)
		h.Set("Docker-Content-Digest", digest)
		c.W.WriteHeader(http.StatusCreated)
		return nil
	})
}
