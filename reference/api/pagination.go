package api

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/v4cert/v4cert/reference/store"
)

// The Limits section: offset pagination for every list, keyset where the spec lists it.
const (
	defaultPerPage = 20
	maxPerPage     = 100
	// countLimit is the spec's 10,000 records above which totals are omitted.
	countLimit = 10000
)

// perPage reads per_page: default 20, at most 100. The spec is silent on
// values below 1; the reference answers as the platform does: 0 is refused
// (its pagination params declare per_page with except_values: [0], and
// Grape answers "per_page has a value not allowed":
// gitlabhq/gitlabhq lib/api/pagination_params.rb @1793989c), a negative value leaves the
// default page size (Kaminari's per ignores it: kaminari/kaminari
// kaminari-core/lib/kaminari/models/page_scope_methods.rb @01ec38a1).
func (c *Ctx) perPage() (int, error) {
	n := c.In().IntOr("per_page", defaultPerPage)
	if err := c.In().Err(); err != nil {
		return 0, err
	}
	if n == 0 {
		e := badRequest("per_page has a value not allowed")
		e.Body["error"] = "per_page has a value not allowed"
		return 0, e
	}
	if n < 1 {
		n = defaultPerPage
	}
	if n > maxPerPage {
		n = maxPerPage
	}
	return n, nil
}

// Page is one page of a list answer: the window's items, already rendered,
// and the headers that describe it (Limits, pagination rules 1 to 3). It is
// computed where the items are (under the store's lock, or from git) and
// written once the lock is released (Ctx.JSONPage), so a slow client never
// holds up a writer. Its items share nothing the store changes later.
type Page struct {
	items  any         // a typed slice []R: encoding/json then skips an interface per item
	header [][2]string // canonical name, value; set in this order
}

func (p *Page) set(name, value string) { p.header = append(p.header, [2]string{name, value}) }

// JSONPage writes p: its headers, then its items with 200.
func (c *Ctx) JSONPage(p *Page) error {
	// The names are canonical already; one slice holds every value.
	h := c.W.Header()
	vals := make([]string, len(p.header))
	for i, kv := range p.header {
		vals[i] = kv[1]
		h[kv[0]] = vals[i : i+1 : i+1]
	}
	return c.JSON(http.StatusOK, p.items)
}

// Paginate computes the page of items the caller asked for: offset pagination
// (Limits, pagination rules 1 and 2), or keyset pagination when the caller
// asks for it and ks says how. items must already be filtered and in the
// requested order; render runs on the page's items only.
func Paginate[T, R any](c *Ctx, items []T, ks *Keyset[T], render func(T) R) (*Page, error) {
	keyset, err := c.keysetAsked()
	if err != nil {
		return nil, err
	}
	if keyset {
		if ks == nil {
			return nil, keysetUnsupported()
		}
		return keysetPage(c, ks, render)
	}
	return PaginateOffset(c, items, render)
}

// PaginateOffset is offset pagination whatever pagination asks (its value is
// still checked): the answer of a list that pages by keyset for some callers
// only.
func PaginateOffset[T, R any](c *Ctx, items []T, render func(T) R) (*Page, error) {
	if _, err := c.keysetAsked(); err != nil {
		return nil, err
	}
	return offsetPage(c, len(items), func(start, end int) ([]R, error) {
		out := make([]R, 0, end-start)
		for _, it := range items[start:end] {
			out = append(out, render(it))
		}
		return out, nil
	})
}

// PaginateWindow is offset pagination over total items of which load reads
// and renders only the window [start, end): lists that read their page from
// storage (commits from git) compute the window once and load no more.
func PaginateWindow[R any](c *Ctx, total int, load func(start, end int) ([]R, error)) (*Page, error) {
	keyset, err := c.keysetAsked()
	if err != nil {
		return nil, err
	}
	if keyset {
		return nil, keysetUnsupported()
	}
	return offsetPage(c, total, load)
}

// PaginateWalk pages a list that is read in its order rather than gathered
// first (issue 21): n items, at(i) the i-th in the order asked for, match the
// filters (nil: none). Without filters an offset page reads only its window
// and X-Total is n. With filters the walk stops once it has passed the
// page's end and counted past the 10,000 records above which no total is
// given (Limits), so a page costs at most what 10,000 matches cost, however
// large the world. A keyset page seeks its cursor in ks's orderings.
func PaginateWalk[T, R any](c *Ctx, n int, at func(int) T, match func(T) bool, ks *Keyset[T], render func(T) R) (*Page, error) {
	keyset, err := c.keysetAsked()
	if err != nil {
		return nil, err
	}
	if keyset {
		if ks == nil {
			return nil, keysetUnsupported()
		}
		return keysetPage(c, ks, render)
	}
	return walkOffset(c, n, at, match, render)
}

// PaginateWalkOffset is PaginateWalk's offset pagination whatever pagination
// asks (its value is still checked), as PaginateOffset is Paginate's.
func PaginateWalkOffset[T, R any](c *Ctx, n int, at func(int) T, match func(T) bool, render func(T) R) (*Page, error) {
	if _, err := c.keysetAsked(); err != nil {
		return nil, err
	}
	return walkOffset(c, n, at, match, render)
}

func walkOffset[T, R any](c *Ctx, n int, at func(int) T, match func(T) bool, render func(T) R) (*Page, error) {
	if match == nil {
		return offsetPage(c, n, func(start, end int) ([]R, error) {
			out := make([]R, 0, end-start)
			for i := start; i < end; i++ {
				out = append(out, render(at(i)))
			}
			return out, nil
		})
	}
	// The window over at most n matches, as offsetWindow computes it.
	_, per, start, _, err := c.offsetWindow(n)
	if err != nil {
		return nil, err
	}
	if page := c.In().IntOr("page", 1); page-1 > n/per {
		start = n + 1 // past every match: nothing to gather
	}
	end := start + per
	var window []T
	count := 0
	for i := 0; i < n; i++ {
		it := at(i)
		if !match(it) {
			continue
		}
		if count >= start && count < end {
			window = append(window, it)
		}
		count++
		if count > end && count > countLimit {
			// A next page exists and the total is not given: offsetPage
			// computes the same window from this lower bound.
			break
		}
	}
	return offsetPage(c, count, func(s, e int) ([]R, error) {
		out := make([]R, 0, e-s)
		for _, it := range window[:e-s] {
			out = append(out, render(it))
		}
		return out, nil
	})
}

// keysetAsked reads pagination: offset (the default) or keyset.
func (c *Ctx) keysetAsked() (bool, error) {
	if !c.P.Has("pagination") {
		return false, nil
	}
	mode := c.In().Enum("pagination", "offset", "keyset")
	if err := c.In().Err(); err != nil {
		return false, err
	}
	return *mode == "keyset", nil
}

// keysetUnsupported is the platform's refusal of a keyset request it cannot
// page (lib/api/helpers/pagination_strategies.rb: error!('Keyset
// pagination is not yet available for this type of request', 405)), in
// Grape's envelope; the spec shows no body for it.
func keysetUnsupported() *Error {
	return grapeError(http.StatusMethodNotAllowed, "Keyset pagination is not yet available for this type of request")
}

// offsetPage computes the window and its headers from total, then loads the
// window's items.
func offsetPage[R any](c *Ctx, total int, load func(start, end int) ([]R, error)) (*Page, error) {
	page, per, start, end, err := c.offsetWindow(total)
	if err != nil {
		return nil, err
	}
	items, err := load(start, end)
	if err != nil {
		return nil, err
	}
	p := &Page{items: items, header: make([][2]string, 0, 7)}
	p.set("X-Page", strconv.Itoa(page))
	p.set("X-Per-Page", strconv.Itoa(per))
	next, prev := "", ""
	if end < total {
		next = strconv.Itoa(page + 1)
	}
	// Where the spec is silent the reference answers as the platform does
	// (docs/rulebook.md): a page past the last one has no previous page,
	// as Kaminari's prev_page is nil when out_of_range? (kaminari/kaminari
	// kaminari-core/lib/kaminari/models/page_scope_methods.rb @01ec38a1).
	if page > 1 && !pastLast(page, per, total) {
		prev = strconv.Itoa(page - 1)
	}
	p.set("X-Next-Page", next)
	p.set("X-Prev-Page", prev)
	// The Link header's entries, written into one string with the request's
	// query read once (issue 21: four links a page were most of a page's
	// allocations).
	perS := strconv.Itoa(per)
	q := c.queryPairs()
	var b strings.Builder
	b.Grow(4 * (len(c.base) + len(c.R.URL.Path) + len(c.R.URL.RawQuery) + 40))
	entry := func(rel, page string) {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		c.writeLink(&b, q, rel, [][2]string{{"page", page}, {"per_page", perS}})
	}
	if prev != "" {
		entry("prev", prev)
	}
	if next != "" {
		entry("next", next)
	}
	entry("first", "1")
	if total <= countLimit {
		// An empty list has one (empty) page, as on the platform:
		// "[paginated_data.total_pages, 1].max"
		// (gitlabhq/gitlabhq lib/gitlab/pagination/offset_pagination.rb @028bf690).
		pages := strconv.Itoa(max((total+per-1)/per, 1))
		p.set("X-Total", strconv.Itoa(total))
		p.set("X-Total-Pages", pages)
		entry("last", pages)
	}
	p.set("Link", b.String())
	return p, nil
}

// pastLast reports whether page lies past the last page of total items:
// Kaminari's out_of_range?, current_page > total_pages, where an empty list
// has no page at all to be in range of.
func pastLast(page, per, total int) bool {
	return page-1 >= (total+per-1)/per
}

// offsetWindow is the page the caller asked for over total items: page and
// per_page as served, and the slice [start, end) they cover. A page far past
// the end is empty; (page-1)*per_page never overflows.
func (c *Ctx) offsetWindow(total int) (page, per, start, end int, err error) {
	if per, err = c.perPage(); err != nil {
		return 0, 0, 0, 0, err
	}
	page = c.In().IntOr("page", 1)
	if err = c.In().Err(); err != nil {
		return 0, 0, 0, 0, err
	}
	if page < 1 {
		page = 1
	}
	start = total
	if page-1 <= total/per {
		start = min((page-1)*per, total)
	}
	return page, per, start, min(start+per, total), nil
}

// Keyset describes how one list supports keyset pagination (Limits, rules 3 and 4).
type Keyset[T any] struct {
	// Orders maps each supported order_by to the items sorted ascending by it
	// (ties broken by id) and the key of one item in that order.
	Orders map[string]KeysetOrder[T]
	// Sorts lists the supported sort directions.
	Sorts []string
	// DefaultOrder and DefaultSort apply when the caller omits them.
	DefaultOrder, DefaultSort string
	// Match filters items; nil keeps all.
	Match func(T) bool
}

// KeysetOrder is one ordering of a keyset list.
type KeysetOrder[T any] struct {
	Sorted func() []T
	Key    func(T) Cursor
}

// Cursor is the position after one item: the value ordered by, then the id.
type Cursor struct {
	V  string `json:"v,omitempty"`
	ID int    `json:"id"`
}

func (a Cursor) compare(b Cursor) int {
	if c := strings.Compare(a.V, b.V); c != 0 {
		return c
	}
	switch {
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

func keysetPage[T, R any](c *Ctx, ks *Keyset[T], render func(T) R) (*Page, error) {
	in := c.In()
	orderBy := in.StringOr("order_by", ks.DefaultOrder)
	sortDir := in.StringOr("sort", ks.DefaultSort)
	per, err := c.perPage()
	if err != nil {
		return nil, err
	}
	if err := in.Err(); err != nil {
		return nil, err
	}
	ord, ok := ks.Orders[orderBy]
	if !ok || !contains(ks.Sorts, sortDir) {
		return nil, keysetUnsupported()
	}
	var after *Cursor
	if raw := in.String("cursor"); raw != nil {
		cur, err := decodeCursor(*raw)
		if err != nil {
			return nil, invalidParam("cursor")
		}
		after = &cur
	}
	if err := in.Err(); err != nil {
		return nil, err
	}
	sorted := ord.Sorted()
	desc := sortDir == "desc"
	// Find where the page starts by binary search, so a deep page costs what the first does.
	var i int
	switch {
	case after == nil && !desc:
		i = 0
	case after == nil && desc:
		i = len(sorted) - 1
	case !desc:
		i = sort.Search(len(sorted), func(k int) bool { return ord.Key(sorted[k]).compare(*after) > 0 })
	default:
		i = sort.Search(len(sorted), func(k int) bool { return ord.Key(sorted[k]).compare(*after) >= 0 }) - 1
	}
	step := 1
	if desc {
		step = -1
	}
	out := make([]R, 0, per)
	var last T
	for ; i >= 0 && i < len(sorted) && len(out) < per; i += step {
		it := sorted[i]
		if ks.Match != nil && !ks.Match(it) {
			continue
		}
		out = append(out, render(it))
		last = it
	}
	// A keyset page carries its Link and no other pagination header, as on
	// the platform, where the keyset pagers only add Link
	// (gitlabhq/gitlabhq lib/gitlab/pagination/keyset/header_builder.rb @41fe9739); Limits,
	// pagination 3 names no other header.
	p := &Page{items: out}
	// A full page may have a successor; the page after the last one is empty
	// and carries no Link, as the spec describes the end.
	if len(out) == per {
		cur := encodeCursor(ord.Key(last))
		p.set("Link", c.link("next", map[string]string{
			"pagination": "keyset", "per_page": strconv.Itoa(per), "order_by": orderBy, "sort": sortDir, "cursor": cur,
		}))
	}
	return p, nil
}

func encodeCursor(k Cursor) string {
	b, _ := json.Marshal(k)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (Cursor, error) {
	var k Cursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return k, err
	}
	err = json.Unmarshal(b, &k)
	return k, err
}

// link builds one Link header entry: the request's own URL with set replacing
// (or adding) those query parameters, other parameters kept in their order.
func (c *Ctx) link(rel string, set map[string]string) string {
	pairs := make([][2]string, 0, len(set))
	for k, v := range set {
		pairs = append(pairs, [2]string{k, v})
	}
	sort.Slice(pairs, func(i, j int) bool { return pairs[i][0] < pairs[j][0] })
	var b strings.Builder
	c.writeLink(&b, c.queryPairs(), rel, pairs)
	return b.String()
}

// queryPair is one key=value of the request's raw query, its key decoded.
type queryPair struct {
	raw, key string
	ok       bool // the key decodes
}

// queryPairs splits the request's raw query once for the links of a page.
func (c *Ctx) queryPairs() []queryPair {
	raw := c.R.URL.RawQuery
	if raw == "" {
		return nil
	}
	out := make([]queryPair, 0, strings.Count(raw, "&")+1)
	for pair := range strings.SplitSeq(raw, "&") {
		if pair == "" {
			continue
		}
		k, _, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		out = append(out, queryPair{raw: pair, key: key, ok: err == nil})
	}
	return out
}

// writeLink writes one Link header entry into b: the request's own URL (its
// query q) with set, sorted by key, replacing (or adding) those parameters,
// other parameters kept in their order.
func (c *Ctx) writeLink(b *strings.Builder, q []queryPair, rel string, set [][2]string) {
	b.WriteString("<")
	b.WriteString(c.baseURL())
	b.WriteString(c.R.URL.EscapedPath())
	b.WriteString("?")
	first := true
	add := func(k, v string) {
		if !first {
			b.WriteString("&")
		}
		first = false
		b.WriteString(url.QueryEscape(k))
		b.WriteString("=")
		b.WriteString(url.QueryEscape(v))
	}
	var done uint64 // bit i: set[i] written
	for _, p := range q {
		if !p.ok {
			continue
		}
		if i := slices.IndexFunc(set, func(kv [2]string) bool { return kv[0] == p.key }); i >= 0 {
			if done&(1<<i) == 0 {
				add(p.key, set[i][1])
				done |= 1 << i
			}
			continue
		}
		if p.key == "private_token" || p.key == "job_token" {
			continue // credentials never travel in links
		}
		if strings.IndexFunc(p.raw, unsafeInLink) >= 0 {
			// A raw `>` (or a byte no URI may hold) would end or break the
			// link; the same parameter re-encoded means the same.
			_, v, _ := strings.Cut(p.raw, "=")
			value, _ := url.QueryUnescape(v) // the request's parameters decoded, so this does too
			add(p.key, value)
			continue
		}
		if !first {
			b.WriteString("&")
		}
		first = false
		b.WriteString(p.raw)
	}
	for i, kv := range set {
		if done&(1<<i) == 0 {
			add(kv[0], kv[1])
		}
	}
	b.WriteString(`>; rel="`)
	b.WriteString(rel)
	b.WriteString(`"`)
}

// unsafeInLink reports bytes a query may carry raw but a URI inside a Link
// header may not: anything outside RFC 3986's unreserved, sub-delims,
// ":@/?%" and the brackets clients leave unencoded in name[] keys.
func unsafeInLink(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("-._~!$&'()*+,;=:@/?%[]", r)
}

// baseURL is scheme://host of the service as the caller reached it.
func (c *Ctx) baseURL() string { return c.base }

func externalBase(r *http.Request, configured string) string {
	if configured != "" {
		return strings.TrimSuffix(configured, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if p := r.Header.Get("X-Forwarded-Proto"); p == "https" || p == "http" {
		scheme = p
	}
	return scheme + "://" + r.Host
}

func contains(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// readPage computes a list's page under the store's read lock and writes it
// once the lock is released: the handler's list says what the page holds,
// and a slow client never holds up a writer.
func (s *Server) readPage(c *Ctx, list func(d *store.Data) (*Page, error)) error {
	var page *Page
	err := s.store.Read(func(d *store.Data) (err error) {
		page, err = list(d)
		return err
	})
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}
