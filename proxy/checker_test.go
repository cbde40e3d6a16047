package proxy

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/specs"
)

func userEntry(id int) string {
	return fmt.Sprintf(`{"id":%d,"username":"u%d","name":"U %d","state":"active","locked":false,"avatar_url":null,"web_url":"http://x/u%d"}`, id, id, id, id)
}

func usersPage(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = userEntry(i + 1)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

type pageOpts struct {
	page, per, total int
	omitTotal        bool
	links            string // overrides the computed Link header when set
}

// offsetPage builds a consistent offset page the way Limits rule 2 describes it.
func offsetPage(query string, o pageOpts, items int) *Exchange {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Page", fmt.Sprint(o.page))
	h.Set("X-Per-Page", fmt.Sprint(o.per))
	pages := (o.total + o.per - 1) / o.per
	next, prev := "", ""
	if o.page < pages {
		next = fmt.Sprint(o.page + 1)
	}
	if o.page > 1 {
		prev = fmt.Sprint(o.page - 1)
	}
	h.Set("X-Next-Page", next)
	h.Set("X-Prev-Page", prev)
	link := func(rel string, page int) string {
		return fmt.Sprintf(`<http://x/api/v4/users?per_page=%d&page=%d>; rel="%s"`, o.per, page, rel)
	}
	var links []string
	if prev != "" {
		links = append(links, link("prev", o.page-1))
	}
	if next != "" {
		links = append(links, link("next", o.page+1))
	}
	links = append(links, link("first", 1))
	if !o.omitTotal {
		h.Set("X-Total", fmt.Sprint(o.total))
		h.Set("X-Total-Pages", fmt.Sprint(pages))
		links = append(links, link("last", max(pages, 1)))
	}
	h.Set("Link", strings.Join(links, ", "))
	if o.links != "" {
		h.Set("Link", o.links)
	}
	return &Exchange{Method: "GET", URL: "http://x/api/v4/users?" + query, Path: "/api/v4/users", RawQuery: query,
		Status: 200, Header: h, Body: []byte(usersPage(items))}
}

func findings(vs []Violation, sev Severity) []string {
	var out []string
	for _, v := range vs {
		if v.Severity == sev {
			out = append(out, Format(v))
		}
	}
	return out
}

// pastLast is page 9 of a list of 12 at 5 a page, with the given Link and
// X-Prev-Page.
func pastLast(links, prev string) *Exchange {
	ex := offsetPage("per_page=5&page=9", pageOpts{page: 9, per: 5, total: 12, links: links}, 0)
	ex.Header.Set("X-Prev-Page", prev)
	return ex
}

func TestCheckerPagination(t *testing.T) {
	c := NewChecker(nil)
	cases := []struct {
		name string
		ex   *Exchange
		want string // substring of the one expected error; empty: clean
	}{
		{"consistent first page", offsetPage("per_page=5&page=1", pageOpts{page: 1, per: 5, total: 12}, 5), ""},
		{"consistent last page", offsetPage("per_page=5&page=3", pageOpts{page: 3, per: 5, total: 12}, 2), ""},
		{"empty list", offsetPage("", pageOpts{page: 1, per: 20, total: 0}, 0), ""},
		{"too many items", offsetPage("per_page=5&page=1", pageOpts{page: 1, per: 5, total: 12}, 6), "at most per_page=5"},
		{"x-per-page not echoed", func() *Exchange {
			ex := offsetPage("per_page=5&page=1", pageOpts{page: 1, per: 5, total: 12}, 5)
			ex.Header.Set("X-Per-Page", "20")
			return ex
		}(), "x-per-page 5"},
		{"x-page not echoed", func() *Exchange {
			ex := offsetPage("per_page=5&page=2", pageOpts{page: 2, per: 5, total: 12}, 5)
			ex.Header.Set("X-Page", "1")
			return ex
		}(), "x-page 2"},
		{"x-total-pages wrong", func() *Exchange {
			ex := offsetPage("per_page=5", pageOpts{page: 1, per: 5, total: 12}, 5)
			ex.Header.Set("X-Total-Pages", "2")
			return ex
		}(), "ceil(x-total 12 / x-per-page 5)"},
		{"next link missing", offsetPage("per_page=5", pageOpts{page: 1, per: 5, total: 12,
			links: `<http://x/api/v4/users?per_page=5&page=1>; rel="first", <http://x/api/v4/users?per_page=5&page=3>; rel="last"`}, 5), "rel=next to page 2"},
		{"next link to the wrong page", offsetPage("per_page=5", pageOpts{page: 1, per: 5, total: 12,
			links: `<http://x/api/v4/users?per_page=5&page=3>; rel="next", <http://x/api/v4/users?per_page=5&page=1>; rel="first", <http://x/api/v4/users?per_page=5&page=3>; rel="last"`}, 5), "page=2"},
		{"link drops a filter", func() *Exchange {
			ex := offsetPage("per_page=5&search=x", pageOpts{page: 1, per: 5, total: 5}, 5)
			return ex
		}(), "keeping search=x"},
		{"over 10,000 with totals", offsetPage("per_page=100", pageOpts{page: 1, per: 100, total: 10001}, 100), "no x-total above 10,000"},
		{"over 10,000 done right", offsetPage("per_page=100", pageOpts{page: 1, per: 100, omitTotal: true, total: 10001}, 100), ""},
		{"last link without totals", offsetPage("per_page=100", pageOpts{page: 1, per: 100, omitTotal: true, total: 10001,
			links: `<http://x/api/v4/users?per_page=100&page=2>; rel="next", <http://x/api/v4/users?per_page=100&page=1>; rel="first", <http://x/api/v4/users?per_page=100&page=101>; rel="last"`}, 100), "no rel=last when x-total is omitted"},
		{"per_page above 100 clamps", offsetPage("per_page=500", pageOpts{page: 1, per: 100, total: 3}, 3), ""},
		// Where Limits is silent, the platform's answers pass and others
		// that break the arithmetic still fail.
		{"empty list with one page, as on the platform", func() *Exchange {
			ex := offsetPage("", pageOpts{page: 1, per: 20, total: 0}, 0)
			ex.Header.Set("X-Total-Pages", "1")
			return ex
		}(), ""},
		{"empty list with two pages", func() *Exchange {
			ex := offsetPage("", pageOpts{page: 1, per: 20, total: 0}, 0)
			ex.Header.Set("X-Total-Pages", "2")
			return ex
		}(), "x-total-pages 0"},
		{"empty list with no page and rel=last to page 0, as the platform's branches", offsetPage("", pageOpts{page: 1, per: 20, total: 0,
			links: `<http://x/api/v4/users?per_page=20&page=1>; rel="first", <http://x/api/v4/users?per_page=20&page=0>; rel="last"`}, 0), ""},
		{"empty list with one page and rel=last to page 0", func() *Exchange {
			ex := offsetPage("", pageOpts{page: 1, per: 20, total: 0,
				links: `<http://x/api/v4/users?per_page=20&page=1>; rel="first", <http://x/api/v4/users?per_page=20&page=0>; rel="last"`}, 0)
			ex.Header.Set("X-Total-Pages", "1")
			return ex
		}(), "page=1"},
		{"past the last page without prev, as on the platform", pastLast(`<http://x/api/v4/users?per_page=5&page=1>; rel="first", <http://x/api/v4/users?per_page=5&page=3>; rel="last"`, ""), ""},
		{"past the last page with prev", offsetPage("per_page=5&page=9", pageOpts{page: 9, per: 5, total: 12}, 0), ""},
		{"past the last page, rel=prev without x-prev-page", pastLast(`<http://x/api/v4/users?per_page=5&page=8>; rel="prev", <http://x/api/v4/users?per_page=5&page=1>; rel="first", <http://x/api/v4/users?per_page=5&page=3>; rel="last"`, ""), "no rel=prev"},
		{"past the last page, prev to the last page", pastLast(`<http://x/api/v4/users?per_page=5&page=3>; rel="prev", <http://x/api/v4/users?per_page=5&page=1>; rel="first", <http://x/api/v4/users?per_page=5&page=3>; rel="last"`, "3"), `x-prev-page "8"`},
		{"uncounted page past the end without prev, as on the platform", func() *Exchange {
			ex := offsetPage("per_page=5&page=4", pageOpts{page: 4, per: 5, omitTotal: true, total: 15,
				links: `<http://x/api/v4/users?per_page=5&page=1>; rel="first"`}, 0)
			ex.Header.Set("X-Prev-Page", "")
			return ex
		}(), ""},
		{"uncounted page within the list without prev", func() *Exchange {
			ex := offsetPage("per_page=5&page=2", pageOpts{page: 2, per: 5, omitTotal: true, total: 15,
				links: `<http://x/api/v4/users?per_page=5&page=3>; rel="next", <http://x/api/v4/users?per_page=5&page=1>; rel="first"`}, 5)
			ex.Header.Set("X-Prev-Page", "")
			return ex
		}(), `x-prev-page "1"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := findings(c.Check(tc.ex), SeverityError)
			if tc.want == "" {
				if len(errs) > 0 {
					t.Fatalf("want clean, got\n%s", strings.Join(errs, "\n"))
				}
				return
			}
			for _, e := range errs {
				if strings.Contains(e, tc.want) {
					return
				}
			}
			t.Fatalf("want a finding containing %q, got\n%s", tc.want, strings.Join(errs, "\n"))
		})
	}
}

// A list answered whole, as the platform answers its integrations, is one
// finding under the list's own pagination rule, which records the
// divergence.
func TestCheckerListAnsweredWhole(t *testing.T) {
	c := NewChecker(nil)
	h := http.Header{"Content-Type": {"application/json"}}
	ex := &Exchange{Method: "GET", URL: "http://x/api/v4/projects/1/integrations", Path: "/api/v4/projects/1/integrations",
		Status: 200, Header: h, Body: []byte(`[]`)}
	var errs []Violation
	for _, v := range c.Check(ex) {
		if v.Severity == SeverityError {
			errs = append(errs, v)
		}
	}
	if len(errs) != 1 || errs[0].Rule != "integrations.list.3" {
		t.Fatalf("want one finding of integrations.list.3, got %+v", errs)
	}
	if r := c.book.Rule(errs[0].Rule); r == nil || r.Platform == nil || !r.Platform.Diverges {
		t.Errorf("integrations.list.3 should record the platform's divergence: %+v", r)
	}
	users := offsetPage("", pageOpts{page: 1, per: 20, total: 1}, 1)
	for _, name := range []string{"X-Page", "X-Per-Page", "X-Next-Page", "X-Prev-Page", "X-Total", "X-Total-Pages", "Link"} {
		users.Header.Del(name)
	}
	if errs := findings(c.Check(users), SeverityError); len(errs) != 1 || !strings.Contains(errs[0], "answered whole") {
		t.Errorf("users answered whole: %v", errs)
	}
}

func TestCheckerKeyset(t *testing.T) {
	c := NewChecker(nil)
	page := func(items int, link string) *Exchange {
		h := http.Header{"Content-Type": {"application/json"}}
		if link != "" {
			h.Set("Link", link)
		}
		q := "pagination=keyset&per_page=2&order_by=id&sort=asc"
		return &Exchange{Method: "GET", URL: "http://x/api/v4/users?" + q, Path: "/api/v4/users", RawQuery: q, Status: 200, Header: h, Body: []byte(usersPage(items))}
	}
	good := `<http://x/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc&cursor=abc>; rel="next"`
	if errs := findings(c.Check(page(2, good)), SeverityError); len(errs) > 0 {
		t.Errorf("full page with next: %v", errs)
	}
	if errs := findings(c.Check(page(0, "")), SeverityError); len(errs) > 0 {
		t.Errorf("empty last page: %v", errs)
	}
	if errs := findings(c.Check(page(0, good)), SeverityError); len(errs) != 1 || !strings.Contains(errs[0], "empty (last) keyset page") {
		t.Errorf("next on an empty page: %v", errs)
	}
	lost := `<http://x/api/v4/users?pagination=keyset&per_page=2&order_by=name&sort=asc&cursor=abc>; rel="next"`
	if errs := findings(c.Check(page(2, lost)), SeverityError); len(errs) != 1 || !strings.Contains(errs[0], "order_by=id") {
		t.Errorf("next changing order_by: %v", errs)
	}
	if errs := findings(c.Check(page(2, "")), SeverityError); len(errs) != 1 {
		t.Errorf("full page without next: %v", errs)
	}
	// Offset pages answering a keyset request (the platform's GET /groups
	// for an authenticated caller) are a warning, then held to offset rules.
	offset := offsetPage("pagination=keyset&per_page=2&order_by=id&sort=asc", pageOpts{page: 1, per: 2, total: 3}, 2)
	offset.RawQuery, offset.URL = "pagination=keyset&per_page=2&order_by=id&sort=asc", "http://x/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc"
	offset.Header.Set("Link", `<http://x/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc&page=2>; rel="next", <http://x/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc&page=1>; rel="first", <http://x/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc&page=2>; rel="last"`)
	vs := c.Check(offset)
	if errs := findings(vs, SeverityError); len(errs) > 0 {
		t.Errorf("offset pages for a keyset request: %v", errs)
	}
	if warns := findings(vs, SeverityWarning); len(warns) != 1 || !strings.Contains(warns[0], "offset pages") {
		t.Errorf("offset pages for a keyset request, warnings: %v", warns)
	}
	offset.Header.Set("X-Total-Pages", "3")
	if errs := findings(c.Check(offset), SeverityError); len(errs) != 1 {
		t.Errorf("offset pages for a keyset request with a wrong x-total-pages: %v", errs)
	}
	// The position may be named otherwise, as the platform's registry tags
	// name it last; a link naming no position is still an error.
	last := `<http://x/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc&last=b>; rel="next"`
	if errs := findings(c.Check(page(2, last)), SeverityError); len(errs) > 0 {
		t.Errorf("next with last: %v", errs)
	}
	none := `<http://x/api/v4/users?pagination=keyset&per_page=2&order_by=id&sort=asc>; rel="next"`
	if errs := findings(c.Check(page(2, none)), SeverityError); len(errs) != 1 || !strings.Contains(errs[0], "position filter") {
		t.Errorf("next without a position: %v", errs)
	}
}

func TestCheckerStatusSchemaAndBodies(t *testing.T) {
	c := NewChecker(nil)
	json := http.Header{"Content-Type": {"application/json"}}
	ex := func(method, path string, status int, h http.Header, body string) *Exchange {
		return &Exchange{Method: method, URL: "http://x" + path, Path: path, Status: status, Header: h, Body: []byte(body)}
	}
	user := `{"id":1,"username":"root","name":"Root","state":"active","locked":false,"avatar_url":null,"web_url":"http://x/root","created_at":"2024-01-01T00:00:00.000Z","bio":"","location":"","public_email":"","skype":"","linkedin":"","twitter":"","discord":"","website_url":"","organization":"","job_title":"","pronouns":null,"bot":false,"work_information":null,"followers":0,"following":0,"is_followed":false,"local_time":null}`
	cases := []struct {
		name string
		ex   *Exchange
		sev  Severity
		want string
	}{
		{"status the endpoint never answers", ex("GET", "/api/v4/users", 418, json, `{"message":"teapot"}`), SeverityError, "a status of"},
		{"rate limit allowed everywhere", ex("GET", "/api/v4/users", 429, json, `{"message":"Retry later"}`), "", ""},
		{"malformed JSON", ex("GET", "/api/v4/users", 200, json, `[{"id":1,`), SeverityError, "malformed JSON"},
		{"wrong content type", ex("GET", "/api/v4/users", 200, http.Header{"Content-Type": {"text/html"}}, `[]`), SeverityError, "Content-Type application/json"},
		{"schema: missing field", ex("GET", "/api/v4/users", 200, json, `[{"id":1}]`), SeverityError, `missing property "username"`},
		{"schema: wrong type", ex("GET", "/api/v4/users", 200, json, `[{"id":"1","username":"a","name":"a","state":"active","avatar_url":null,"web_url":"w"}]`), SeverityError, "/0/id"},
		{"error body shape", ex("GET", "/api/v4/users/1", 404, json, `{"error_text":"nope"}`), SeverityError, `missing property "message"`},
		{"error body fine", ex("GET", "/api/v4/users/1", 404, json, `{"message":"404 User Not Found"}`), "", ""},
		// The platform's second envelope: Grape's own refusals (Errors: body not shown).
		{"Grape error body fine", ex("GET", "/api/v4/users", 400, json, `{"error":"active is invalid"}`), "", ""},
		{"Grape error not a string", ex("GET", "/api/v4/users", 400, json, `{"error":{"active":"is invalid"}}`), SeverityError, "/error"},
		{"rate limit in plain text", ex("GET", "/api/v4/users", 429, http.Header{"Content-Type": {"text/plain"}}, "Retry later\n"), "", ""},
		{"plain text only for a rate limit", ex("GET", "/api/v4/users/1", 404, http.Header{"Content-Type": {"text/plain"}}, "Not Found"), SeverityError, "Content-Type application/json"},
		{"unknown endpoint", ex("GET", "/api/v4/nothing/here", 404, json, `{"message":"404 Not Found"}`), SeverityWarning, "unknown endpoint"},
		{"encoded id matches one segment", ex("GET", "/api/v4/groups/a%2Fb", 404, json, `{"message":"404 Group Not Found"}`), "", ""},
		{"un-encoded id matches nothing", ex("GET", "/api/v4/groups/a/b", 404, json, `{"message":"404 Not Found"}`), SeverityWarning, "unknown endpoint"},
		{"body on 204", ex("DELETE", "/api/v4/users/5", 204, http.Header{}, `{}`), SeverityError, "no body with status 204"},
		{"valid user", ex("GET", "/api/v4/users/1", 200, json, user), "", ""},
		{"upstream failure", &Exchange{Method: "GET", URL: "http://x/api/v4/users", Path: "/api/v4/users", Err: fmt.Errorf("connection refused")}, SeverityError, "an answer from the upstream"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs := c.Check(tc.ex)
			if tc.sev == "" {
				if len(vs) > 0 {
					t.Fatalf("want clean, got %+v", vs)
				}
				return
			}
			for _, f := range findings(vs, tc.sev) {
				if strings.Contains(f, tc.want) {
					return
				}
			}
			t.Fatalf("want a %s containing %q, got %+v", tc.sev, tc.want, vs)
		})
	}
}

func TestCheckerDeprecatedFieldWarnsOncePerPage(t *testing.T) {
	fast := loadFast()
	// project_embedded marks tag_list deprecated (Resources, Project).
	var name string
	for _, n := range []string{"project_embedded", "project_simple"} {
		if _, ok := fast.roots[n]; ok {
			name = n
			break
		}
	}
	if name == "" {
		t.Skip("no compiled project schema")
	}
	body := []byte(`[{"tag_list":["a"]},{"tag_list":[]}]`)
	_, _, notes := fast.validate(name, true, body)
	if len(notes) != 1 || notes[0].Pointer != "/0/tag_list" {
		t.Fatalf("notes %+v", notes)
	}
}

// TestCheckerDivergenceLabel: a finding under a class-3 rule carries the
// rulebook's label (what the platform itself does, and where that was
// read), in the JSON line and in the printed line; other findings do not.
// A full last keyset page without Link is what the platform's cursor pager
// sends (limits.pagination.4), an error still, and labelled.
func TestCheckerDivergenceLabel(t *testing.T) {
	c := NewChecker(nil)
	q := "pagination=keyset&per_page=2&order_by=id&sort=asc"
	ex := &Exchange{Method: "GET", URL: "http://x/api/v4/users?" + q, Path: "/api/v4/users", RawQuery: q, Status: 200,
		Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(usersPage(2))}
	want := specs.Default().Rule("limits.pagination.4").Divergence()
	var labelled int
	for _, v := range c.Check(ex) {
		if v.Rule == "limits.pagination.4" && v.Severity == SeverityError {
			labelled++
			if v.Divergence != want || want == "" {
				t.Errorf("divergence %q, want %q", v.Divergence, want)
			}
			if line := Format(v); !strings.HasSuffix(line, "("+want+")") {
				t.Errorf("printed without its label: %s", line)
			}
		} else if v.Divergence != "" {
			t.Errorf("%s finding labelled: %+v", v.Rule, v)
		}
	}
	if labelled != 1 {
		t.Errorf("%d findings under limits.pagination.4, want 1", labelled)
	}
	// Under a rule that agrees with the platform, no label.
	for _, v := range c.Check(offsetPage("per_page=2", pageOpts{page: 1, per: 2, total: 3}, 3)) {
		if v.Divergence != "" {
			t.Errorf("%s finding labelled: %s", v.Rule, v.Divergence)
		}
	}
}
