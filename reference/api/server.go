// Package api is the reference server's HTTP layer: one route table built from
// the rulebook, and the shared mechanisms (parameters, errors, pagination,
// authentication) every handler uses.
package api

import (
	"fmt"
	"log"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/v4cert/v4cert/reference/params"
	"github.com/v4cert/v4cert/reference/registry"
	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/reference/workflow/bulkimports"
	"github.com/v4cert/v4cert/reference/workflow/ci"
	"github.com/v4cert/v4cert/reference/workflow/mergerequests"
	"github.com/v4cert/v4cert/reference/workflow/repository"
	"github.com/v4cert/v4cert/specs"
)

// Options configure a Server.
type Options struct {
	// ExternalURL is the base of web_url and Link headers; empty derives it from the request.
	ExternalURL string
	// MaxQueryBytes bounds the query string (spec: very long query strings answer 414).
	MaxQueryBytes int
	// RateLimit is the number of requests per second one client may make; 0 switches limiting off.
	RateLimit int
	// ImportFromAny lets direct-transfer imports reach sources beyond loopback.
	ImportFromAny bool
	// Log receives one line per panic recovered; nil discards.
	Log *log.Logger
	// RepoDir holds the projects' git repositories; empty uses a temporary
	// directory that Close removes.
	RepoDir string
	// Version is the v4cert build, the revision GET /version answers.
	Version string
	// Registry is the registry host the server mounts at /v2/ and
	// /jwt/auth and whose content the project API reads; nil builds an
	// in-memory one that Close closes.
	Registry *registry.Registry
}

// DefaultMaxQueryBytes is the query-string limit unless configured.
const DefaultMaxQueryBytes = 8192

// Server is the reference implementation of the API.
type Server struct {
	store   *store.Store
	opts    Options
	mux     *http.ServeMux
	book    *specs.Rulebook
	limiter *limiter
	routes  map[string]*route
	// repos are the repository workflows (reference/workflow/repository):
	// every write to a repository and the hooks of every moved ref.
	repos *repository.Workflows
	// registry is the registry host; ownRegistry when New built it.
	registry    *registry.Registry
	ownRegistry bool
	clock       store.Clock
	// mr are the merge-request workflows (reference/workflow/mergerequests).
	mr *mergerequests.Workflows
	// ci are the pipeline workflows (reference/workflow/ci).
	ci *ci.Workflows
	// imports are the migration workflows (reference/workflow/bulkimports).
	imports *bulkimports.Workflows
}

type route struct {
	endpoint *specs.Endpoint
	handle   handler
	params   []params.Decl // bound before handle runs (prepare)
}

type handler func(*Server, *Ctx) error

// New builds a server over st. It fails when the rulebook and the handler
// table disagree, which tests catch long before a user does.
func New(st *store.Store, opts Options) (*Server, error) {
	if opts.MaxQueryBytes == 0 {
		opts.MaxQueryBytes = DefaultMaxQueryBytes
	}
	s := &Server{store: st, opts: opts, mux: http.NewServeMux(), book: specs.Default(), routes: map[string]*route{}}
	// Repositories are real git repositories; without git the server refuses to start.
	repos, err := repository.New(st, opts.RepoDir)
	if err != nil {
		return nil, err
	}
	s.repos = repos
	st.Read(func(d *store.Data) error { s.clock = d.Now; return nil })
	if opts.RateLimit > 0 {
		s.limiter = newLimiter(opts.RateLimit)
	}
	for _, e := range s.book.Endpoints {
		if !e.UnderAPI() {
			// The registry host and its token issuer (reference/registry)
			// serve these; TestRegistryHostServesRulebook holds it to them.
			continue
		}
		h, ok := handlers[e.ID]
		if !ok {
			return nil, fmt.Errorf("endpoint %s (%s %s) has no handler", e.ID, e.Method, e.Path)
		}
		rt := &route{endpoint: e, handle: h, params: routeParams(e)}
		s.routes[e.ID] = rt
		pattern := e.Method + " /api/v4" + e.Pattern()
		if err := register(s.mux, pattern, s.serveRoute(rt)); err != nil {
			return nil, fmt.Errorf("endpoint %s: %w", e.ID, err)
		}
	}
	for id := range handlers {
		if e := s.book.Endpoint(id); e == nil || !e.UnderAPI() {
			return nil, fmt.Errorf("handler %s has no endpoint under /api/v4 in the rulebook", id)
		}
	}
	s.registry = opts.Registry
	if s.registry == nil {
		reg, err := registry.New(st, registry.Options{ExternalURL: opts.ExternalURL})
		if err != nil {
			return nil, err
		}
		s.registry, s.ownRegistry = reg, true
	}
	// Merge requests follow their branches, whoever moves them.
	s.mr = mergerequests.New(st, s.repos)
	s.ci = ci.New(st, s.repos)
	s.imports = bulkimports.New(st, s.repos)
	return s, nil
}

func register(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

// Store returns the state the server serves.
func (s *Server) Store() *store.Store { return s.store }

// ServeHTTP applies the limits that hold before routing, then routes on the
// escaped path so that `:id` may be an encoded full path and un-encoded paths
// match nothing (spec, Endpoints convention 2).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if v := recover(); v != nil {
			if s.opts.Log != nil {
				s.opts.Log.Printf("panic serving %s %s: %v\n%s", r.Method, r.URL.RequestURI(), v, debug.Stack())
			}
			writeError(w, errorf(http.StatusInternalServerError, "500 Internal Server Error"))
		}
	}()
	// Date comes from the clock the bodies' timestamps come from, so a client
	// can compare a fresh resource's created_at with the answer's Date under
	// --clock fixed too (net/http keeps a Date a handler has set).
	w.Header().Set("Date", s.clock().UTC().Format(http.TimeFormat))
	if len(r.URL.RawQuery) > s.opts.MaxQueryBytes {
		writeError(w, uriTooLong())
		return
	}
	if s.limiter != nil {
		if retry, ok := s.limiter.allow(clientKey(r), time.Now()); !ok {
			writeError(w, tooManyRequests(retry))
			return
		}
	}
	if registry.Handles(r.URL.Path) {
		s.registry.ServeHTTP(w, r)
		return
	}
	if fullPath, service, ok := gitHTTPPath(r.URL.Path); ok {
		s.serveGitHTTP(w, r, fullPath, service)
		return
	}
	// The platform answers every path of the removed version 3 with 410
	// (gitlabhq/gitlabhq lib/api/api.rb @511e761b, and the mirror
	// skratsch-solutions/gitlabhq lib/api/api.rb @fd27c570: version 'v3' {
	// route :any, '*path' { error!(..., 410) } }); the spec names no status
	// for it (errors.paths.3).
	if strings.HasPrefix(r.URL.EscapedPath(), "/api/v3/") {
		writeError(w, apiV3Gone())
		return
	}
	// The mux would redirect an unclean path (//, /./, /../) or one missing
	// the trailing slash of a {$} pattern; the spec knows no such redirect,
	// and such a path names no endpoint.
	if !isCleanPath(r.URL.EscapedPath()) {
		noteUnrouted(r)
		writeError(w, routeNotFound())
		return
	}
	_, pattern := s.mux.Handler(r)
	if strings.HasSuffix(pattern, "/{$}") && !strings.HasSuffix(r.URL.EscapedPath(), "/") {
		noteUnrouted(r)
		writeError(w, routeNotFound())
		return
	}
	if pattern == "" {
		// No endpoint has this method and path, whether or not another
		// method has the path: the platform's catch-all route :any '*path'
		// answers both with 404 before Grape's router would answer 405
		// (gitlabhq/gitlabhq lib/api/api.rb @511e761b, and the mirror
		// skratsch-solutions/gitlabhq lib/api/api.rb @fd27c570; ruby-grape/grape
		// lib/grape/router.rb, transaction: a '*' route wins over the
		// method-not-allowed neighbour). The spec's 405 row names no such
		// case (errors.paths.2).
		noteUnrouted(r)
		writeError(w, routeNotFound())
		return
	}
	// Handler does not set path values; ServeHTTP matches again and does.
	s.mux.ServeHTTP(w, r)
}

// isCleanPath reports whether p is already in the form the mux routes
// without redirecting (net/http's cleanPath keeps a trailing slash).
func isCleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}

func clientKey(r *http.Request) string {
	if t := r.Header.Get("PRIVATE-TOKEN"); t != "" {
		return "t:" + t
	}
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i > 0 {
		host = host[:i]
	}
	return "a:" + host
}

// limiter is a token bucket per client: RateLimit requests per second with a
// burst of the same size.
type limiter struct {
	mu      sync.Mutex
	rate    float64
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate int) *limiter {
	return &limiter{rate: float64(rate), buckets: map[string]*bucket{}}
}

func (l *limiter) allow(key string, now time.Time) (retryAfter int, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.rate, last: now}
		l.buckets[key] = b
	}
	b.tokens += now.Sub(b.last).Seconds() * l.rate
	if b.tokens > l.rate {
		b.tokens = l.rate
	}
	b.last = now
	if b.tokens < 1 {
		return 1, false
	}
	b.tokens--
	return 0, true
}
