package suites

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/tidwall/gjson"

	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/schemas"
	"github.com/v4cert/v4cert/specs"
)

// Client calls the target API as one identity. Every answer it receives is
// checked against the schema the rulebook names for the endpoint it matched,
// so no spec can forget to validate a body.
type Client struct {
	Base  string // target base URL, without /api/v4
	Token string // PRIVATE-TOKEN; empty calls anonymously
	HTTP  *http.Client
}

// Response is one answer, with the request that produced it.
type Response struct {
	Method   string
	URL      string
	Status   int
	Header   http.Header
	Body     []byte
	Endpoint *specs.Endpoint
	ReqBody  string
	// ReqHeader is what was sent, for the report of a failed spec (redacted there).
	ReqHeader http.Header
	named     bool // a failure message named this exchange (see exchangeLog.name)
}

// JSON returns the body as a gjson result for reading fields.
func (r *Response) JSON() gjson.Result { return gjson.ParseBytes(r.Body) }

// Get reads a field of the JSON body by gjson path.
func (r *Response) Get(path string) gjson.Result { return gjson.GetBytes(r.Body, path) }

// IDs returns the id of every element of an array body, in order.
func (r *Response) IDs() []int {
	var out []int
	for _, e := range r.JSON().Array() {
		out = append(out, int(e.Get("id").Int()))
	}
	return out
}

// Strings returns field of every element of an array body.
func (r *Response) Strings(field string) []string {
	var out []string
	for _, e := range r.JSON().Array() {
		out = append(out, e.Get(field).String())
	}
	return out
}

// String prints the exchange for a failure message: the request line, the
// status, the answer's headers in name order (pagination and clock checks
// fail on them) and the start of the body.
func (r *Response) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n→ %d\n", r.Method, r.URL, r.Status)
	names := make([]string, 0, len(r.Header))
	for name := range r.Header {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		for _, v := range r.Header[name] {
			fmt.Fprintf(&b, "%s: %s\n", name, v)
		}
	}
	body := string(r.Body)
	if len(body) > 2000 {
		body = body[:2000] + "…"
	}
	b.WriteString("\n" + body)
	return b.String()
}

// Opt shapes one request.
type Opt func(*request)

type request struct {
	query       []string
	body        io.Reader
	contentType string
	bodyText    string
	header      http.Header
	noCheck     bool
	allow429    bool
}

// Q adds a query parameter (sent escaped).
func Q(name string, value any) Opt {
	return func(r *request) {
		r.query = append(r.query, url.QueryEscape(name)+"="+url.QueryEscape(fmt.Sprint(value)))
	}
}

// RawQ adds a query string fragment exactly as given.
func RawQ(raw string) Opt { return func(r *request) { r.query = append(r.query, raw) } }

// Body sends v as a JSON body.
func Body(v any) Opt {
	return func(r *request) {
		b, err := json.Marshal(v)
		Expect(err).NotTo(HaveOccurred())
		r.body, r.contentType, r.bodyText = bytes.NewReader(b), "application/json", string(b)
	}
}

// RawBody sends b exactly as given, with content type ct: malformed bodies
// (trailing data, two values, a null) that Body could not produce.
func RawBody(ct string, b []byte) Opt {
	return func(r *request) { r.body, r.contentType, r.bodyText = bytes.NewReader(b), ct, string(b) }
}

// Form sends a form-encoded body; values keep the order given (name, value, name, value…).
func Form(pairs ...string) Opt {
	return func(r *request) {
		var parts []string
		for i := 0; i+1 < len(pairs); i += 2 {
			parts = append(parts, url.QueryEscape(pairs[i])+"="+url.QueryEscape(pairs[i+1]))
		}
		s := strings.Join(parts, "&")
		r.body, r.contentType, r.bodyText = strings.NewReader(s), "application/x-www-form-urlencoded", s
	}
}

// Multipart sends fields and one file as multipart/form-data.
func Multipart(fields map[string]string, fileField, fileName string, content []byte) Opt {
	return func(r *request) {
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		for k, v := range fields {
			Expect(w.WriteField(k, v)).To(Succeed())
		}
		if fileField != "" {
			fw, err := w.CreateFormFile(fileField, fileName)
			Expect(err).NotTo(HaveOccurred())
			fw.Write(content)
		}
		Expect(w.Close()).To(Succeed())
		r.body, r.contentType, r.bodyText = &buf, w.FormDataContentType(), "(multipart)"
	}
}

// Header sets a request header.
func Header(name, value string) Opt { return func(r *request) { r.header.Set(name, value) } }

// Unchecked skips schema validation, for answers the spec leaves unshaped.
func Unchecked() Opt { return func(r *request) { r.noCheck = true } }

// Allow429 hands the target's 429 answer to the spec as it came: not sent
// again (RateLimitRetries), not an error of the harness. For the specs of
// the rate limit itself (errors.ratelimit.1).
func Allow429() Opt { return func(r *request) { r.allow429 = true } }

// RateLimitRetries is how many times a request the target answered 429
// Too Many Requests is sent again, each after the wait its Retry-After asks
// (1 s when it asks none, at most maxRetryWait): certify --retry-429. A 429
// that is left, to a request whose spec did not ask for one (Allow429),
// judges no rule: the spec is an error of the harness (kind rate_limited),
// not a failure of the target.
var RateLimitRetries atomic.Int32

// maxRetryWait bounds one wait for a rate limit to lift. The platform's
// throttles answer Retry-After as the seconds left in their window
// (period - now mod period: lib/gitlab/rack_attack.rb,
// throttled_response_headers), and their windows are 60 s by default.
const maxRetryWait = time.Minute

// retryAfter is the wait a 429's Retry-After asks for (seconds or an HTTP
// date), 1 s when it asks none, at most maxRetryWait.
func retryAfter(h http.Header, now time.Time) time.Duration {
	wait := time.Second
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			wait = time.Duration(n) * time.Second
		} else if t, err := http.ParseTime(v); err == nil {
			wait = t.Sub(now)
		}
	}
	return min(max(wait, 0), maxRetryWait)
}

// As returns a client for another token (empty: anonymous).
func (c *Client) As(token string) *Client {
	cp := *c
	cp.Token = token
	return &cp
}

// Anonymous returns a client without credentials.
func (c *Client) Anonymous() *Client { return c.As("") }

func (c *Client) Get(ctx context.Context, path string, opts ...Opt) *Response {
	return c.Do(ctx, http.MethodGet, path, opts...)
}
func (c *Client) Head(ctx context.Context, path string, opts ...Opt) *Response {
	return c.Do(ctx, http.MethodHead, path, opts...)
}
func (c *Client) Post(ctx context.Context, path string, opts ...Opt) *Response {
	return c.Do(ctx, http.MethodPost, path, opts...)
}
func (c *Client) Put(ctx context.Context, path string, opts ...Opt) *Response {
	return c.Do(ctx, http.MethodPut, path, opts...)
}
func (c *Client) Patch(ctx context.Context, path string, opts ...Opt) *Response {
	return c.Do(ctx, http.MethodPatch, path, opts...)
}
func (c *Client) Delete(ctx context.Context, path string, opts ...Opt) *Response {
	return c.Do(ctx, http.MethodDelete, path, opts...)
}

// Do sends one request. path is under /api/v4 and already escaped as it must
// travel (use PathID for `:id` values); a path starting with "!" is sent
// relative to the server root instead.
func (c *Client) Do(ctx context.Context, method, path string, opts ...Opt) *Response {
	GinkgoHelper()
	req := &request{header: http.Header{}}
	for _, o := range opts {
		o(req)
	}
	full := c.Base + "/api/v4" + path
	apiPath := path
	if strings.HasPrefix(path, "!") {
		full, apiPath = c.Base+path[1:], ""
	}
	if len(req.query) > 0 {
		sep := "?"
		if strings.Contains(full, "?") {
			sep = "&"
		}
		full += sep + strings.Join(req.query, "&")
	}
	hr, err := http.NewRequestWithContext(ctx, method, full, req.body)
	Expect(err).NotTo(HaveOccurred(), "building %s %s", method, full)
	hr.Header = req.header
	if req.contentType != "" {
		hr.Header.Set("Content-Type", req.contentType)
	}
	if c.Token != "" && hr.Header.Get("PRIVATE-TOKEN") == "" {
		hr.Header.Set("PRIVATE-TOKEN", c.Token)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	start := time.Now()
	res, body := send(ctx, hc, hr, req.allow429, method+" "+full)
	resp := &Response{Method: method, URL: full, Status: res.StatusCode, Header: res.Header, Body: body, ReqBody: req.bodyText}
	resp.ReqHeader = hr.Header
	if apiPath != "" {
		resp.Endpoint = specs.Default().MatchRequest(method, "/api/v4"+apiPath)
	} else if p := strings.TrimPrefix(path, "!"); !strings.HasPrefix(p, "/api/") {
		// The token issuer and the registry host live outside /api/v4.
		resp.Endpoint = specs.Default().MatchRequest(method, p)
	}
	exchanges.add(resp, time.Since(start))
	endpointsSeen.add(resp)
	if !req.noCheck {
		Expect(resp).To(MatchEndpointSchema())
	}
	Expect(checkClock(resp)).To(Succeed(), "the clock check (suites/clock.go), in:\n%s", resp)
	return resp
}

// send sends hr and reads the answer, for every request of the suites: a
// transport error is the harness's (expectReached), and a 429 is sent again
// per RateLimitRetries, then, unless allow429, an error of the harness
// too. what names the request in failure messages.
func send(ctx context.Context, hc *http.Client, hr *http.Request, allow429 bool, what string) (*http.Response, []byte) {
	GinkgoHelper()
	for attempt := 0; ; attempt++ {
		res, err := hc.Do(hr)
		expectReached(err).NotTo(HaveOccurred(), "%s", what)
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		expectReached(err).NotTo(HaveOccurred(), "reading %s", what)
		retries := int(RateLimitRetries.Load())
		if res.StatusCode != http.StatusTooManyRequests || allow429 {
			return res, body
		}
		if attempt >= retries || (hr.Body != nil && hr.GetBody == nil) {
			sent := "not sent again"
			if attempt > 0 {
				sent = fmt.Sprintf("sent %d times", attempt+1)
			}
			harness(reports.KindRateLimited, "rate limited: 429 Too Many Requests ("+sent+")").
				Expect(res.StatusCode).NotTo(Equal(http.StatusTooManyRequests),
				"%s answered 429 Too Many Requests (%s): the target's rate limit kept the harness from judging; give certify --retry-429 N (and --rate-limit, its requests per second per client) to wait the limit out",
				what, sent)
		}
		select {
		case <-ctx.Done():
		case <-time.After(retryAfter(res.Header, time.Now())):
		}
		again := hr.Clone(ctx)
		if hr.GetBody != nil {
			b, err := hr.GetBody()
			Expect(err).NotTo(HaveOccurred(), "rebuilding the body of %s to send it again after a 429", what)
			again.Body = b
		}
		hr = again
	}
}

// PathID escapes a full path for use as `:id` (group/sub becomes group%2Fsub).
func PathID(fullPath string) string { return url.PathEscape(fullPath) }

// exchangeLog keeps the current spec's exchanges for the report of a
// failure: the last few, and any older one a failure message named.
type exchangeLog struct {
	mu    sync.Mutex
	last  []*Response
	named []*Response // named by a failure message, in the order they were sent
}

var exchanges = &exchangeLog{}

func (l *exchangeLog) add(r *Response, _ time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.last = append(l.last, r)
	if len(l.last) > 6 {
		l.last = l.last[len(l.last)-6:]
	}
}

// name marks r as the exchange a failing assertion is about.
func (l *exchangeLog) name(r *Response) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !r.named {
		r.named = true
		l.named = append(l.named, r)
	}
}

// drain returns the named exchanges no longer among the last few, then the
// last few, and starts afresh.
func (l *exchangeLog) drain() []*Response {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*Response
	for _, r := range l.named {
		if !slices.Contains(l.last, r) {
			out = append(out, r)
		}
	}
	out = append(out, l.last...)
	l.last, l.named = nil, nil
	return out
}

// validateBody checks a response against what the rulebook's judge
// (specs.ExpectBody, which the proxy asks too) expects of its body.
func validateBody(r *Response) error {
	u, err := url.Parse(r.URL)
	if err != nil {
		return err
	}
	rule := specs.ExpectBodyFor(r.Endpoint, r.Method, u.EscapedPath(), u.RawQuery, r.Status, specs.Anonymous(r.ReqHeader, u.RawQuery))
	empty := len(bytes.TrimSpace(r.Body)) == 0
	switch {
	case rule.MustBeEmpty:
		if !empty {
			return fmt.Errorf("status %d carries a body of %d bytes, want none", r.Status, len(r.Body))
		}
		return nil
	case rule.Schema == "" || empty && rule.MayBeEmpty:
		return nil
	case rule.MayBePlainText && specs.IsPlainText(r.Header.Get("Content-Type")):
		return nil
	}
	if ct := r.Header.Get("Content-Type"); !specs.IsJSON(ct) {
		return fmt.Errorf("answer has Content-Type %q, want application/json", ct)
	}
	if rule.Array {
		return schemas.ValidateArray(rule.Schema, r.Body)
	}
	return schemas.Validate(rule.Schema, r.Body)
}
