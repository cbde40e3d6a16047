package specs

import "testing"

func TestDefaultLoads(t *testing.T) {
	b := Default()
	if len(b.Endpoints) == 0 || len(b.Rules) == 0 {
		t.Fatalf("empty rulebook: %d endpoints, %d rules", len(b.Endpoints), len(b.Rules))
	}
}

func TestMatch(t *testing.T) {
	expectMatches(t, "Match", Default().Match, []matchCase{
		{"GET", "/users/5", "users.get"},
		{"POST", "/users/5/block", "users.block"},
		{"GET", "/projects/a%2Fb", "projects.get"},
		{"GET", "/projects/a/b", ""},
		{"GET", "/user", "users.current"},
	})
}

type matchCase struct{ method, path, want string }

// expectMatches checks which endpoint ID (empty for none) match finds for each case.
func expectMatches(t *testing.T, name string, match func(method, path string) *Endpoint, cases []matchCase) {
	t.Helper()
	for _, c := range cases {
		got := ""
		if e := match(c.method, c.path); e != nil {
			got = e.ID
		}
		if got != c.want {
			t.Errorf("%s(%s %s) = %q, want %q", name, c.method, c.path, got, c.want)
		}
	}
}

func TestPattern(t *testing.T) {
	e := &Endpoint{Path: "/projects/:id/"}
	e.segments = splitPath(e.Path)
	if got := e.Pattern(); got != "/projects/{id}/{$}" {
		t.Errorf("Pattern = %q", got)
	}
}

// Any request under /api/v4 may be malformed (a body that is not one JSON
// object, sudo given as an array: rules errors.params.4 and 5) or carry a
// token that is no token (Authentication 8), so every endpoint there lists
// 400 and 401 among the statuses it may answer; the proxy holds traffic to
// these lists. The runner API (who: runner) reads no user credential at all
// (gitlabhq/gitlabhq lib/api/ci/runner.rb never calls authenticate!), so a
// token that is no token is ignored there, never a 401.
func TestEveryAPIEndpointMayAnswer400And401(t *testing.T) {
	for _, e := range Default().Endpoints {
		for _, status := range []int{400, 401} {
			if status == 401 && e.Who == "runner" {
				continue
			}
			if e.UnderAPI() && !e.Allows(status) {
				t.Errorf("%s (%s %s) does not list %d", e.ID, e.Method, e.Path, status)
			}
		}
	}
}
