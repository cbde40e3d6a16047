package api

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference/store"
	"github.com/v4cert/v4cert/specs"
)

func newTestServer(t *testing.T) *Server {
	t.Helper()
	s, err := New(store.New(func() time.Time { return store.FixedTime }), Options{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

// apiEndpoints are the rulebook endpoints under /api/v4; the token issuer's
// and the registry host's are reference/registry's (TestRegistryHostServesRulebook).
func apiEndpoints() []*specs.Endpoint {
	var out []*specs.Endpoint
	for _, e := range specs.Default().Endpoints {
		if e.UnderAPI() {
			out = append(out, e)
		}
	}
	return out
}

// Every rulebook endpoint under /api/v4 has a handler and every handler an endpoint.
func TestHandlersMatchRulebook(t *testing.T) {
	newTestServer(t)
	var fromBook, fromTable []string
	for _, e := range apiEndpoints() {
		fromBook = append(fromBook, e.ID)
	}
	for id := range handlers {
		fromTable = append(fromTable, id)
	}
	sort.Strings(fromBook)
	sort.Strings(fromTable)
	if !slices.Equal(fromBook, fromTable) {
		t.Errorf("handler ids differ from rulebook ids:\nrulebook: %v\nhandlers: %v", fromBook, fromTable)
	}
}

// New refuses to start when the table and the rulebook disagree, either way.
// The test edits the package's handler table, so it must not run in parallel.
func TestNewRefusesMismatch(t *testing.T) {
	st := store.New(func() time.Time { return store.FixedTime })
	handlers["zz.no-such-endpoint"] = (*Server).listUsers
	_, err := New(st, Options{})
	delete(handlers, "zz.no-such-endpoint")
	if err == nil || !strings.Contains(err.Error(), "zz.no-such-endpoint") {
		t.Errorf("a handler without an endpoint: New error = %v", err)
	}
	id := apiEndpoints()[0].ID
	h := handlers[id]
	delete(handlers, id)
	_, err = New(st, Options{})
	handlers[id] = h
	if err == nil || !strings.Contains(err.Error(), id) {
		t.Errorf("an endpoint without a handler: New error = %v", err)
	}
}

// buildPath fills the template of e: every placeholder gets fill, except the
// one named only, which gets special.
func buildPath(e *specs.Endpoint, fill, only, special string) string {
	segs := strings.Split(e.Path, "/")
	for i, s := range segs {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			if name == only {
				segs[i] = special
			} else {
				segs[i] = fill
			}
		}
	}
	return "/api/v4" + strings.Join(segs, "/")
}

func placeholders(e *specs.Endpoint) []string {
	var out []string
	for _, s := range strings.Split(e.Path, "/") {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			out = append(out, name)
		}
	}
	return out
}

func serve(s *Server, method, target string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}

func jsonMessage(t *testing.T, w *httptest.ResponseRecorder, what string) string {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q", what, ct)
	}
	var body struct {
		Message any    `json:"message"`
		Error   string `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil || (body.Message == nil && body.Error == "") {
		t.Errorf("%s: body %q is not JSON with message or error", what, w.Body.String())
		return ""
	}
	if body.Message == nil {
		return body.Error
	}
	s, _ := body.Message.(string)
	return s
}

// A path built from each template lands on its endpoint, with integer and
// with URL-encoded full-path values (Endpoints convention 2).
func TestEncodedPathsLandOnTheirEndpoint(t *testing.T) {
	s := newTestServer(t)
	for _, e := range specs.Default().Endpoints {
		if !e.UnderAPI() {
			continue // the registry host routes outside /api/v4 (registry_native.go)
		}
		want := e.Method + " /api/v4" + e.Pattern()
		for _, fill := range []string{"1", "v4cert-ns%2Fv4cert-sub%2Fv4cert-x", "a%2Fb.c"} {
			target := buildPath(e, fill, "", "")
			r := httptest.NewRequest(e.Method, target, nil)
			if _, pattern := s.mux.Handler(r); pattern != want {
				t.Errorf("%s %s: routed to %q, want %q (%s)", e.Method, target, pattern, want, e.ID)
			}
			w := serve(s, e.Method, target)
			if w.Code == http.StatusMethodNotAllowed || w.Code == http.StatusInternalServerError {
				t.Errorf("%s %s: %d %s", e.Method, target, w.Code, w.Body)
			}
			if w.Code >= 400 {
				if msg := jsonMessage(t, w, e.Method+" "+target); msg == "404 Not Found" {
					t.Errorf("%s %s: the mux's own 404", e.Method, target)
				}
			}
		}
	}
}

// The same paths with an un-encoded slash in any placeholder match no
// endpoint and answer 404 in JSON (Endpoints convention 2, Errors rule 9).
func TestUnencodedPathsAnswer404(t *testing.T) {
	s := newTestServer(t)
	for _, e := range specs.Default().Endpoints {
		if !e.UnderAPI() {
			continue // the registry host routes outside /api/v4 (registry_native.go)
		}
		for _, name := range placeholders(e) {
			target := buildPath(e, "1", name, "v4cert-ns/v4cert-x")
			r := httptest.NewRequest(e.Method, target, nil)
			if _, pattern := s.mux.Handler(r); pattern == e.Method+" /api/v4"+e.Pattern() {
				t.Errorf("%s %s: routed to %s", e.Method, target, e.ID)
			}
			w := serve(s, e.Method, target)
			if w.Code != http.StatusNotFound {
				t.Errorf("%s %s (%s): %d %s, want 404", e.Method, target, e.ID, w.Code, w.Body)
				continue
			}
			jsonMessage(t, w, e.Method+" "+target)
		}
	}
}

// A known path with a method no endpoint has answers 404 in JSON, as the
// platform's catch-all route does (errors.paths.2): no Allow, no handler.
func TestUnsupportedMethodAnswers404(t *testing.T) {
	s := newTestServer(t)
	book := specs.Default()
	for _, e := range book.Endpoints {
		if !e.UnderAPI() {
			continue // the registry host routes outside /api/v4 (registry_native.go)
		}
		target := buildPath(e, "1", "", "")
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if book.Match(m, strings.TrimPrefix(target, "/api/v4")) != nil {
				continue
			}
			w := serve(s, m, target)
			if w.Code != http.StatusNotFound {
				t.Errorf("%s %s: %d %s, want 404", m, target, w.Code, w.Body)
				continue
			}
			jsonMessage(t, w, m+" "+target)
			if allow := w.Header().Get("Allow"); allow != "" {
				t.Errorf("%s %s: Allow %q on a 404", m, target, allow)
			}
		}
	}
}

// Paths outside /api/v4, unclean paths and over-long queries never reach a
// handler; each answer is the spec's status with a JSON message.
func TestAnswersBeforeRouting(t *testing.T) {
	s := newTestServer(t)
	for _, c := range []struct {
		method, target string
		status         int
	}{
		{"GET", "/", 404},
		{"GET", "/foo", 404},
		{"GET", "/api/v3/users", 410},
		{"DELETE", "/api/v3/projects/1", 410},
		{"GET", "/api/v5/users", 404},
		{"GET", "/api/v4", 404},
		{"GET", "/api/v4/", 404},
		{"GET", "/api/v4/no-such-resource", 404},
		{"GET", "/api/v4//users", 404},
		{"GET", "/api/v4/./users", 404},
		{"GET", "/api/v4/users/../user", 404},
		{"GET", "/API/V4/users", 404},
		{"GET", "/api/v4/users?" + strings.Repeat("x", DefaultMaxQueryBytes+1), 414},
		{"GET", "/api/v4/users?" + strings.Repeat("x", DefaultMaxQueryBytes), 200},
	} {
		w := serve(s, c.method, c.target)
		if w.Code != c.status {
			t.Errorf("%s %.60s: %d %s, want %d", c.method, c.target, w.Code, w.Body, c.status)
			continue
		}
		if c.status >= 400 {
			jsonMessage(t, w, c.method+" "+c.target)
		}
	}
}

// The route table lists every rulebook endpoint once, in the rulebook's
// order, so a reader finds a row where the YAML puts the endpoint.
func TestRoutesInRulebookOrder(t *testing.T) {
	book := apiEndpoints()
	if len(routes) != len(book) {
		t.Fatalf("%d rows for %d endpoints under /api/v4", len(routes), len(book))
	}
	for i, e := range book {
		if routes[i].ID != e.ID {
			t.Fatalf("row %d is %s, the rulebook has %s there", i, routes[i].ID, e.ID)
		}
	}
}

// The mux and the rulebook's own matcher (which the suites and the proxy
// use) pick the same endpoint for every path built from the templates with
// values that are themselves literal segments of other templates, encoded
// full paths and trailing slashes. HEAD falls back to GET in both, as the
// mux serves GET routes for HEAD.
func TestMuxAgreesWithRulebookMatcher(t *testing.T) {
	s := newTestServer(t)
	book := specs.Default()
	byPattern := map[string]string{}
	words := map[string]bool{"1": true, "a%2Fb": true, "x.y": true}
	for _, e := range book.Endpoints {
		if !e.UnderAPI() {
			continue
		}
		byPattern[e.Method+" /api/v4"+e.Pattern()] = e.ID
		for _, seg := range strings.Split(e.Path, "/") {
			if seg != "" && !strings.HasPrefix(seg, ":") {
				words[seg] = true
			}
		}
	}
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	seen := map[string]bool{}
	checked := 0
	for _, e := range book.Endpoints {
		if !e.UnderAPI() {
			continue
		}
		for _, name := range append(placeholders(e), "") {
			for w := range words {
				for _, suffix := range []string{"", "/"} {
					target := buildPath(e, "1", name, w) + suffix
					if seen[target] {
						continue
					}
					seen[target] = true
					for _, m := range methods {
						want := ""
						if me := book.Match(m, strings.TrimPrefix(target, "/api/v4")); me != nil {
							want = me.ID
						} else if m == http.MethodHead {
							if me := book.Match(http.MethodGet, strings.TrimPrefix(target, "/api/v4")); me != nil {
								want = me.ID
							}
						}
						_, pattern := s.mux.Handler(httptest.NewRequest(m, target, nil))
						got := byPattern[pattern]
						if !isCleanPath(target) || strings.HasSuffix(pattern, "/{$}") && !strings.HasSuffix(target, "/") {
							got = "" // ServeHTTP answers 404 rather than the mux's redirect
						}
						if got != want {
							t.Errorf("%s %s: mux picks %q (%s), rulebook %q", m, target, got, pattern, want)
						}
						checked++
					}
				}
			}
		}
	}
	t.Logf("%d paths, %d requests: mux and rulebook agree", len(seen), checked)
}
