package registry

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/distribution/distribution/v3/registry/api/errcode"
	v2 "github.com/distribution/distribution/v3/registry/api/v2"
	"github.com/distribution/distribution/v3/registry/auth"
	"github.com/distribution/reference"
	"github.com/gorilla/mux"

	"github.com/v4cert/v4cert/reference/store"
)

// TokenPath is the token issuer's path ({auth_url} is the server's root).
const TokenPath = "/jwt/auth"

// Handles reports whether a request path belongs to the registry host or its
// token issuer.
func Handles(path string) bool {
	return path == TokenPath || path == "/v2" || strings.HasPrefix(path, "/v2/")
}

// ServeHTTP serves {auth_url}/jwt/auth and {registry_url}/v2/...: the token
// issuer, the platform's extras and the referrers API, and everything else
// through distribution.
func (r *Registry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == TokenPath {
		r.serveToken(w, req)
		return
	}
	if r.opts.ExternalURL == "" && req.Header.Get("X-Forwarded-Proto") == "" {
		// distribution builds the token realm and Location URLs from the
		// request; without this header it assumes https.
		scheme := "http"
		if req.TLS != nil {
			scheme = "https"
		}
		req.Header.Set("X-Forwarded-Proto", scheme)
	}
	if m := tagReferenceRe.FindStringSubmatch(req.URL.Path); m != nil {
		r.deleteTagReference(w, req, m[1], m[2])
		return
	}
	if m := referrersRe.FindStringSubmatch(req.URL.Path); m != nil {
		r.serveReferrers(w, req, m[1], m[2])
		return
	}
	var match mux.RouteMatch
	if !v2.Router().Match(req, &match) {
		// Paths distribution does not serve answer 404 in the registry's envelope, not gorilla's plain text.
		w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
		serveError(w, errcode.ErrorCodeUnsupported.WithMessage("the registry does not serve this path").WithDetail(nil), http.StatusNotFound)
		return
	}
	if m := manifestRe.FindStringSubmatch(req.URL.Path); m != nil && req.Method == http.MethodPut {
		w = &pushRecorder{ResponseWriter: w, registry: r, image: m[1], subject: manifestSubject(req)}
	}
	r.app.ServeHTTP(w, req)
}

var (
	// tagReferenceRe matches the platform's deprecated tag delete,
	// /v2/<name>/tags/reference/<tag>, which distribution does not route.
	tagReferenceRe = regexp.MustCompile(`^/v2/(` + reference.NameRegexp.String() + `)/tags/reference/(` + reference.TagRegexp.String() + `)$`)
	manifestRe     = regexp.MustCompile(`^/v2/(` + reference.NameRegexp.String() + `)/manifests/[^/]+$`)
)

// pushRecorder notes the repository of a manifest the registry accepted
// before the client learns of it, so a tag pushed is at once in the project
// API (how repositories come to exist). When the record cannot be stored
// (--data-dir), the push answers 503 instead of 201: the client retries it,
// and pushing a manifest again is harmless.
type pushRecorder struct {
	http.ResponseWriter
	registry *Registry
	image    string
	subject  string // the manifest's subject, answered in OCI-Subject
	done     bool
	failed   bool // answered 503; what distribution writes after is dropped
}

func (p *pushRecorder) WriteHeader(status int) {
	if status == http.StatusCreated && !p.done {
		p.done = true
		err := p.registry.store.Write(func(d *store.Data) error {
			if proj, name := d.ImageProject(p.image); proj != nil {
				d.RecordRegistryRepository(proj, name)
			}
			return nil
		})
		if err != nil {
			p.failed = true
			h := p.Header()
			for _, k := range []string{"Location", "Docker-Content-Digest", "Content-Length"} {
				h.Del(k)
			}
			serveError(p.ResponseWriter, errcode.ErrorCodeUnavailable.WithMessage("503 Service Unavailable - "+err.Error()).WithDetail(nil), http.StatusServiceUnavailable)
			return
		}
		if p.subject != "" {
			p.Header().Set("OCI-Subject", p.subject)
		}
	}
	p.ResponseWriter.WriteHeader(status)
}

func (p *pushRecorder) Write(b []byte) (int, error) {
	if p.failed {
		return len(b), nil
	}
	return p.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (p *pushRecorder) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// deleteTagReference implements DELETE {registry_url}/v2/<name>/tags/reference/<tag>
// (rule registry.native.delete.3): the tag goes as with the manifests form,
// with a bearer holding delete on the repository.
func (r *Registry) deleteTagReference(w http.ResponseWriter, req *http.Request, image, tag string) {
	w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
	if req.Method != http.MethodDelete {
		w.Header().Set("Allow", http.MethodDelete)
		serveError(w, errcode.ErrorCodeUnsupported.WithMessage("The operation is unsupported.").WithDetail(nil), http.StatusMethodNotAllowed)
		return
	}
	access := auth.Access{Resource: auth.Resource{Type: "repository", Name: image}, Action: "delete"}
	if _, err := r.access.Authorized(req, access); err != nil {
		if ch, ok := err.(auth.Challenge); ok {
			ch.SetHeaders(req, w)
		}
		serveError(w, errcode.ErrorCodeUnauthorized.WithDetail([]auth.Access{access}), 0)
		return
	}
	switch err := r.Untag(req.Context(), image, tag); {
	case err == ErrNotFound:
		serveError(w, errcode.ErrorCodeManifestUnknown.WithDetail(map[string]string{"Tag": tag}), 0)
	case err != nil:
		serveError(w, errcode.ErrorCodeUnknown.WithDetail(err.Error()), 0)
	default:
		w.WriteHeader(http.StatusAccepted)
	}
}

// serveError writes the registry's error envelope
// {"errors":[{"code","message","detail"}]}, with status unless it is 0 (the
// code's own status then).
func serveError(w http.ResponseWriter, e errcode.Error, status int) {
	if status == 0 {
		errcode.ServeJSON(w, e)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := errcode.Errors{e}.MarshalJSON()
	w.Write(append(b, '\n'))
}
