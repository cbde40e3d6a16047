package suites

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/v4cert/v4cert/specs"
)

// Table-driven specs over the rulebook. The rows are read from the rulebook
// while the tree is built: every paginated endpoint, every parameter with a
// default, every filter of a list. Each endpoint's rows read one world its
// fixture builder makes (listFixtures, lists_worlds.go), built once in an
// Ordered container because the rows only read it:
//
//   - pagination: per_page defaults to 20, is honoured up to 100 and capped
//     there, the pages walked through Link rel=next hold every item once, and
//     every Link rel keeps every other parameter of the request;
//   - defaults: sending nothing answers as sending the default does, and the
//     other value answers differently, the world making a difference;
//   - filters: the filtered answer is a strict subset of the unfiltered one
//     and holds exactly the items the world made to match.
//
// A paginated endpoint, a parameter with a default, or a list parameter the
// registry does not place fails the traceability check before any spec runs
// (tableProblems), naming what to add.

// listItems is how many items a list world makes: one more than the default
// page, so the default per_page shows in the body and not only in a header.
const listItems = 21

// listWorld is what the rows of one endpoint read.
type listWorld struct {
	By    *Client            // the caller, unless a row names another
	As    map[string]*Client // other callers rows name
	Path  string             // the endpoint's path, placeholders filled
	Query url.Values         // sent with every request; Link rels must keep them
	Key   string             // gjson path naming an item; "id" when empty
	Items int                // how many items the base request lists
	Few   string             // why Items is under listItems, when it is
	Sets  map[string][]string
	Vals  map[string]string
	// Act performs a request of a row that is not a plain read of Path (a
	// write, or a read of a fresh resource); params are the row's parameter,
	// or nothing.
	Act func(ctx SpecContext, params map[string]any) *Response
	// Acts replace Act for the rows of the parameters they are keyed by.
	Acts map[string]func(ctx SpecContext, params map[string]any) *Response
	// Skip is why the target cannot have this world (an optional
	// provisioning route it lacks); its rows are skipped with it.
	Skip string
}

// worldBuilder makes the worlds of the endpoints it serves, keyed by endpoint ID.
type worldBuilder struct {
	Name  string
	Build func(ctx SpecContext) map[string]*listWorld
}

// listFixture is what the rows of one endpoint need.
type listFixture struct {
	World      *worldBuilder
	Pagination string                // the endpoint's own pagination rule
	Keyset     keysetRow             // for an endpoint with keyset pagination: how to ask for it
	Defaults   map[string]defaultRow // keyed by parameter
	Filters    map[string]filterRow  // keyed by parameter, or by parameter and a word naming the kind of value (paramOf)
	Others     map[string]string     // the endpoint's other parameters, and why no row here checks them
	// Uncounted is where the platform's source leaves out this list's
	// counts (x-total, x-total-pages and rel=last), which Limits,
	// pagination 2 lets the hosted offering do ("Some headers may be
	// absent"): the pagination row then accepts pages with the counts or
	// without all three, and, without them, a full last page linking to an
	// empty one (nothing told the server the list ended there).
	Uncounted string
}

// keysetRow asks for keyset pagination on the world's list: the pages
// followed through Link rel=next alone hold every item of the list once, and
// every link keeps every other parameter of the request (the world's base
// query among them).
type keysetRow struct {
	Rule  string // the endpoint's keyset rule
	Query string // the raw query selecting keyset pagination, with the order it needs
	// As is the caller, from the world's As, when the list pages by keyset
	// for that caller only: the platform serves GET /groups by keyset to
	// unauthenticated callers alone, as Limits 4 lists it ("groups
	// (order_by=name, sort=asc, unauthenticated)"), and answers others with
	// offset pages (a mirror of the platform,
	// skratsch-solutions/gitlabhq lib/api/groups.rb @4300d840, present_groups_with_pagination_strategies).
	As string
}

// defaultRow checks one parameter's default.
type defaultRow struct {
	Rule    string
	Headers []string // answer headers the comparison holds too (HEAD has no body)
	Other   any      // the other value; the negation for booleans when nil
	As      string   // caller, from the world's As
	Fields  []string // item fields whose values the comparison holds too
	Base    string   // a raw query replacing the world's base query for this row
}

// filterRow checks one filter.
type filterRow struct {
	Rule    string
	Query   string // raw query; {name} is the world's Vals[name], escaped
	As      string
	Want    string   // the world's set the answer holds exactly
	Except  string   // or: the unfiltered answer without this set
	Widens  bool     // the filter adds items: the unfiltered answer is a strict subset
	Selects bool     // the parameter picks another list: none of the unfiltered items
	Empty   string   // why the world can only show an empty answer (Want names no set)
	Also    []string // other parameters the row sends together with this one
	Base    string   // a raw query replacing the world's base query for this row
}

// The rows are built in an init function, which runs once every package
// variable, the registry's entries included, is set.
func init() { describeTables() }

// describeTables builds the rows from the rulebook and the registry.
func describeTables() {
	byBuilder := map[*worldBuilder][]*specs.Endpoint{}
	var builders []*worldBuilder
	for _, e := range book.Endpoints {
		fx := listFixtures[e.ID]
		if fx == nil || fx.World == nil {
			continue
		}
		if _, seen := byBuilder[fx.World]; !seen {
			builders = append(builders, fx.World)
		}
		byBuilder[fx.World] = append(byBuilder[fx.World], e)
	}
	for _, b := range builders {
		describeWorld(b, byBuilder[b])
	}
}

func describeWorld(b *worldBuilder, endpoints []*specs.Endpoint) {
	// A world's rows run one after the other on one worker, the longest
	// chain of a run after the 10,001-user spec (up to a minute across a
	// network): they start first, so that no chain begins near the end
	// and outlasts every other worker.
	Describe("Table rows over "+b.Name, Ordered, ContinueOnFailure, SpecPriority(10), func() {
		var worlds map[string]*listWorld
		BeforeAll(func(ctx SpecContext) {
			worlds = b.Build(ctx)
			for _, e := range endpoints {
				Expect(worlds).To(HaveKey(e.ID), "the %s world serves %s", b.Name, e.ID)
			}
		})
		for _, e := range endpoints {
			fx := listFixtures[e.ID]
			Context(e.Method+" "+e.Path, Label("area:"+e.Area, "endpoint:"+e.ID), func() {
				world := func() *listWorld {
					w := worlds[e.ID]
					if w.Skip != "" {
						Skip(w.Skip)
					}
					return w
				}
				switch {
				case fx.Pagination != "" && specs.Default().Rule(fx.Pagination).Divergence() != "":
					// A list the platform does not paginate (its pagination
					// rule records the divergence): on the platform it is
					// outside limits.pagination.1 and .2, so the row checks
					// its own rule alone, and profile platform passes the
					// whole list at once. checkPagination only reads, so
					// SpecOrPlatform may run it again.
					It("defaults per_page to 20, honours it up to 100, and keeps every other parameter in each Link rel",
						Label("rule:"+fx.Pagination),
						func(ctx SpecContext) {
							w := world()
							SpecOrPlatform(fx.Pagination, func() { checkPagination(ctx, w, fx.Uncounted != "") },
								func() { checkUnpaginated(ctx, w) })
						})
				case fx.Pagination != "":
					It("defaults per_page to 20, honours it up to 100, and keeps every other parameter in each Link rel",
						Label("rule:"+fx.Pagination, "rule:limits.pagination.1", "rule:limits.pagination.2"),
						func(ctx SpecContext) { checkPagination(ctx, world(), fx.Uncounted != "") })
				}
				if fx.Keyset.Rule != "" {
					It("pages by keyset through Link rel=next alone, every item once, each link keeping every other parameter",
						Label("rule:"+fx.Keyset.Rule, "rule:limits.pagination.4"),
						func(ctx SpecContext) { checkKeyset(ctx, world(), fx.Keyset) })
				}
				for _, name := range sortedKeys(fx.Defaults) {
					row, p := fx.Defaults[name], e.Param(name)
					It(fmt.Sprintf("answers without %s as with %s=%v, and otherwise with the other value", name, name, p.Default),
						rowLabels(row.Rule, p), func(ctx SpecContext) { checkDefault(ctx, e, world(), p, row) })
				}
				for _, name := range sortedKeys(fx.Filters) {
					row, p := fx.Filters[name], e.Param(paramOf(name))
					It(fmt.Sprintf("narrows the list to the items matching %s", name),
						rowLabels(row.Rule, p), func(ctx SpecContext) { checkFilter(ctx, world(), name, row) })
				}
			})
		}
	})
}

// paramOf is the parameter a filter row is keyed by: the key's first word,
// so that one parameter can have a row per kind of value ("labels",
// "labels None", "labels any").
func paramOf(key string) string {
	name, _, _ := strings.Cut(key, " ")
	return name
}

func rowLabels(rule string, p *specs.Param) Labels {
	l := Label("rule:" + rule)
	if p != nil && p.Paid {
		l = append(l, "paid")
	}
	return l
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// caller is the row's client.
func (w *listWorld) caller(as string) *Client {
	GinkgoHelper()
	if as == "" {
		return w.By
	}
	c := w.As[as]
	Expect(c).NotTo(BeNil(), "the world has no caller %q", as)
	return c
}

// rebased is the world with base as its base query, when base is set.
func (w *listWorld) rebased(base string) *listWorld {
	GinkgoHelper()
	if base == "" {
		return w
	}
	cp := *w
	cp.Query = w.fill(base)
	return &cp
}

// query is the world's base query with extra's parameters replacing those
// of the same name.
func (w *listWorld) query(extra url.Values) url.Values {
	q := url.Values{}
	for k, v := range w.Query {
		q[k] = slices.Clone(v)
	}
	for k, v := range extra {
		q[k] = v
	}
	return q
}

// get reads the world's path with the base query and extra.
func (w *listWorld) get(ctx SpecContext, by *Client, extra url.Values) *Response {
	GinkgoHelper()
	q := w.query(extra)
	if len(q) == 0 {
		return by.Get(ctx, w.Path)
	}
	return by.Get(ctx, w.Path, RawQ(q.Encode()))
}

// keys names the items of an array answer.
func (w *listWorld) keys(r *Response) []string {
	key := w.Key
	if key == "" {
		key = "id"
	}
	var out []string
	for _, e := range r.JSON().Array() {
		out = append(out, e.Get(key).String())
	}
	return out
}

func values(pairs ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		v.Add(pairs[i], pairs[i+1])
	}
	return v
}

// checkPagination is the pagination row (Limits, pagination 1 and 2). An
// uncounted list (listFixture.Uncounted) may leave out its counts.
// checkUnpaginated is the platform's answer to a list it presents without
// paginate: whatever page and per_page ask, every one of the world's items
// once, and no pagination header (expectUnpaginated).
func checkUnpaginated(ctx SpecContext, w *listWorld) {
	GinkgoHelper()
	whole := w.get(ctx, w.By, nil)
	Expect(whole).To(HaveStatus(http.StatusOK))
	everything := w.keys(whole)
	Expect(everything).To(HaveLen(w.Items), "the whole list:\n%s", whole)
	Expect(slices.Compact(slices.Sorted(slices.Values(everything)))).To(HaveLen(w.Items), "no item twice")
	expectUnpaginated(whole, everything, everything)
	for _, q := range []url.Values{values("per_page", "1"), values("page", "2", "per_page", "1"), values("per_page", "101")} {
		r := w.get(ctx, w.By, q)
		expectUnpaginated(r, w.keys(r), everything)
	}
}

func checkPagination(ctx SpecContext, w *listWorld, uncounted bool) {
	Expect(w.Items).To(BeNumerically(">", 0), "the world lists something")
	if w.Items < listItems {
		Expect(w.Few).NotTo(BeEmpty(), "a world of fewer than %d items says why", listItems)
	}
	first := w.get(ctx, w.By, nil)
	Expect(first).To(HaveStatus(http.StatusOK))
	Expect(first).To(HaveHeader("X-Per-Page", "20"), "per_page defaults to 20")
	Expect(first).To(HaveHeader("X-Page", "1"), "page defaults to 1")
	Expect(w.keys(first)).To(HaveLen(min(w.Items, 20)), "the default page holds 20 items, or all when fewer:\n%s", first)
	if w.Items > 20 {
		Expect(first).To(HaveHeader("X-Next-Page", "2"))
	}
	checkLinks(first, w.query(nil), 1, int(math.Ceil(float64(w.Items)/20)), uncounted, w.Items%20 == 0)

	all := w.get(ctx, w.By, values("per_page", "100"))
	Expect(all).To(HaveStatus(http.StatusOK))
	Expect(all).To(HaveHeader("X-Per-Page", "100"))
	everything := w.keys(all)
	Expect(everything).To(HaveLen(w.Items), "per_page=100 lists all %d items:\n%s", w.Items, all)
	Expect(slices.Compact(slices.Sorted(slices.Values(everything)))).To(HaveLen(w.Items), "no item twice")
	Expect(w.keys(first)).To(Equal(everything[:min(w.Items, 20)]), "the default page is the start of the list")

	capped := w.get(ctx, w.By, values("per_page", "101"))
	Expect(capped).To(HaveStatus(http.StatusOK))
	Expect(capped).To(HaveHeader("X-Per-Page", "100"), "per_page is at most 100")
	Expect(w.keys(capped)).To(Equal(everything))

	// Walk the list a few items at a time through the links alone.
	k := max(1, min(7, (w.Items+2)/3))
	pages := (w.Items + k - 1) / k
	q := w.query(values("per_page", strconv.Itoa(k)))
	r := w.get(ctx, w.By, values("per_page", strconv.Itoa(k)))
	var walked []string
	for page := 1; ; page++ {
		// Without counts a full last page may link to an empty one, the
		// end (the platform's commit list counts one commit past each page:
		// a mirror of the platform,
		// pavankalisetti009/gitlab lib/api/commits.rb @d87a46ff, "commit_count = offset +
		// commits.size + 1").
		beyond := uncounted && page == pages+1 && w.Items%k == 0
		if !beyond {
			Expect(page).To(BeNumerically("<=", pages), "the links lead past the last page")
		}
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(HaveHeader("X-Page", strconv.Itoa(page)))
		Expect(r).To(HaveHeader("X-Per-Page", strconv.Itoa(k)))
		if beyond {
			Expect(w.keys(r)).To(BeEmpty(), "the page a full last page links to is empty:\n%s", r)
			Expect(countsOmitted(r)).To(BeTrue(), "only a list without counts links past its last page:\n%s", r)
			Expect(linkRel(r, "next")).To(BeEmpty(), "the empty page past the last links no further:\n%s", r)
			break
		}
		checkLinks(r, q, page, pages, uncounted, w.Items%k == 0)
		walked = append(walked, w.keys(r)...)
		next := linkRel(r, "next")
		if next == "" {
			Expect(page).To(Equal(pages), "rel=next stops at the last page:\n%s", r)
			break
		}
		if page == pages {
			Expect(uncounted && w.Items%k == 0).To(BeTrue(), "rel=next stops at the last page:\n%s", r)
			Expect(countsOmitted(r)).To(BeTrue(), "a page with counts knows it is the last one:\n%s", r)
		}
		r = w.By.Get(ctx, "!"+stripBase(next))
	}
	Expect(walked).To(Equal(everything), "the pages hold every item once, in order")
}

// checkKeyset is the keyset row (Limits, pagination 3): walked a few items
// at a time through rel=next, the keyset pages hold the items the offset
// list holds, each once; no page has a rel other than next; every next link
// leads to the same list and keeps every parameter of the first request
// (the position it adds may change from link to link, whatever its name:
// Limits 3 says "such as id_after or cursor", and the platform's registry
// tags add last); the walk ends at a page without rel=next.
func checkKeyset(ctx SpecContext, w *listWorld, row keysetRow) {
	by := w.caller(row.As)
	all := w.get(ctx, by, values("per_page", "100"))
	Expect(all).To(HaveStatus(http.StatusOK))
	everything := w.keys(all)
	if row.As == "" {
		Expect(everything).To(HaveLen(w.Items), "per_page=100 lists all %d items:\n%s", w.Items, all)
	} else {
		// Another caller sees part of the world; enough for a few pages.
		Expect(len(everything)).To(BeNumerically(">=", 3), "per_page=100 lists the items %s sees:\n%s", row.As, all)
	}
	n := len(everything)

	k := max(1, min(7, (n+2)/3))
	extra := w.fill(row.Query)
	extra.Set("per_page", strconv.Itoa(k))
	sent := w.query(extra)
	r := w.get(ctx, by, extra)
	var walked []string
	// A full last page may still link to an empty one after it.
	for page := 1; ; page++ {
		Expect(page).To(BeNumerically("<=", n/k+1), "keyset links lead past the end of the list")
		Expect(r).To(HaveStatus(http.StatusOK))
		// Limits, pagination 3 names only Link for keyset pages; the
		// platform's keyset pagers send nothing else
		// (gitlabhq/gitlabhq lib/gitlab/pagination/keyset/header_builder.rb @41fe9739). An
		// x-per-page, when sent, still says the page size.
		if _, has := r.Header["X-Per-Page"]; has {
			Expect(r).To(HaveHeader("X-Per-Page", strconv.Itoa(k)))
		}
		Expect(len(r.JSON().Array())).To(BeNumerically("<=", k), "a keyset page holds at most per_page items:\n%s", r)
		walked = append(walked, w.keys(r)...)
		next := linkRel(r, "next")
		for _, rel := range linkRels(r) {
			Expect(rel).To(Equal("next"), "keyset pages link only to the next page:\n%s", r)
		}
		if next == "" {
			break
		}
		u, err := url.Parse(next)
		Expect(err).NotTo(HaveOccurred(), "rel=next %q", next)
		reqURL, err := url.Parse(r.URL)
		Expect(err).NotTo(HaveOccurred())
		Expect(u.EscapedPath()).To(Equal(reqURL.EscapedPath()), "rel=next leads to the same list")
		got := u.Query()
		for name, vals := range sent {
			if name == "page" {
				continue
			}
			Expect(got[name]).To(Equal(vals), "rel=next keeps %s of the request: %s", name, next)
		}
		r = by.Get(ctx, "!"+stripBase(next))
	}
	Expect(slices.Compact(slices.Sorted(slices.Values(walked)))).To(HaveLen(len(walked)), "no item twice in the keyset pages: %v", walked)
	Expect(walked).To(ConsistOf(everything), "the keyset pages hold every item of the list")
}

// checkLinks holds every rel of r's Link header to the request: the same
// path, every parameter of the request but page (and per_page, which a link
// may add) kept with its values, and the page its rel names. An uncounted
// list's page may go without rel=last (countsOmitted); then, when its last
// page is full (lastFull), that page may link to the next, empty one.
func checkLinks(r *Response, sent url.Values, page, pages int, uncounted, lastFull bool) {
	GinkgoHelper()
	rels := linkRels(r)
	want := map[string]int{"first": 1, "last": max(1, pages)}
	if uncounted && countsOmitted(r) {
		delete(want, "last")
		if lastFull && page == pages && slices.Contains(rels, "next") {
			want["next"] = page + 1
		}
	}
	if page > 1 {
		want["prev"] = page - 1
	}
	if page < pages {
		want["next"] = page + 1
	}
	Expect(rels).To(ConsistOf(slices.Collect(mapKeys(want))), "Link rels of page %d of %d:\n%s", page, pages, r)
	reqURL, err := url.Parse(r.URL)
	Expect(err).NotTo(HaveOccurred())
	for rel, target := range want {
		link := linkRel(r, rel)
		u, err := url.Parse(link)
		Expect(err).NotTo(HaveOccurred(), "rel=%s %q", rel, link)
		Expect(u.EscapedPath()).To(Equal(reqURL.EscapedPath()), "rel=%s leads to the same list", rel)
		got := u.Query()
		for name, vals := range sent {
			if name == "page" {
				continue
			}
			Expect(got[name]).To(Equal(vals), "rel=%s keeps %s of the request: %s", rel, name, link)
		}
		Expect(got.Get("page")).To(Equal(strconv.Itoa(target)), "rel=%s names page %d: %s", rel, target, link)
	}
}

// countsOmitted reports whether r leaves out the counts Limits, pagination 2
// lets the hosted offering leave out ("Some headers may be absent"):
// x-total, x-total-pages and rel=last. They come all three or none, as on
// the platform, whose OffsetHeaderBuilder drops them together when a list
// is paginated without counts
// (gitlabhq/gitlabhq lib/gitlab/pagination/offset_header_builder.rb @8b573c94); a page with
// some of them only fails.
func countsOmitted(r *Response) bool {
	GinkgoHelper()
	_, total := r.Header["X-Total"]
	_, pages := r.Header["X-Total-Pages"]
	last := slices.Contains(linkRels(r), "last")
	Expect([]bool{pages, last}).To(Equal([]bool{total, total}),
		"x-total, x-total-pages and rel=last come together or not at all (x-total %v, x-total-pages %v, rel=last %v):\n%s", total, pages, last, r)
	return !total
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// shape is what a default row compares of an answer: the status, then for
// an array each item's key and field names (and the values of fields), for
// an object its field names (and fields), otherwise the body.
func (w *listWorld) shape(r *Response, fields, headers []string) string {
	var out []any
	out = append(out, r.Status)
	for _, h := range headers {
		out = append(out, r.Header.Values(h))
	}
	describe := func(e gjson.Result) any {
		var names []string
		e.ForEach(func(k, _ gjson.Result) bool { names = append(names, k.String()); return true })
		sort.Strings(names)
		item := []any{names}
		for _, f := range fields {
			item = append(item, e.Get(f).Raw)
		}
		return item
	}
	body := r.JSON()
	switch {
	case body.IsArray():
		key := w.Key
		if key == "" {
			key = "id"
		}
		for _, e := range body.Array() {
			out = append(out, []any{e.Get(key).String(), describe(e)})
		}
	case body.IsObject():
		out = append(out, describe(body))
	default:
		out = append(out, string(r.Body))
	}
	b, err := json.Marshal(out)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// checkDefault is a default row.
func checkDefault(ctx SpecContext, e *specs.Endpoint, w *listWorld, p *specs.Param, row defaultRow) {
	Expect(p).NotTo(BeNil())
	w = w.rebased(row.Base)
	other := row.Other
	if other == nil {
		b, ok := p.Default.(bool)
		Expect(ok).To(BeTrue(), "a row of a %s default names the other value", p.Type)
		other = !b
	}
	send := func(params map[string]any) *Response {
		if act := w.Acts[p.Name]; act != nil {
			return act(ctx, params)
		}
		if w.Act != nil {
			return w.Act(ctx, params)
		}
		q := url.Values{}
		if e.Pagination == "offset" || e.Pagination == "keyset" {
			q.Set("per_page", "100") // the whole world, not the first page
		}
		for k, v := range params {
			q.Set(k, fmt.Sprint(v))
		}
		if e.Method == http.MethodHead {
			var opts []Opt
			if enc := w.query(q).Encode(); enc != "" {
				opts = append(opts, RawQ(enc))
			}
			return w.caller(row.As).Head(ctx, w.Path, opts...)
		}
		return w.get(ctx, w.caller(row.As), q)
	}
	absent := send(nil)
	def := send(map[string]any{p.Name: p.Default})
	changed := send(map[string]any{p.Name: other})
	for _, r := range []*Response{absent, def, changed} {
		Expect(r.Status).To(BeNumerically("<", 500), "%s", r)
	}
	Expect(w.shape(absent, row.Fields, row.Headers)).To(Equal(w.shape(def, row.Fields, row.Headers)),
		"%s: sending no %s answers as sending %s=%v\nwithout:\n%s\nwith the default:\n%s", e.ID, p.Name, p.Name, p.Default, absent, def)
	Expect(w.shape(changed, row.Fields, row.Headers)).NotTo(Equal(w.shape(def, row.Fields, row.Headers)),
		"%s: %s=%v answers otherwise than the default %v in this world\nwith the default:\n%s\nwith %v:\n%s", e.ID, p.Name, other, p.Default, def, other, changed)
}

var placeholder = regexp.MustCompile(`\{([a-z0-9_]+)\}`)

// fill replaces {name} in a raw query with the world's value, escaped.
func (w *listWorld) fill(raw string) url.Values {
	GinkgoHelper()
	filled := placeholder.ReplaceAllStringFunc(raw, func(m string) string {
		name := m[1 : len(m)-1]
		v, ok := w.Vals[name]
		Expect(ok).To(BeTrue(), "the world has no value %q", name)
		return url.QueryEscape(v)
	})
	q, err := url.ParseQuery(filled)
	Expect(err).NotTo(HaveOccurred())
	return q
}

// checkFilter is a filter row.
func checkFilter(ctx SpecContext, w *listWorld, name string, row filterRow) {
	w = w.rebased(row.Base)
	by := w.caller(row.As)
	all := w.get(ctx, by, values("per_page", "100"))
	Expect(all).To(HaveStatus(http.StatusOK))
	filter := w.fill(row.Query)
	filter.Set("per_page", "100")
	got := w.get(ctx, by, filter)
	Expect(got).To(HaveStatus(http.StatusOK))
	everything, kept := w.keys(all), w.keys(got)
	var want []string
	switch {
	case row.Want != "":
		want = w.Sets[row.Want]
		Expect(w.Sets).To(HaveKey(row.Want), "the world has a set %q", row.Want)
	case row.Except != "":
		excluded := w.Sets[row.Except]
		Expect(excluded).NotTo(BeEmpty(), "the world has items for %s to leave out", name)
		Expect(everything).To(ContainElements(excluded), "the unfiltered list holds the items %s leaves out", name)
		for _, k := range everything {
			if !slices.Contains(excluded, k) {
				want = append(want, k)
			}
		}
	default:
		Expect(row.Empty).NotTo(BeEmpty(), "a row without a set says why the answer is empty")
	}
	Expect(kept).To(ConsistOf(want), "%s keeps exactly the matching items\nunfiltered:\n%s\nfiltered:\n%s", name, all, got)
	if row.Selects {
		Expect(want).NotTo(BeEmpty(), "the world has items for %s to pick", name)
		for _, k := range want {
			Expect(everything).NotTo(ContainElement(k), "%s picks items the unfiltered list does not hold", name)
		}
		return
	}
	if row.Widens {
		Expect(kept).To(ContainElements(everything), "%s adds to the unfiltered list", name)
		Expect(len(kept)).To(BeNumerically(">", len(everything)), "%s adds items in this world", name)
		return
	}
	Expect(everything).To(ContainElements(want), "the filtered list is a subset of the unfiltered one")
	Expect(len(want)).To(BeNumerically("<", len(everything)), "%s leaves items out in this world", name)
}

// tableProblems lists where the suites' tables keyed by endpoint miss part
// of the rulebook: the clock table, and the list registry.
func tableProblems() []string {
	return append(clockTableProblems(), listTableProblems()...)
}

// listTableProblems lists the paginated endpoints without a world, the
// parameters with a default and the list parameters no row or note places,
// and registry entries that name nothing in the rulebook.
func listTableProblems() []string {
	var out []string
	for _, e := range book.Endpoints {
		fx := listFixtures[e.ID]
		paginated := e.Pagination == "offset" || e.Pagination == "keyset"
		list := paginated || e.Array
		if paginated && (fx == nil || fx.World == nil || fx.Pagination == "") {
			out = append(out, fmt.Sprintf("endpoint %s (%s %s) is paginated but has no world: add to listFixtures in suites/lists_worlds.go "+
				"%q: {World: <a worldBuilder whose Build makes at least %d items and returns a listWorld for %s>, Pagination: \"<the rule saying %s is paginated>\", "+
				"Defaults: <a defaultRow per parameter with a default>, Filters: <a filterRow per filter>, Others: <every other parameter, with why no row checks it>}",
				e.ID, e.Method, e.Path, e.ID, listItems, e.ID, e.ID))
			continue
		}
		for _, p := range e.Params {
			if p.Name == "page" || p.Name == "per_page" || strings.Contains(e.Path, ":"+p.Name) {
				continue
			}
			if p.Default == nil && !list {
				continue
			}
			placed := fx != nil && (fx.placesDefault(p.Name) || (p.Default == nil && fx.placesFilter(p.Name)) || fx.Others[p.Name] != "")
			if !placed {
				what := "a list parameter"
				if p.Default != nil {
					what = fmt.Sprintf("a parameter with default %v", p.Default)
				}
				out = append(out, fmt.Sprintf("%s of %s (%s %s) is %s with no row: add to listFixtures[%q] in suites/lists_worlds.go a defaultRow, a filterRow, or an Others entry saying why no row checks it",
					p.Name, e.ID, e.Method, e.Path, what, e.ID))
			}
		}
	}
	for _, id := range sortedKeys(listFixtures) {
		fx := listFixtures[id]
		e := book.Endpoint(id)
		if e == nil {
			out = append(out, "listFixtures names unknown endpoint "+id)
			continue
		}
		if fx.Pagination != "" && book.Rule(fx.Pagination) == nil {
			out = append(out, fmt.Sprintf("listFixtures[%q] names unknown rule %s", id, fx.Pagination))
		}
		if fx.Keyset.Rule != "" && book.Rule(fx.Keyset.Rule) == nil {
			out = append(out, fmt.Sprintf("listFixtures[%q] names unknown keyset rule %s", id, fx.Keyset.Rule))
		}
		if e.Pagination == "keyset" && fx.World != nil && fx.Keyset.Rule == "" {
			out = append(out, fmt.Sprintf("endpoint %s (%s %s) pages by keyset but listFixtures[%q] has no Keyset row: "+
				"add Keyset: keysetRow{Rule: \"<its keyset rule>\", Query: \"pagination=keyset&order_by=<an order it pages by>\"}", id, e.Method, e.Path, id))
		}
		if e.Pagination == "keyset" && e.Param("pagination") == nil {
			out = append(out, fmt.Sprintf("endpoint %s (%s %s) pages by keyset but declares no pagination parameter: add {name: pagination, type: string, values: [offset, keyset]} to its params",
				id, e.Method, e.Path))
		}
		check := func(kind, name, rule string) {
			if e.Param(name) == nil {
				out = append(out, fmt.Sprintf("listFixtures[%q] has a %s row for %s, which %s does not take", id, kind, name, id))
			}
			if rule != "" && book.Rule(rule) == nil {
				out = append(out, fmt.Sprintf("listFixtures[%q] %s row %s names unknown rule %s", id, kind, name, rule))
			}
		}
		for name, row := range fx.Defaults {
			check("default", name, row.Rule)
			if p := e.Param(name); p != nil && p.Default == nil {
				out = append(out, fmt.Sprintf("listFixtures[%q] has a default row for %s, which has no default", id, name))
			}
		}
		for name, row := range fx.Filters {
			check("filter", paramOf(name), row.Rule)
			for _, a := range row.Also {
				check("filter", a, "")
			}
		}
		for name := range fx.Others {
			check("note", name, "")
		}
	}
	return out
}

func (fx *listFixture) placesDefault(name string) bool {
	_, ok := fx.Defaults[name]
	return ok
}

func (fx *listFixture) placesFilter(name string) bool {
	for key, row := range fx.Filters {
		if paramOf(key) == name || slices.Contains(row.Also, name) {
			return true
		}
	}
	return false
}
