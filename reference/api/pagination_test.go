package api

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/v4cert/v4cert/reference/params"
)

type item struct {
	ID   int
	Name string
}

func items(n int) []item {
	out := make([]item, n)
	for i := range out {
		out[i] = item{ID: i + 1, Name: "n" + strconv.Itoa(1000+(n-i))} // names descend as ids ascend
	}
	return out
}

// page runs Paginate over list for a request to target and returns the
// recorder, the ids answered and the error Paginate returned.
func page(t *testing.T, target string, list []item, ks *Keyset[item]) (*httptest.ResponseRecorder, []int, error) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, target, nil)
	p, err := params.FromRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	c := &Ctx{W: w, R: r, P: p, base: "http://ref.test"}
	pg, err := Paginate(c, list, ks, func(it item) int { return it.ID })
	if err == nil {
		err = c.JSONPage(pg)
	}
	var ids []int
	if err == nil {
		if e := json.Unmarshal(w.Body.Bytes(), &ids); e != nil {
			t.Fatalf("%s: body %q: %v", target, w.Body, e)
		}
		if ids == nil {
			t.Fatalf("%s: body %q is not an array", target, w.Body)
		}
	}
	return w, ids, err
}

var linkPart = regexp.MustCompile(`<([^>]*)>; rel="([a-z]+)"`)

func links(t *testing.T, w *httptest.ResponseRecorder) map[string]url.Values {
	t.Helper()
	out := map[string]url.Values{}
	for _, m := range linkPart.FindAllStringSubmatch(w.Header().Get("Link"), -1) {
		u, err := url.Parse(m[1])
		if err != nil {
			t.Fatalf("Link %q: %v", m[1], err)
		}
		if u.Scheme+"://"+u.Host != "http://ref.test" || u.Path != "/api/v4/things" {
			t.Errorf("Link %q does not point at the request's own address", m[1])
		}
		out[m[2]] = u.Query()
	}
	return out
}

func rels(l map[string]url.Values) []string {
	var out []string
	for rel := range l {
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

func header(w *httptest.ResponseRecorder, name string) (string, bool) {
	v, ok := w.Header()[http.CanonicalHeaderKey(name)]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

// Limits, pagination 1 and 2: every offset header and Link rel on the first,
// a middle, the last and a page past the end, and on an empty list. Where
// the spec is silent (past the end, the empty list) the answer is the
// platform's: no previous page past the last, and one page of none.
func TestOffsetHeaders(t *testing.T) {
	for _, c := range []struct {
		n                          int
		query                      string
		ids                        []int
		page, next, prev, perPage  string
		rels                       []string
		nextPage, prevPage, lastPg string
		total, totalPages          string
	}{
		{5, "per_page=2", []int{1, 2}, "1", "2", "", "2", []string{"first", "last", "next"}, "2", "", "3", "5", "3"},
		{5, "per_page=2&page=2", []int{3, 4}, "2", "3", "1", "2", []string{"first", "last", "next", "prev"}, "3", "1", "3", "5", "3"},
		{5, "per_page=2&page=3", []int{5}, "3", "", "2", "2", []string{"first", "last", "prev"}, "", "2", "3", "5", "3"},
		{5, "per_page=2&page=4", []int{}, "4", "", "", "2", []string{"first", "last"}, "", "", "3", "5", "3"},
		{5, "per_page=2&page=9", []int{}, "9", "", "", "2", []string{"first", "last"}, "", "", "3", "5", "3"},
		{5, "", []int{1, 2, 3, 4, 5}, "1", "", "", "20", []string{"first", "last"}, "", "", "1", "5", "1"},
		{0, "", []int{}, "1", "", "", "20", []string{"first", "last"}, "", "", "1", "0", "1"},
		{0, "page=2", []int{}, "2", "", "", "20", []string{"first", "last"}, "", "", "1", "0", "1"},
	} {
		list := items(c.n)
		w, ids, err := page(t, "/api/v4/things?"+c.query, list, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if !slices.Equal(ids, c.ids) {
			t.Errorf("%s: ids %v, want %v", c.query, ids, c.ids)
		}
		for name, want := range map[string]string{"x-page": c.page, "x-next-page": c.next, "x-prev-page": c.prev,
			"x-per-page": c.perPage, "x-total": c.total, "x-total-pages": c.totalPages} {
			got, ok := header(w, name)
			if !ok || got != want {
				t.Errorf("%s: %s = %q (present %v), want %q", c.query, name, got, ok, want)
			}
		}
		l := links(t, w)
		if got := rels(l); !slices.Equal(got, c.rels) {
			t.Errorf("%s: rels %v, want %v", c.query, got, c.rels)
		}
		if got := l["next"].Get("page"); got != c.nextPage {
			t.Errorf("%s: next page %q", c.query, got)
		}
		if got := l["prev"].Get("page"); got != c.prevPage {
			t.Errorf("%s: prev page %q", c.query, got)
		}
		if got := l["first"].Get("page"); got != "1" {
			t.Errorf("%s: first page %q", c.query, got)
		}
		if got := l["last"].Get("page"); got != c.lastPg {
			t.Errorf("%s: last page %q", c.query, got)
		}
		for rel, q := range l {
			if q.Get("per_page") != c.perPage {
				t.Errorf("%s: rel %s per_page %q", c.query, rel, q.Get("per_page"))
			}
		}
	}
}

// Limits, pagination 1: page defaults to 1, per_page to 20 and at most 100;
// values that are not integers are a 400.
func TestPerPageBounds(t *testing.T) {
	list := items(250)
	for q, want := range map[string]struct {
		n       int
		perPage string
	}{
		"":             {20, "20"},
		"per_page=100": {100, "100"},
		"per_page=101": {100, "100"},
		"per_page=500": {100, "100"},
		"per_page=-5":  {20, "20"},
		"page=0":       {20, "20"},
		"page=-1":      {20, "20"},
	} {
		w, ids, err := page(t, "/api/v4/things?"+q, list, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if len(ids) != want.n || w.Header().Get("X-Per-Page") != want.perPage {
			t.Errorf("%s: %d items, x-per-page %q; want %d, %s", q, len(ids), w.Header().Get("X-Per-Page"), want.n, want.perPage)
		}
		if ids[0] != 1 {
			t.Errorf("%s: starts at %d", q, ids[0])
		}
	}
	for _, q := range []string{"per_page=x", "page=1.5", "page=", "pagination=sideways"} {
		_, _, err := page(t, "/api/v4/things?"+q, list, nil)
		var pe *params.Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: err = %v, want a parameter error", q, err)
		}
	}
	// per_page=0 is refused as on the platform (Grape's except_values),
	// with its error string; keyset pages read per_page the same way.
	for _, q := range []string{"per_page=0", "per_page=0&pagination=keyset"} {
		_, _, err := page(t, "/api/v4/things?"+q, list, testKeyset(list))
		var e *Error
		if !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Body["error"] != "per_page has a value not allowed" {
			t.Errorf("%s: err = %v, want 400 per_page has a value not allowed", q, err)
		}
	}
}

// Links keep every other parameter of the request, in its order and form,
// replace page and per_page in place, and never carry a token.
func TestLinkKeepsOtherParameters(t *testing.T) {
	target := "/api/v4/things?search=a%2Bb&topics[]=x&topics%5B%5D=y&page=2&private_token=secret&order_by=name&per_page=2&flag"
	w, _, err := page(t, target, items(9), nil)
	if err != nil {
		t.Fatal(err)
	}
	link := w.Header().Get("Link")
	want := `<http://ref.test/api/v4/things?search=a%2Bb&topics[]=x&topics%5B%5D=y&page=3&order_by=name&per_page=2&flag>; rel="next"`
	if !regexp.MustCompile(regexp.QuoteMeta(want)).MatchString(link) {
		t.Errorf("Link %s\nlacks %s", link, want)
	}
	if regexp.MustCompile(`secret|private_token`).MatchString(link) {
		t.Errorf("Link carries the token: %s", link)
	}
	// Parameters absent from the request are added.
	w, _, _ = page(t, "/api/v4/things?search=q", items(30), nil)
	l := links(t, w)
	if q := l["next"]; q.Get("search") != "q" || q.Get("page") != "2" || q.Get("per_page") != "20" {
		t.Errorf("next %v", q)
	}
	// A raw byte that would end the URI is re-encoded (found by FuzzServeHTTP).
	w, _, _ = page(t, "/api/v4/things?a>b=c>d&per_page=1", items(3), nil)
	l = links(t, w)
	if len(l) != 3 || l["next"].Get("a>b") != "c>d" {
		t.Errorf("Link %q", w.Header().Get("Link"))
	}
}

// Limits, pagination 2: over 10,000 records there is no x-total,
// x-total-pages or rel=last; at 10,000 exactly they are all there.
func TestCountLimit(t *testing.T) {
	for n, want := range map[int]bool{countLimit: true, countLimit + 1: false} {
		w, ids, err := page(t, "/api/v4/things?per_page=100&page=3", items(n), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) != 100 || ids[0] != 201 {
			t.Errorf("%d records: page 3 has %d items from %d", n, len(ids), ids[0])
		}
		_, total := header(w, "x-total")
		_, pages := header(w, "x-total-pages")
		_, hasLast := links(t, w)["last"]
		if total != want || pages != want || hasLast != want {
			t.Errorf("%d records: x-total %v, x-total-pages %v, rel=last %v; want all %v", n, total, pages, hasLast, want)
		}
		for _, name := range []string{"x-page", "x-per-page", "x-next-page", "x-prev-page"} {
			if _, ok := header(w, name); !ok {
				t.Errorf("%d records: %s missing", n, name)
			}
		}
		if got := rels(links(t, w)); !slices.Contains(got, "next") || !slices.Contains(got, "prev") || !slices.Contains(got, "first") {
			t.Errorf("%d records: rels %v", n, got)
		}
	}
}

func testKeyset(list []item) *Keyset[item] {
	byName := slices.Clone(list)
	slices.SortFunc(byName, func(a, b item) int {
		if a.Name != b.Name {
			if a.Name < b.Name {
				return -1
			}
			return 1
		}
		return a.ID - b.ID
	})
	return &Keyset[item]{
		Sorts: []string{"asc", "desc"}, DefaultOrder: "id", DefaultSort: "asc",
		Orders: map[string]KeysetOrder[item]{
			"id":   {Sorted: func() []item { return list }, Key: func(it item) Cursor { return Cursor{ID: it.ID} }},
			"name": {Sorted: func() []item { return byName }, Key: func(it item) Cursor { return Cursor{V: it.Name, ID: it.ID} }},
		},
		Match: func(it item) bool { return it.ID != 4 }, // filtered items never appear
	}
}

// walk follows rel=next from the first keyset page and returns the pages.
func walk(t *testing.T, query string, list []item) [][]int {
	t.Helper()
	ks := testKeyset(list)
	target := "/api/v4/things?" + query
	var pages [][]int
	for range 20 {
		w, ids, err := page(t, target, list, ks)
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		pages = append(pages, ids)
		// Only Link, as on the platform (pagination.go, keysetPage).
		for _, h := range []string{"X-Total", "X-Total-Pages", "X-Page", "X-Per-Page", "X-Next-Page", "X-Prev-Page"} {
			if _, ok := w.Header()[h]; ok {
				t.Errorf("%s: keyset answer carries %s", target, h)
			}
		}
		l := links(t, w)
		if len(l) == 0 {
			if w.Header().Get("Link") != "" {
				t.Errorf("%s: unparsable Link %q", target, w.Header().Get("Link"))
			}
			return pages
		}
		if got := rels(l); !slices.Equal(got, []string{"next"}) {
			t.Errorf("%s: keyset rels %v, want only next", target, got)
		}
		next := l["next"]
		if next.Get("cursor") == "" || next.Get("pagination") != "keyset" {
			t.Errorf("%s: next %v lacks the cursor or pagination", target, next)
		}
		target = "/api/v4/things?" + next.Encode()
	}
	t.Fatalf("%s: keyset pagination does not end", query)
	return nil
}

// Limits, pagination 3: the next page only through Link rel=next; at the end
// no Link, and an empty last page when the count is a multiple of per_page.
func TestKeyset(t *testing.T) {
	list := items(7) // item 4 is filtered out: 6 visible
	for _, c := range []struct {
		query string
		want  [][]int
	}{
		{"pagination=keyset&per_page=2&order_by=id&sort=asc", [][]int{{1, 2}, {3, 5}, {6, 7}, {}}},
		{"pagination=keyset&per_page=2&order_by=id&sort=desc", [][]int{{7, 6}, {5, 3}, {2, 1}, {}}},
		{"pagination=keyset&per_page=4&order_by=id&sort=asc", [][]int{{1, 2, 3, 5}, {6, 7}}},
		{"pagination=keyset&per_page=2&order_by=name&sort=asc", [][]int{{7, 6}, {5, 3}, {2, 1}, {}}},
		{"pagination=keyset&per_page=4&order_by=name&sort=desc", [][]int{{1, 2, 3, 5}, {6, 7}}},
		{"pagination=keyset&per_page=100", [][]int{{1, 2, 3, 5, 6, 7}}},
		{"search=x&pagination=keyset&per_page=3", [][]int{{1, 2, 3}, {5, 6, 7}, {}}},
	} {
		if got := walk(t, c.query, list); !slicesEqual2(got, c.want) {
			t.Errorf("%s: pages %v, want %v", c.query, got, c.want)
		}
	}
	// Other parameters travel with the next link.
	w, _, _ := page(t, "/api/v4/things?search=x&pagination=keyset&per_page=1", list, testKeyset(list))
	if q := links(t, w)["next"]; q.Get("search") != "x" || q.Get("order_by") != "id" || q.Get("sort") != "asc" {
		t.Errorf("next %v", q)
	}
}

func slicesEqual2(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

func TestKeysetErrors(t *testing.T) {
	list := items(3)
	for q, status := range map[string]int{
		"pagination=keyset&order_by=created_at":    http.StatusMethodNotAllowed,
		"pagination=keyset&sort=sideways":          http.StatusMethodNotAllowed,
		"pagination=keyset&cursor=%21%21":          http.StatusBadRequest,
		"pagination=keyset&cursor=bm90IGpzb24":     http.StatusBadRequest,
		"pagination=keyset&per_page=many":          http.StatusBadRequest,
		"pagination=keyset&cursor=eyJpZCI6Inh9In0": http.StatusBadRequest,
	} {
		_, _, err := page(t, "/api/v4/things?"+q, list, testKeyset(list))
		if e := asError(err, "Thing"); err == nil || e.Status != status {
			t.Errorf("%s: %v, want %d", q, err, status)
		}
	}
	// A list without keyset support refuses pagination=keyset.
	_, _, err := page(t, "/api/v4/things?pagination=keyset", list, nil)
	if e := asError(err, "Thing"); err == nil || e.Status != http.StatusMethodNotAllowed {
		t.Errorf("keyset on an offset-only list: %v", err)
	}
	// pagination=offset is the default spelled out.
	_, ids, err := page(t, "/api/v4/things?pagination=offset&per_page=2", list, testKeyset(list))
	if err != nil || !slices.Equal(ids, []int{1, 2}) {
		t.Errorf("pagination=offset: %v %v", ids, err)
	}
}

func TestCursorRoundTrip(t *testing.T) {
	for _, k := range []Cursor{{ID: 1}, {V: "name with spaces & symbols/é", ID: 42}, {V: "", ID: 0}} {
		got, err := decodeCursor(encodeCursor(k))
		if err != nil || got != k {
			t.Errorf("%+v: %+v, %v", k, got, err)
		}
		if enc := encodeCursor(k); url.QueryEscape(enc) != enc {
			t.Errorf("cursor %q needs escaping in a link", enc)
		}
	}
}

// TestOffsetWindowHugePage: a page number whose offset would overflow int is
// simply past the end (an empty page), never a negative slice bound.
func TestOffsetWindowHugePage(t *testing.T) {
	for _, q := range []string{"page=9223372036854775807", "page=9223372036854775807&per_page=100", "page=92233720368547758&per_page=100"} {
		r := httptest.NewRequest(http.MethodGet, "/api/v4/x?"+q, nil)
		p, err := params.FromRequest(r)
		if err != nil {
			t.Fatal(err)
		}
		c := &Ctx{R: r, P: p}
		_, _, start, end, err := c.offsetWindow(50)
		if err != nil || start != 50 || end != 50 {
			t.Errorf("%s: window [%d,%d) err %v, want the empty window at 50", q, start, end, err)
		}
	}
}
