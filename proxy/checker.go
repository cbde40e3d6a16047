package proxy

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/v4cert/v4cert/schemas"
	"github.com/v4cert/v4cert/specs"
)

// Exchange is one request and its answer, as the proxy saw it or a cassette
// recorded it.
type Exchange struct {
	Index     int
	Method    string
	URL       string // as sent, for reports; secrets are redacted before it is shown
	Path      string // escaped path, such as /api/v4/groups/a%2Fb
	RawQuery  string
	ReqHeader http.Header
	ReqBody   []byte
	Status    int
	Header    http.Header
	Body      []byte
	Duration  time.Duration
	// Err is set when the upstream gave no complete answer (refused, hung,
	// closed, truncated the body); Status and Body hold what did arrive.
	Err error
	// noSecretNames: the check read every member name of Body, a valid
	// JSON answer, and none may be a secret's; the cassette's redaction
	// then need not look for them again (one read of the body).
	noSecretNames bool
}

// Checker judges exchanges against the rulebook and the schemas. It is safe
// for concurrent use and keeps no state between exchanges.
type Checker struct {
	book  *specs.Rulebook
	fast  *fastSchemas
	paths pathIndex
}

// NewChecker returns a checker for book (specs.Default() when nil). The
// schemas are compiled once, on first use of any checker.
func NewChecker(book *specs.Rulebook) *Checker {
	if book == nil {
		book = specs.Default()
	}
	return &Checker{book: book, fast: loadFast(), paths: newPathIndex(book)}
}

// apiPrefix is where every endpoint lives (Versioning 1).
const apiPrefix = "/api/v4"

// Match finds the rulebook endpoint of a request (specs.MatchRequest: HEAD
// as GET, the token issuer and registry host outside /api/v4).
func (c *Checker) Match(method, escapedPath string) *specs.Endpoint {
	if i := strings.IndexByte(escapedPath, '?'); i >= 0 {
		escapedPath = escapedPath[:i]
	}
	p, ok := strings.CutPrefix(escapedPath, apiPrefix)
	if !ok || (p != "" && p[0] != '/') {
		return c.book.MatchRequest(method, escapedPath) // outside /api/v4: globs
	}
	e := c.paths.match(method, p)
	if e == nil && method == http.MethodHead {
		e = c.paths.match(http.MethodGet, p)
	}
	return e
}

// pathIndex is specs.Rulebook.Match for paths under /api/v4, the
// endpoints split once and filed by method and segment count, so a request
// is compared with the few that could match, without splitting its path
// into a slice. The verdict is Match's (a test holds them together): the
// most literal segments win, the first in the book on a tie; a parameter
// takes one non-empty segment; the trailing slash must agree.
type pathIndex map[pathKey][]indexedEndpoint

type pathKey struct {
	method string
	segs   int
}

type indexedEndpoint struct {
	e        *specs.Endpoint
	segs     []string // ":name" for a parameter
	trailing bool
}

func newPathIndex(book *specs.Rulebook) pathIndex {
	idx := pathIndex{}
	for _, e := range book.Endpoints {
		if !e.UnderAPI() {
			continue
		}
		segs := splitSegments(e.Path)
		k := pathKey{e.Method, len(segs)}
		idx[k] = append(idx[k], indexedEndpoint{e: e, segs: segs, trailing: strings.HasSuffix(e.Path, "/")})
	}
	return idx
}

// splitSegments is the rulebook's split of a path: no leading or
// trailing slash, then one segment between each two.
func splitSegments(p string) []string {
	p = strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func (idx pathIndex) match(method, path string) *specs.Endpoint {
	trimmed := strings.TrimSuffix(strings.TrimPrefix(path, "/"), "/")
	n := 0
	if trimmed != "" {
		n = strings.Count(trimmed, "/") + 1
	}
	trailing := strings.HasSuffix(path, "/") && n > 0
	var best *specs.Endpoint
	bestScore := -1
	for _, ie := range idx[pathKey{method, n}] {
		if ie.trailing != trailing {
			continue
		}
		score, rest, ok := 0, trimmed, true
		for _, s := range ie.segs {
			seg := rest
			if j := strings.IndexByte(rest, '/'); j >= 0 {
				seg, rest = rest[:j], rest[j+1:]
			}
			if len(s) > 0 && s[0] == ':' {
				if seg == "" {
					ok = false
					break
				}
				continue
			}
			if s != seg {
				ok = false
				break
			}
			score++
		}
		if ok && score > bestScore {
			best, bestScore = ie.e, score
		}
	}
	return best
}

// alwaysAllowed are statuses any endpoint may answer whatever the rulebook
// lists: rate limits (Errors, 429; Limits "Requests are subject to rate
// limits") and overload (Errors, 503) apply to every request.
func alwaysAllowed(status int) bool { return status == 429 || status == 503 }

// Check returns every finding about ex.
func (c *Checker) Check(ex *Exchange) []Violation {
	_, vs := c.Inspect(ex)
	return vs
}

// Inspect returns the endpoint ex matched (nil when none) and the findings.
func (c *Checker) Inspect(ex *Exchange) (*specs.Endpoint, []Violation) {
	r := report{ex: ex}
	if ex.Err != nil && ex.Status == 0 {
		r.add(Violation{Severity: SeverityError, Expected: "an answer from the upstream", Seen: ex.Err.Error()})
		return nil, r.vs
	}
	e := c.Match(ex.Method, ex.Path)
	r.endpoint = e
	if ex.Err != nil {
		r.add(Violation{Severity: SeverityError, Expected: "a complete answer from the upstream", Seen: ex.Err.Error()})
	}
	if e == nil {
		r.add(Violation{Severity: SeverityWarning,
			Expected: "a method and path the rulebook knows", Seen: "unknown endpoint " + ex.Method + " " + ex.Path})
	} else {
		if !e.Allows(ex.Status) && !alwaysAllowed(ex.Status) {
			r.add(Violation{Severity: SeverityError, Expected: "a status of " + statusList(e), Seen: strconv.Itoa(ex.Status)})
		}
		// Deprecated things in a request are the client's doing: warnings.
		if e.Deprecated {
			r.add(Violation{Severity: SeverityWarning, Expected: "no deprecated endpoint in the request", Seen: "the request calls " + e.Method + " " + e.Path + ", which is deprecated"})
		}
		if e.HasDeprecatedParams() {
			for _, d := range e.DeprecatedIn(requestParams(ex)) {
				r.add(Violation{Severity: SeverityWarning, Expected: "no deprecated parameter in the request", Seen: "the request sends " + d.String()})
			}
		}
	}
	if ex.Err == nil {
		body, err := decodedBody(ex)
		if err != nil {
			r.add(Violation{Severity: SeverityError, Expected: "a body in its declared Content-Encoding", Seen: err.Error()})
		} else {
			count := c.checkBody(&r, e, body)
			if e != nil && ex.Status == http.StatusOK && (e.Pagination == "offset" || e.Pagination == "keyset") && ex.Method == http.MethodGet {
				checkPagination(&r, c.book, e, body, count)
			}
		}
	}
	for i := range r.vs {
		r.vs[i].Divergence = c.book.Rule(r.vs[i].Rule).Divergence()
	}
	return e, r.vs
}

// requestParams are the names and values a request sends, from its query
// and its body (JSON object members, form or multipart fields), for the
// deprecation check; a body that is none of those adds nothing.
func requestParams(ex *Exchange) map[string][]string {
	out := map[string][]string{}
	if ex.RawQuery != "" {
		if q, err := url.ParseQuery(ex.RawQuery); err == nil {
			maps.Copy(out, q)
		}
	}
	if len(ex.ReqBody) == 0 {
		return out
	}
	ct := ""
	if ex.ReqHeader != nil {
		ct = ex.ReqHeader.Get("Content-Type")
	}
	mt, params, _ := mime.ParseMediaType(ct)
	switch {
	case mt == "application/x-www-form-urlencoded":
		if q, err := url.ParseQuery(string(ex.ReqBody)); err == nil {
			for k, v := range q {
				out[k] = append(out[k], v...)
			}
		}
	case mt == "multipart/form-data" && params["boundary"] != "":
		mr := multipart.NewReader(bytes.NewReader(ex.ReqBody), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			v, _ := io.ReadAll(io.LimitReader(p, 4096))
			out[p.FormName()] = append(out[p.FormName()], string(v))
		}
	default:
		var obj map[string]json.RawMessage
		if json.Unmarshal(ex.ReqBody, &obj) == nil {
			for k, raw := range obj {
				var str string
				if json.Unmarshal(raw, &str) == nil {
					out[k] = append(out[k], str)
				} else {
					out[k] = append(out[k], string(raw))
				}
			}
		}
	}
	return out
}

// report collects the findings of one exchange, filling in what they share.
type report struct {
	ex       *Exchange
	endpoint *specs.Endpoint
	vs       []Violation
}

func (r *report) add(v Violation) {
	v.Index = r.ex.Index
	if r.endpoint != nil {
		v.Endpoint = r.endpoint.ID
	}
	v.Method = r.ex.Method
	v.URL = RedactURL(r.ex.URL)
	v.Status = r.ex.Status
	r.vs = append(r.vs, v)
}

func statusList(e *specs.Endpoint) string {
	all := append([]int{e.Status}, e.Statuses...)
	sort.Ints(all)
	parts := make([]string, len(all))
	for i, s := range all {
		parts[i] = strconv.Itoa(s)
	}
	return strings.Join(parts, ", ") + " (or 429, 503)"
}

func decodedBody(ex *Exchange) ([]byte, error) {
	switch strings.ToLower(ex.Header.Get("Content-Encoding")) {
	case "", "identity":
		return ex.Body, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(ex.Body))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		return io.ReadAll(zr)
	default:
		return ex.Body, nil
	}
}

// checkBody validates the body against what the rulebook's judge expects
// of it (specs.ExpectBody): success bodies against the endpoint's schema,
// error bodies against the error shape common to Errors rules 2–6. It
// returns the number of elements of a valid array body, or -1.
func (c *Checker) checkBody(r *report, e *specs.Endpoint, body []byte) int {
	ex := r.ex
	rule := specs.ExpectBodyFor(e, ex.Method, ex.Path, ex.RawQuery, ex.Status, specs.Anonymous(ex.ReqHeader, ex.RawQuery))
	switch {
	case rule.MustBeEmpty:
		if len(body) > 0 {
			r.add(Violation{Severity: SeverityError, Expected: "no body with status " + strconv.Itoa(ex.Status), Seen: fmt.Sprintf("%d bytes", len(body))})
		}
		return -1
	case rule.Schema == "":
		return -1
	case rule.MayBeEmpty && len(bytes.TrimSpace(body)) == 0:
		return -1
	case rule.MayBePlainText && specs.IsPlainText(ex.Header.Get("Content-Type")):
		return -1
	}
	schema, array := rule.Schema, rule.Array
	if ct := ex.Header.Get("Content-Type"); ct != "application/json" && !specs.IsJSON(ct) { // (the common answer spared a parse)
		r.add(Violation{Severity: SeverityError, Schema: schema, Expected: "Content-Type application/json", Seen: fmt.Sprintf("Content-Type %q", ex.Header.Get("Content-Type"))})
	}
	valid, known, notes, count, noSecretNames := c.fast.validateCount(schema, array, body)
	// The body as the cassette records it (not a gunzipped copy).
	ex.noSecretNames = noSecretNames && len(body) == len(ex.Body) && &body[0] == &ex.Body[0]
	for _, n := range notes {
		// A deprecated field is the server's doing, and the spec's own
		// answers carry them (runner active): information, not a warning.
		r.add(Violation{Severity: SeverityInfo, Schema: n.Location, Pointer: n.Pointer,
			Expected: "no deprecated field in the answer", Seen: "the answer carries deprecated field " + lastToken(n.Pointer)})
	}
	if known && valid {
		return count
	}
	if !validJSON(body) {
		r.add(Violation{Severity: SeverityError, Schema: schema, Expected: "a JSON body", Seen: "malformed JSON: " + excerpt(body)})
		return -1
	}
	var err error
	if array {
		err = schemas.ValidateArray(schema, body)
	} else {
		err = schemas.Validate(schema, body)
	}
	var se *schemas.Error
	switch {
	case err == nil:
		if known {
			// The compiled checks refused what the library accepts: the
			// harness is wrong, not the target. Say so, never pass silently.
			r.add(Violation{Severity: SeverityHarness, Schema: schema,
				Expected: "the compiled schema checks to agree with the JSON Schema library",
				Seen:     "the compiled checks refuse a body the library accepts (a v4cert defect; please report it with this body): " + excerpt(body)})
		}
	case errors.As(err, &se):
		for _, is := range se.Issues {
			seen := is.Message
			r.add(Violation{Severity: SeverityError, Schema: is.Location, Pointer: is.Pointer,
				Expected: describe(is), Seen: seen})
		}
	default:
		r.add(Violation{Severity: SeverityError, Schema: schema, Expected: "a body matching schema " + schema, Seen: err.Error()})
	}
	return -1
}

func describe(is schemas.Issue) string {
	if is.Description != "" {
		return is.Description
	}
	return "schema keyword " + is.Keyword
}

func lastToken(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

func excerpt(b []byte) string {
	const max = 120
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}

// Tally accumulates coverage and counts over many exchanges; it is safe for
// concurrent use.
type Tally struct {
	mu      sync.Mutex
	book    *specs.Rulebook
	summary Summary
}

// NewTally returns an empty tally over book (specs.Default() when nil).
func NewTally(book *specs.Rulebook) *Tally {
	if book == nil {
		book = specs.Default()
	}
	return &Tally{book: book, summary: Summary{Coverage: Coverage{}, Endpoints: len(book.Endpoints)}}
}

// Add counts one exchange, the endpoint it matched and its findings.
func (t *Tally) Add(e *specs.Endpoint, status int, vs []Violation) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := &t.summary
	s.Exchanges++
	for _, v := range vs {
		switch v.Severity {
		case SeverityError:
			s.Errors++
			if v.Divergence != "" {
				s.Divergences++
			}
		case SeverityWarning:
			s.Warnings++
		case SeverityInfo:
			s.Info++
		default:
			s.Harness++
		}
	}
	if e == nil {
		s.Unknown++
		return
	}
	if status == 0 {
		return
	}
	m := s.Coverage[e.ID]
	if m == nil {
		m = map[int]int{}
		s.Coverage[e.ID] = m
		s.CoveredEPs++
	}
	m[status]++
}

// Summary returns a copy of the counts so far.
func (t *Tally) Summary() Summary {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.summary
	s.Coverage = Coverage{}
	for id, m := range t.summary.Coverage {
		cp := map[int]int{}
		for k, v := range m {
			cp[k] = v
		}
		s.Coverage[id] = cp
	}
	for _, e := range t.book.Endpoints {
		if _, ok := s.Coverage[e.ID]; !ok && !e.Provisioning {
			s.Uncovered = append(s.Uncovered, e.ID)
		}
	}
	return s
}

// Format renders a finding as one line for a terminal.
func Format(v Violation) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s", v.Index, v.Severity)
	if v.Endpoint != "" {
		b.WriteString(" " + v.Endpoint)
	}
	fmt.Fprintf(&b, " %s %s", v.Method, v.URL)
	if v.Status != 0 {
		fmt.Fprintf(&b, " → %d", v.Status)
	}
	b.WriteString(":")
	if v.Rule != "" {
		b.WriteString(" [" + v.Rule + "]")
	}
	if v.Schema != "" {
		b.WriteString(" " + v.Schema)
	}
	if v.Pointer != "" {
		b.WriteString(" at " + v.Pointer)
	}
	fmt.Fprintf(&b, " expected %s; seen %s", v.Expected, v.Seen)
	if v.Divergence != "" {
		b.WriteString(" (" + v.Divergence + ")")
	}
	return b.String()
}

// FormatSummary renders the summary for a terminal: counts, then the
// endpoints the traffic covered with their statuses.
func FormatSummary(s Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d exchanges: %d errors, %d warnings, %d information, %d to endpoints the rulebook does not know\n", s.Exchanges, s.Errors, s.Warnings, s.Info, s.Unknown)
	if s.Divergences > 0 {
		fmt.Fprintf(&b, "%d of the errors are known platform divergences: the platform itself answers so (the label on each says what it does and where that is written)\n", s.Divergences)
	}
	if s.Harness > 0 {
		fmt.Fprintf(&b, "%d harness errors: v4cert's own checks disagreed; the verdict cannot be trusted (please report them)\n", s.Harness)
	}
	if s.Mode == "record" {
		fmt.Fprintf(&b, "cassette: %d interactions recorded, %d left out (no complete answer)\n", s.Recorded, s.Dropped)
	}
	if s.Mode == "replay" {
		fmt.Fprintf(&b, "replay: %d answered from the cassette, %d misses\n", s.Replayed, s.Misses)
		if s.Recorded > 0 || s.Dropped > 0 {
			// --record-missing: the new episodes appended.
			fmt.Fprintf(&b, "cassette: %d new interactions appended, %d left out (no complete answer)\n", s.Recorded, s.Dropped)
		}
	}
	if s.Behind > 0 {
		fmt.Fprintf(&b, "back-pressure: %d exchanges found the checks and the cassette behind the traffic (up to %d waiting); answers were not held back\n", s.Behind, s.PeakQueue)
	}
	if s.Overflowed > 0 {
		fmt.Fprintf(&b, "back-pressure: %d exchanges were passed on unchecked and unrecorded (too many bytes waiting): the recording is not whole\n", s.Overflowed)
	}
	fmt.Fprintf(&b, "coverage: %d of %d endpoints\n", s.CoveredEPs, s.Endpoints)
	ids := make([]string, 0, len(s.Coverage))
	for id := range s.Coverage {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		var parts []string
		codes := make([]int, 0, len(s.Coverage[id]))
		for c := range s.Coverage[id] {
			codes = append(codes, c)
		}
		sort.Ints(codes)
		for _, c := range codes {
			parts = append(parts, fmt.Sprintf("%d×%d", c, s.Coverage[id][c]))
		}
		fmt.Fprintf(&b, "  %-40s %s\n", id, strings.Join(parts, " "))
	}
	return b.String()
}
