package vcr4test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
	"gopkg.in/dnaeon/go-vcr.v4/pkg/recorder"

	"github.com/v4cert/v4cert/proxy"
	"github.com/v4cert/v4cert/reference"
)

const rootToken = "glpat-vcr4-root-token-000000000"

// serveReference starts a fixed-clock reference with the demo world.
func serveReference(t *testing.T) *httptest.Server {
	t.Helper()
	inst, err := reference.New(reference.Config{RootToken: rootToken, Seed: "demo", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	srv := httptest.NewServer(inst.Server)
	t.Cleanup(srv.Close)
	return srv
}

type call struct {
	method, path, contentType, body string
}

// calls are the requests both tests send: a paginated list with a query, a
// single resource, a JSON write and a form write, and the list again (the
// same answer, which the proxy stores once: a YAML alias of the first).
var calls = []call{
	{"GET", "/api/v4/users?per_page=2&page=2", "", ""},
	{"GET", "/api/v4/groups/demo", "", ""},
	{"POST", "/api/v4/groups", "application/json", `{"name":"Taped","path":"taped"}`},
	{"POST", "/api/v4/topics", "application/x-www-form-urlencoded", "name=taped&title=Taped"},
	{"GET", "/api/v4/groups/taped", "", ""},
	{"GET", "/api/v4/users?per_page=2&page=2", "", ""},
}

var runnersToken = regexp.MustCompile(`"runners_token":"[^"]*"`)

type answer struct {
	status int
	body   string
	header http.Header
}

func send(t *testing.T, client *http.Client, base string, c call) answer {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, base+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.contentType != "" {
		req.Header.Set("Content-Type", c.contentType)
	}
	req.Header.Set("PRIVATE-TOKEN", rootToken)
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, string(b), res.Header}
}

// matchMethodURLBody is the matcher the README shows for go-vcr v4: the
// recorded headers hold [REDACTED] where the client sent its token, and
// those the client's transport added on the wire (User-Agent,
// Accept-Encoding), so go-vcr's default matcher, which compares every
// header, would never match.
func matchMethodURLBody(r *http.Request, i cassette.Request) bool {
	var b []byte
	if r.Body != nil {
		b, _ = io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	return r.Method == i.Method && r.URL.String() == i.URL && string(b) == i.Body
}

// TestFormat2ReplaysInGoVCR4 records real traffic with the proxy in format 2
// and replays it through go-vcr v4's recorder with no server running.
func TestFormat2ReplaysInGoVCR4(t *testing.T) {
	ref := serveReference(t)
	file := filepath.Join(t.TempDir(), "api.yaml")
	p, err := proxy.New(proxy.Options{Mode: proxy.ModeRecord, Upstream: ref.URL, Cassette: file, CassetteFormat: proxy.Format2})
	if err != nil {
		t.Fatal(err)
	}
	base, err := p.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var live []answer
	for _, c := range calls {
		live = append(live, send(t, http.DefaultClient, base, c))
	}
	s, _, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	if s.Recorded != len(calls) || s.Errors != 0 {
		t.Fatalf("recorded %d of %d, %d errors", s.Recorded, len(calls), s.Errors)
	}
	ref.Close()

	data, _ := os.ReadFile(file)
	if bytes.Contains(data, []byte(rootToken)) {
		t.Fatal("the token reached the cassette")
	}
	if !bytes.Contains(data, []byte("body: *s0\n")) {
		t.Errorf("the repeated answer is not stored once (an alias of the first):\n%s", data)
	}
	c, err := cassette.Load(strings.TrimSuffix(file, ".yaml"))
	if err != nil {
		t.Fatalf("go-vcr v4 cannot load the cassette: %v", err)
	}
	for i, in := range c.Interactions {
		if in.ID != i || in.Request.Proto != "HTTP/1.1" || in.Request.Host == "" || in.Response.ContentLength != int64(len(in.Response.Body)) {
			t.Errorf("interaction %d: id %d, proto %q, host %q, content_length %d for %d bytes",
				i, in.ID, in.Request.Proto, in.Request.Host, in.Response.ContentLength, len(in.Response.Body))
		}
	}
	// The form write's values are where go-vcr puts them, as ParseForm finds them.
	if got := c.Interactions[3].Request.Form.Get("title"); got != "Taped" {
		t.Errorf("form of the form write: %v", c.Interactions[3].Request.Form)
	}
	if got := c.Interactions[0].Request.Form.Get("per_page"); got != "2" {
		t.Errorf("form of the list: %v", c.Interactions[0].Request.Form)
	}

	// The cassette hides secrets in answers too (the groups' runners_token).
	for i := range live {
		live[i].body = runnersToken.ReplaceAllString(live[i].body, `"runners_token":"`+proxy.Redacted+`"`)
	}

	// What a user writes: go-vcr v4's recorder replaying, no server running.
	rec, err := recorder.New(strings.TrimSuffix(file, ".yaml"),
		recorder.WithMode(recorder.ModeReplayOnly),
		recorder.WithMatcher(matchMethodURLBody),
		recorder.WithSkipRequestLatency(true))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Stop()
	client := rec.GetDefaultClient()
	// Recorded URLs name the upstream, as the client would without the proxy.
	for i, c := range calls {
		got := send(t, client, ref.URL, c)
		if got.status != live[i].status || got.body != live[i].body {
			t.Errorf("%s %s: go-vcr v4 replayed %d %s, live was %d %s", c.method, c.path, got.status, got.body, live[i].status, live[i].body)
		}
		// The client saw links naming the proxy, which kept it on the proxy;
		// the cassette names the upstream there too.
		liveLink := strings.ReplaceAll(live[i].header.Get("Link"), base, ref.URL)
		if got.header.Get("X-Total") != live[i].header.Get("X-Total") || got.header.Get("Link") != liveLink {
			t.Errorf("%s %s: pagination headers differ: %v vs %v", c.method, c.path, got.header, live[i].header)
		}
	}
	// go-vcr's own semantics: an interaction replays once, unless replayable.
	if _, err := client.Get(ref.URL + calls[1].path); err == nil {
		t.Error("a second identical request replayed without replayable interactions")
	}
}

// TestGoVCR4CassetteReadByV4cert: a cassette go-vcr v4 saved itself is
// validated and replayed by v4cert, and the proxy appends to it in its format.
func TestGoVCR4CassetteReadByV4cert(t *testing.T) {
	ref := serveReference(t)
	name := filepath.Join(t.TempDir(), "own")
	rec, err := recorder.New(name, recorder.WithMode(recorder.ModeRecordOnly))
	if err != nil {
		t.Fatal(err)
	}
	client := rec.GetDefaultClient()
	var live []answer
	for _, c := range calls[:2] {
		live = append(live, send(t, client, ref.URL, c))
	}
	if err := rec.Stop(); err != nil {
		t.Fatal(err)
	}
	file := name + ".yaml"

	var findings []proxy.Violation
	s, err := proxy.ValidateCassette(file, nil, func(v proxy.Violation) { findings = append(findings, v) })
	if err != nil {
		t.Fatalf("v4cert validate cannot read go-vcr v4's cassette: %v", err)
	}
	if s.Exchanges != 2 || s.Errors != 0 {
		t.Fatalf("validate: %d exchanges, %d errors: %v", s.Exchanges, s.Errors, findings)
	}

	p, err := proxy.New(proxy.Options{Mode: proxy.ModeReplay, Cassette: file})
	if err != nil {
		t.Fatal(err)
	}
	base, _ := p.Start("127.0.0.1:0")
	for i, c := range calls[:2] {
		if got := send(t, http.DefaultClient, base, c); got.status != live[i].status || got.body != live[i].body {
			t.Errorf("%s %s: v4cert replayed %d %s", c.method, c.path, got.status, got.body)
		}
	}
	if s, _, err := p.Close(); err != nil || s.Misses != 0 {
		t.Fatalf("replay: %v, %d misses", err, s.Misses)
	}

	// Appending keeps format 2 and numbers on; asking for format 1 is refused.
	if _, err := proxy.New(proxy.Options{Mode: proxy.ModeRecord, Upstream: ref.URL, Cassette: file, Existing: proxy.Append, CassetteFormat: proxy.Format1}); err == nil {
		t.Error("appending format 1 to a format 2 cassette was accepted")
	}
	p, err = proxy.New(proxy.Options{Mode: proxy.ModeRecord, Upstream: ref.URL, Cassette: file, Existing: proxy.Append})
	if err != nil {
		t.Fatal(err)
	}
	base, _ = p.Start("127.0.0.1:0")
	send(t, http.DefaultClient, base, calls[4])
	if _, _, err := p.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Load(name)
	if err != nil {
		t.Fatalf("go-vcr v4 cannot load the appended cassette: %v", err)
	}
	if len(c.Interactions) != 3 || c.Interactions[2].ID != 2 || c.Interactions[2].Request.Method != "GET" {
		t.Fatalf("after append: %d interactions, last %+v", len(c.Interactions), c.Interactions[len(c.Interactions)-1].Request)
	}
}
