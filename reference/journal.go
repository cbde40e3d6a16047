package reference

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/v4cert/v4cert/reference/api"
	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/specs"
)

// The request journal (GET /-/requests): what the server received, for a
// client's test to ask the fake afterwards, as WireMock's /__admin/requests
// answers. It is a ring of the last JournalSize requests, newest last; the
// hooks under /-/ are not in it (they are operations of the fake). Secrets
// are kept out by the one secret policy (specs/secrets.go) when the journal
// is read, so recording costs one copy of the request's head and of at most
// journalBodyBytes of its body.

// DefaultJournalSize is how many requests the journal keeps when Config
// says nothing: enough for one test's traffic, a few megabytes at most.
const DefaultJournalSize = 1000

// journalBodyBytes bounds the request body the journal keeps per request.
const journalBodyBytes = 16 << 10

// JournalEntry is one request the server received and what it answered.
type JournalEntry struct {
	ID         uint64            `json:"id"`
	Time       time.Time         `json:"time"`
	Method     string            `json:"method"`
	Path       string            `json:"path"` // escaped, as it came
	Query      string            `json:"query,omitempty"`
	Headers    map[string]string `json:"headers,omitempty"`
	Body       string            `json:"body,omitempty"`
	Truncated  bool              `json:"body_truncated,omitempty"`
	Status     int               `json:"status"`
	DurationMS float64           `json:"duration_ms"`
	Caller     string            `json:"caller,omitempty"`
	// Endpoint is the rulebook endpoint the request matched.
	Endpoint string `json:"endpoint,omitempty"`
	// NearMiss is set when no endpoint has this method and path: the
	// closest endpoint of the rulebook.
	NearMiss *NearMiss `json:"near_miss,omitempty"`
	// Fault names the fault injected into this request (faults.go).
	Fault string `json:"fault,omitempty"`

	unrouted bool // no endpoint had this method and path (the catch-all 404)
}

// NearMiss is the endpoint of the rulebook closest to a request no endpoint
// matched, and how far it was: one per differing method, per literal
// segment to change, add or remove.
type NearMiss struct {
	Endpoint string `json:"endpoint"`
	Method   string `json:"method"`
	Path     string `json:"path"`
	Distance int    `json:"distance"`
}

type journal struct {
	mu   sync.Mutex
	ring []JournalEntry
	next int // where the next entry goes
	full bool
	seq  uint64
	// epoch counts resets. A request notes it on entering the gate, and its
	// entry is kept only if no reset began since: a request served before a
	// reset but recorded after it is not part of the new world's journal.
	epoch uint64
}

func newJournal(size int) *journal {
	if size == 0 {
		size = DefaultJournalSize
	}
	if size < 0 {
		return nil
	}
	return &journal{ring: make([]JournalEntry, size)}
}

func (j *journal) add(e JournalEntry, epoch uint64) {
	j.mu.Lock()
	if epoch != j.epoch {
		j.mu.Unlock()
		return
	}
	j.seq++
	e.ID = j.seq
	j.ring[j.next] = e
	j.next++
	if j.next == len(j.ring) {
		j.next, j.full = 0, true
	}
	j.mu.Unlock()
}

// entries returns the kept entries, oldest first.
func (j *journal) entries() []JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	var out []JournalEntry
	if j.full {
		out = append(out, j.ring[j.next:]...)
	}
	return append(out, j.ring[:j.next]...)
}

func (j *journal) clear() {
	j.mu.Lock()
	clear(j.ring)
	j.next, j.full = 0, false
	j.mu.Unlock()
}

// currentEpoch is the epoch a request entering now belongs to.
func (j *journal) currentEpoch() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.epoch
}

// restart empties the journal for a reset or a restored snapshot (called
// with the gate held alone, so no request is being served): what follows
// is recorded from a clean slate, as WireMock's reset clears its journal.
// Entry ids go on from where they were, so an id is never reused.
func (j *journal) restart() {
	j.mu.Lock()
	j.epoch++
	clear(j.ring)
	j.next, j.full = 0, false
	j.mu.Unlock()
}

// bodyTap keeps the first journalBodyBytes a handler reads of a body.
type bodyTap struct {
	io.ReadCloser
	buf       bytes.Buffer
	truncated bool
}

func (t *bodyTap) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if room := journalBodyBytes - t.buf.Len(); room > 0 {
		t.buf.Write(p[:min(n, room)])
		t.truncated = t.truncated || n > room
	} else if n > 0 {
		t.truncated = true
	}
	return n, err
}

// record makes the journal entry of a request served (secrets still in it;
// redact removes them when the journal is read).
func (h *Handler) record(r *http.Request, tap *bodyTap, status int, took time.Duration, info *api.RequestInfo, fault string, start time.Time, epoch uint64) {
	// Not on a dropped connection: its body is gone with it.
	if tap != nil && status != 0 && !tap.truncated && tap.buf.Len() < journalBodyBytes {
		// What the handler left unread, so a near-miss's body shows too.
		io.CopyN(&tap.buf, tap.ReadCloser, int64(journalBodyBytes-tap.buf.Len()))
	}
	e := JournalEntry{
		Time: start.UTC(), Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
		Status: status, DurationMS: float64(took.Microseconds()) / 1000, Caller: info.Caller, Fault: fault,
	}
	if len(r.Header) > 0 {
		e.Headers = make(map[string]string, len(r.Header))
		for k, v := range r.Header {
			e.Headers[k] = strings.Join(v, ", ")
		}
	}
	if tap != nil {
		e.Body, e.Truncated = tap.buf.String(), tap.truncated
	}
	e.unrouted = info.Unrouted
	h.inst.journal.add(e, epoch)
}

// redactEntry returns e as the journal shows it: secret headers, query
// parameters and body fields hidden by the one secret policy, and the
// administrator's and seeded accounts' tokens wherever they appear.
//
// The rulebook endpoint, or for a near-miss the closest one, is found here
// too, when the journal is read rather than on every request.
func redactEntry(e JournalEntry, red *reports.Redactor) JournalEntry {
	ep := specs.Default().MatchRoot(e.Method, e.Path)
	if ep == nil && e.Method == http.MethodHead {
		ep = specs.Default().MatchRoot(http.MethodGet, e.Path) // the mux serves GET routes for HEAD
	}
	if ep != nil {
		e.Endpoint = ep.ID
	} else if e.unrouted {
		e.NearMiss = closestEndpoint(e.Method, e.Path)
	}
	e.Path = red.Text(e.Path)
	if e.Query != "" {
		e.Query = red.Text(redactQuery(e.Query))
	}
	if e.Headers != nil {
		hs := make(map[string]string, len(e.Headers))
		for k, v := range e.Headers {
			hs[k] = red.Header(k, v)
		}
		e.Headers = hs
	}
	e.Body = red.Text(e.Body)
	return e
}

// closestEndpoint finds the rulebook endpoint nearest to a method and an
// escaped path from the server root: the fewest edits of whole segments (a
// placeholder takes any non-empty segment), one more when the method
// differs. Among as near ones, the literal segments most alike by their
// letters win (projetcs is nearest projects), then the rulebook's order.
func closestEndpoint(method, escapedPath string) *NearMiss {
	segs := splitSegments(escapedPath)
	var best *NearMiss
	bestCost := 0.0
	for _, e := range specs.Default().Endpoints {
		full := e.Prefix() + e.Path
		d, cost := segmentDistance(splitSegments(full), segs)
		if e.Method != method {
			d++
			cost++
		}
		if best == nil || cost < bestCost {
			best, bestCost = &NearMiss{Endpoint: e.ID, Method: e.Method, Path: full, Distance: d}, cost
		}
	}
	return best
}

func splitSegments(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// segmentDistance is the edit distance between a template's segments and a
// path's, segment by segment (edits), and the same with a changed segment
// costing the share of its letters that differ (cost).
func segmentDistance(tmpl, segs []string) (edits int, cost float64) {
	type cell struct {
		n int
		c float64
	}
	less := func(a, b cell) cell {
		if b.c < a.c {
			return b
		}
		return a
	}
	prev := make([]cell, len(segs)+1)
	cur := make([]cell, len(segs)+1)
	for j := range prev {
		prev[j] = cell{j, float64(j)}
	}
	for i := 1; i <= len(tmpl); i++ {
		cur[0] = cell{i, float64(i)}
		for j := 1; j <= len(segs); j++ {
			t, s := tmpl[i-1], segs[j-1]
			sub := prev[j-1]
			switch {
			case t == s, (strings.HasPrefix(t, ":") || strings.HasPrefix(t, "*")) && s != "":
			default:
				sub = cell{sub.n + 1, sub.c + float64(letterDistance(t, s))/float64(max(len(t), len(s)))}
			}
			cur[j] = less(less(sub, cell{prev[j].n + 1, prev[j].c + 1}), cell{cur[j-1].n + 1, cur[j-1].c + 1})
		}
		prev, cur = cur, prev
	}
	return prev[len(segs)].n, prev[len(segs)].c
}

// letterDistance is the edit distance between two words, byte by byte.
func letterDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// requests implements GET and DELETE /-/requests (administrator).
//
//	GET /-/requests?method=POST&path=/api/v4/projects&status=201&since=2026-01-01T00:00:00Z
//
// method is matched ignoring case, path is a prefix of the escaped path,
// status is a code (404) or a class (4xx), since an RFC 3339 time.
func (h *Handler) requests(w http.ResponseWriter, r *http.Request) {
	if !allows("GET, HEAD, DELETE", r.Method) {
		notAllowed(w, "GET, HEAD, DELETE")
		return
	}
	if _, err := h.inst.Server.Administrator(r); err != nil {
		api.WriteError(w, err)
		return
	}
	j := h.inst.journal
	if r.Method == http.MethodDelete {
		if j != nil {
			j.clear()
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	q := r.URL.Query()
	match, err := journalFilter(q)
	if err != nil {
		api.WriteError(w, err)
		return
	}
	out := []JournalEntry{}
	if j != nil {
		red := reports.NewRedactor(h.inst.tokens()...)
		for _, e := range j.entries() {
			if match(e) {
				out = append(out, redactEntry(e, red))
			}
		}
	}
	api.WriteJSON(w, http.StatusOK, out)
}

func journalFilter(q url.Values) (func(JournalEntry) bool, error) {
	method, prefix := strings.ToUpper(q.Get("method")), q.Get("path")
	var status, class int
	if s := q.Get("status"); s != "" {
		if len(s) == 3 && (s[1:] == "xx" || s[1:] == "XX") && s[0] >= '1' && s[0] <= '5' {
			class = int(s[0] - '0')
		} else if n, err := strconv.Atoi(s); err == nil && n >= 100 && n <= 599 {
			status = n
		} else {
			return nil, api.InvalidParam("status")
		}
	}
	var since time.Time
	if s := q.Get("since"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, api.InvalidParam("since")
		}
		since = t
	}
	return func(e JournalEntry) bool {
		switch {
		case method != "" && e.Method != method,
			prefix != "" && !strings.HasPrefix(e.Path, prefix),
			status != 0 && e.Status != status,
			class != 0 && e.Status/100 != class,
			!since.IsZero() && e.Time.Before(since):
			return false
		}
		return true
	}, nil
}

// tokens are the secrets the instance knows it handed out, which the
// journal hides wherever they appear (a token pasted into a body).
func (i *Instance) tokens() []string {
	out := []string{i.Root.Token}
	for _, a := range i.Accounts {
		out = append(out, a.Token)
	}
	sort.Strings(out)
	return out
}

// allows reports whether method is one of allow ("GET, HEAD, DELETE").
func allows(allow, method string) bool {
	for _, m := range strings.Split(allow, ", ") {
		if m == method {
			return true
		}
	}
	return false
}

func notAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	api.WriteJSON(w, http.StatusMethodNotAllowed, map[string]string{"message": "405 Method Not Allowed"})
}
