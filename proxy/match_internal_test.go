package proxy

import (
	"net/http"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/specs"
)

// TestPathIndexMatchesRulebook holds the checker's indexed match to the
// rulebook's: every endpoint's path with its parameters filled in several
// ways (empty, encoded, a trailing slash, a segment more or less), under
// every method, HEAD included.
func TestPathIndexMatchesRulebook(t *testing.T) {
	book := specs.Default()
	c := NewChecker(book)
	fills := []string{"1", "a%2Fb", "", "users", ":id"}
	methods := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch}
	n := 0
	for _, e := range book.Endpoints {
		base := apiPrefix
		if !e.UnderAPI() {
			base = ""
		}
		for _, f := range fills {
			var parts []string
			for _, s := range strings.Split(e.Path, "/") {
				if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
					s = f
				}
				parts = append(parts, s)
			}
			p := base + strings.Join(parts, "/")
			for _, path := range []string{p, p + "/", strings.TrimSuffix(p, "/"), p + "/x", p + "?a=1", p[:strings.LastIndexByte(p, '/')+1], "/api/v4", "/api/v4/", "/api/v4x/users", "/"} {
				for _, m := range methods {
					n++
					if got, want := c.Match(m, path), book.MatchRequest(m, path); got != want {
						t.Fatalf("%s %s: indexed %v, rulebook %v", m, path, got, want)
					}
				}
			}
		}
	}
	t.Logf("%d requests matched alike", n)
}
