package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dnaeon/go-vcr/v2/cassette"
)

// MissStatus is the status of a request the cassette has no answer for. The
// API never answers it (Errors lists every status it uses), and the header
// ReplayHeader says "miss", so a client can always tell a replay miss apart.
const (
	MissStatus   = 599
	ReplayHeader = "X-V4cert-Replay"
)

// replayer answers requests from a cassette: a request matches on method,
// escaped path, query (parameters in any order) and body (JSON compared as
// JSON), with secrets hidden on both sides so credentials never decide a
// match. Identical requests get their recorded answers in recorded order;
// with repeat, the last of them again once they are used up.
type replayer struct {
	repeat  bool
	mu      sync.Mutex
	entries []*replayEntry
	byKey   map[string][]*replayEntry
	used    map[string]int
}

type replayEntry struct {
	index   int
	in      *cassette.Interaction
	host    string   // the recorded request's host
	origins []string // and its scheme://host, which its answer's links name
	key     string
	method  string
	path    string
	query   []string // canonical pairs
	body    string   // canonical
}

func newReplayer(c *cassette.Cassette, repeat bool) *replayer {
	r := &replayer{repeat: repeat, byKey: map[string][]*replayEntry{}, used: map[string]int{}}
	for i, in := range c.Interactions {
		u, err := url.Parse(in.Request.URL)
		if err != nil {
			continue
		}
		e := &replayEntry{index: i, in: in, method: in.Request.Method, path: u.EscapedPath(), host: u.Host, origins: originForms(u.Scheme, u.Host)}
		e.query = canonicalQuery(redactQuery(u.RawQuery, nil))
		ct := ""
		if in.Request.Headers != nil {
			ct = in.Request.Headers.Get("Content-Type")
		}
		e.body = canonicalBody(redactBody([]byte(in.Request.Body), ct, nil), ct)
		e.key = matchKey(e.method, e.path, e.query, e.body)
		r.entries = append(r.entries, e)
		r.byKey[e.key] = append(r.byKey[e.key], e)
	}
	return r
}

func matchKey(method, path string, query []string, body string) string {
	return method + " " + path + "?" + strings.Join(query, "&") + "\x00" + body
}

// canonicalQuery decodes the pairs and orders them by name, keeping the
// order of repeated names (arrays).
func canonicalQuery(raw string) []string {
	if raw == "" {
		return nil
	}
	type pair struct{ k, v string }
	var pairs []pair
	for _, p := range strings.Split(raw, "&") {
		if p == "" {
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		if dk, err := url.QueryUnescape(k); err == nil {
			k = dk
		}
		if dv, err := url.QueryUnescape(v); err == nil {
			v = dv
		}
		pairs = append(pairs, pair{k, v})
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].k < pairs[j].k })
	out := make([]string, len(pairs))
	for i, p := range pairs {
		out[i] = url.QueryEscape(p.k) + "=" + url.QueryEscape(p.v)
	}
	return out
}

// canonicalBody makes equal JSON equal as text (keys sorted, spacing gone)
// and form bodies independent of parameter order.
func canonicalBody(body []byte, contentType string) string {
	if len(bytes.TrimSpace(body)) == 0 {
		return ""
	}
	switch mediaType(contentType) {
	case "application/x-www-form-urlencoded":
		return strings.Join(canonicalQuery(string(body)), "&")
	case "multipart/form-data":
		if c, ok := canonicalMultipart(body, contentType); ok {
			return c
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err == nil {
		if _, err := dec.Token(); err == io.EOF {
			if out, err := json.Marshal(v); err == nil {
				return string(out)
			}
		}
	}
	return string(body)
}

// requestKey computes the match key of a live request the way the recorded
// ones were: secrets hidden first, with the values found in the request's
// own credentials hidden wherever else they appear.
func requestKey(method, escapedPath, rawQuery string, header http.Header, body []byte) (key string, query []string, cbody string) {
	var secrets []string
	redactHeader(header, &secrets)
	q := redactQuery(rawQuery, &secrets)
	ct := header.Get("Content-Type")
	b := replaceAll(redactBody(body, ct, &secrets), secrets)
	query = canonicalQuery(replaceAllString(q, secrets))
	cbody = canonicalBody(b, ct)
	return matchKey(method, escapedPath, query, cbody), query, cbody
}

// answer finds the next recorded answer for a request, or explains the miss.
func (r *replayer) answer(req *http.Request, body []byte) (*replayEntry, *missReport) {
	key, query, cbody := requestKey(req.Method, req.URL.EscapedPath(), req.URL.RawQuery, req.Header, body)
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.byKey[key]
	if n := r.used[key]; n < len(list) {
		r.used[key] = n + 1
		return list[n], nil
	}
	if r.repeat && len(list) > 0 {
		return list[len(list)-1], nil
	}
	want := &replayEntry{method: req.Method, path: req.URL.EscapedPath(), query: query, body: cbody}
	miss := &missReport{Replay: "miss", Request: describeEntry(want)}
	if len(list) > 0 {
		last := describeEntry(list[len(list)-1])
		miss.Closest = &last
		miss.Differences = []string{fmt.Sprintf("the cassette holds %d answer(s) to this request and all were replayed already (--replay-repeat answers the last one again)", len(list))}
		return nil, miss
	}
	var best *replayEntry
	bestScore := -1
	for _, e := range r.entries {
		if s := distance(want, e); bestScore < 0 || s < bestScore {
			best, bestScore = e, s
		}
	}
	if best == nil {
		miss.Differences = []string{"the cassette holds no interactions"}
		return nil, miss
	}
	closest := describeEntry(best)
	miss.Closest = &closest
	miss.Differences = differences(best, want)
	return nil, miss
}

// missReport is the body of a replay miss: the request as matched (secrets
// hidden), the closest recorded request and how the two differ.
type missReport struct {
	Replay      string     `json:"v4cert_replay"`
	Message     string     `json:"message"`
	Request     entryView  `json:"request"`
	Closest     *entryView `json:"closest,omitempty"`
	Differences []string   `json:"differences"`
}

type entryView struct {
	Index  *int   `json:"index,omitempty"` // position in the cassette
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	Body   string `json:"body,omitempty"`
}

func describeEntry(e *replayEntry) entryView {
	v := entryView{Method: e.method, Path: e.path, Query: strings.Join(e.query, "&"), Body: clip(e.body, 500)}
	if e.in != nil {
		i := e.index
		v.Index = &i
	}
	return v
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func distance(a, b *replayEntry) int {
	d := 0
	if a.method != b.method {
		d += 8
	}
	if a.path != b.path {
		d += 4
		as, bs := strings.Split(a.path, "/"), strings.Split(b.path, "/")
		if len(as) != len(bs) {
			d += 4
		}
		for i := 0; i < min(len(as), len(bs)); i++ {
			if as[i] != bs[i] {
				d++
			}
		}
	}
	d += len(symmetricDiff(a.query, b.query))
	if a.body != b.body {
		d += 2
	}
	return d
}

func symmetricDiff(a, b []string) []string {
	count := map[string]int{}
	for _, x := range a {
		count[x]++
	}
	for _, x := range b {
		count[x]--
	}
	var out []string
	for k, n := range count {
		if n != 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func differences(rec, req *replayEntry) []string {
	var out []string
	if rec.method != req.method {
		out = append(out, fmt.Sprintf("method: recorded %s, requested %s", rec.method, req.method))
	}
	if rec.path != req.path {
		out = append(out, fmt.Sprintf("path: recorded %s, requested %s", rec.path, req.path))
	}
	recQ, reqQ := map[string]bool{}, map[string]bool{}
	for _, p := range rec.query {
		recQ[p] = true
	}
	for _, p := range req.query {
		reqQ[p] = true
	}
	for _, p := range rec.query {
		if !reqQ[p] {
			out = append(out, "query: recorded "+p+", not in the request")
		}
	}
	for _, p := range req.query {
		if !recQ[p] {
			out = append(out, "query: requested "+p+", not recorded")
		}
	}
	if rec.body != req.body {
		out = append(out, fmt.Sprintf("body: recorded %s, requested %s", strconv.Quote(clip(rec.body, 200)), strconv.Quote(clip(req.body, 200))))
	}
	if len(out) == 0 {
		out = append(out, "no difference after hiding secrets")
	}
	return out
}

// response turns a recorded answer into a live one. Content-Length follows
// the body as recorded (redaction may have changed its length), except for
// HEAD, whose recorded length is that of the GET body.
func (e *replayEntry) response(req *http.Request) *http.Response {
	h := e.in.Response.Headers.Clone()
	if h == nil {
		h = http.Header{}
	}
	body := e.in.Response.Body
	if req.Method == http.MethodHead {
		body = ""
	} else {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	h.Del("Transfer-Encoding")
	status := e.in.Response.Status
	if status == "" {
		status = statusText(e.in.Response.Code)
	}
	return &http.Response{
		Status: status, StatusCode: e.in.Response.Code, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(strings.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}
}

// line is the miss as one line for the proxy's log: the request and the
// closest recorded one with how they differ.
func (m *missReport) line(req *http.Request) string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay miss: %s %s", req.Method, RedactURL(req.URL.RequestURI()))
	if m.Closest != nil {
		fmt.Fprintf(&b, "; closest recorded")
		if m.Closest.Index != nil {
			fmt.Fprintf(&b, " #%d", *m.Closest.Index)
		}
		fmt.Fprintf(&b, ": %s %s", m.Closest.Method, m.Closest.Path)
		if m.Closest.Query != "" {
			b.WriteString("?" + m.Closest.Query)
		}
	}
	b.WriteString("; " + strings.Join(m.Differences, "; "))
	return b.String()
}

func (m *missReport) response(req *http.Request) *http.Response {
	m.Message = "v4cert replay: no recorded answer for " + req.Method + " " + RedactURL(req.URL.RequestURI())
	body, _ := json.MarshalIndent(m, "", "  ")
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set(ReplayHeader, "miss")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	return &http.Response{
		Status: strconv.Itoa(MissStatus) + " Replay Miss", StatusCode: MissStatus, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: req,
	}
}

// canonicalMultipart describes a multipart body without its boundary, which
// writers draw at random, and with its parts in name order.
func canonicalMultipart(body []byte, contentType string) (string, bool) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return "", false
	}
	r := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	var parts []string
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", false
		}
		content, err := io.ReadAll(p)
		if err != nil {
			return "", false
		}
		parts = append(parts, fmt.Sprintf("name=%q filename=%q type=%q\n%s", p.FormName(), p.FileName(), p.Header.Get("Content-Type"), content))
	}
	sort.Strings(parts)
	return "multipart\n" + strings.Join(parts, "\n--\n"), true
}
