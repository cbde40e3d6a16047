package reference_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference"
)

// convServer is a demo world served over loopback with its administrator
// and a user who is not one.
type convServer struct {
	t     *testing.T
	inst  *reference.Instance
	srv   *httptest.Server
	user  string // a non-administrator's token
	admin string
}

func newConvServer(t *testing.T, cfg reference.Config) *convServer {
	t.Helper()
	if cfg.RootToken == "" {
		cfg.RootToken = persistRoot
	}
	if cfg.Seed == "" {
		cfg.Seed = "demo"
	}
	inst, err := reference.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(inst.Handler())
	t.Cleanup(func() {
		srv.Close()
		if err := inst.Close(); err != nil {
			t.Error(err)
		}
	})
	c := &convServer{t: t, inst: inst, srv: srv, admin: cfg.RootToken}
	for _, a := range inst.Accounts {
		if a.Role != "admin" && a.Username != "root" {
			c.user = a.Token
			break
		}
	}
	if c.user == "" {
		t.Fatal("the demo world has no user but root")
	}
	return c
}

// do sends method path (from the server root) with token (none when "")
// and body, and returns the status and body.
func (c *convServer) do(method, path, token, body string, header ...string) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, c.srv.URL+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("PRIVATE-TOKEN", token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

func (c *convServer) expect(want int, method, path, token, body string) []byte {
	c.t.Helper()
	status, data := c.do(method, path, token, body)
	if status != want {
		c.t.Fatalf("%s %s: %d %s, want %d", method, path, status, data, want)
	}
	return data
}

// Every hook answers the administrator alone: 401 without credentials, 403
// for anyone else, as POST /-/reset does.
func (c *convServer) adminOnly(method, path string) {
	c.t.Helper()
	if status, body := c.do(method, path, "", ""); status != http.StatusUnauthorized || !strings.Contains(string(body), "401 Unauthorized") {
		c.t.Errorf("%s %s without a token: %d %s, want 401", method, path, status, body)
	}
	if status, body := c.do(method, path, c.user, ""); status != http.StatusForbidden || !strings.Contains(string(body), "403 Forbidden") {
		c.t.Errorf("%s %s as a user: %d %s, want 403", method, path, status, body)
	}
}

func journalOf(t *testing.T, c *convServer, query string) []reference.JournalEntry {
	t.Helper()
	var out []reference.JournalEntry
	data := c.expect(http.StatusOK, "GET", "/-/requests"+query, c.admin, "")
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("GET /-/requests%s: %v: %s", query, err, data)
	}
	return out
}

func TestRequestJournal(t *testing.T) {
	c := newConvServer(t, reference.Config{})
	c.adminOnly("GET", "/-/requests")
	c.adminOnly("DELETE", "/-/requests")
	for _, hook := range []string{"/-/requests", "/-/faults", "/-/snapshots", "/-/snapshots/x/restore"} {
		if status, _ := c.do("PUT", hook, c.admin, ""); status != http.StatusMethodNotAllowed {
			t.Errorf("PUT %s: %d, want 405", hook, status)
		}
	}
	c.expect(http.StatusNoContent, "DELETE", "/-/requests", c.admin, "")
	if got := journalOf(t, c, ""); len(got) != 0 {
		t.Fatalf("journal after DELETE: %d entries, want 0", len(got))
	}
	before := time.Now().UTC().Add(-time.Millisecond)
	c.expect(http.StatusOK, "GET", "/api/v4/projects/demo%2Fwebsite?private_token="+persistRoot, "", "")
	c.expect(http.StatusCreated, "POST", "/api/v4/projects", c.admin, `{"name":"journalled","import_url":"https://alice:s3cret-pass@example.com/x.git","password":"hunter22hunter"}`)
	c.expect(http.StatusNotFound, "GET", "/api/v4/projetcs/demo%2Fwebsite", c.admin, "")
	c.expect(http.StatusNotFound, "GET", "/api/v4/projects/999999", c.admin, "")

	all := journalOf(t, c, "")
	// The journal's own reads are hooks, not in it: the four requests alone.
	if len(all) != 4 {
		t.Fatalf("journal holds %d entries, want 4: %+v", len(all), all)
	}
	raw, _ := json.Marshal(all)
	for _, secret := range []string{persistRoot, "s3cret-pass", "hunter22hunter"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the journal shows the secret %q: %s", secret, raw)
		}
	}
	get, post, miss, notFound := all[0], all[1], all[2], all[3]
	if get.Method != "GET" || get.Path != "/api/v4/projects/demo%2Fwebsite" || get.Status != 200 || get.Endpoint == "" ||
		!strings.Contains(get.Query, "private_token=%5BREDACTED%5D") || get.Caller != "root" || get.Time.Before(before) {
		t.Errorf("GET entry: %+v", get)
	}
	if post.Status != 201 || post.Headers["Private-Token"] != "[REDACTED]" || !strings.Contains(post.Body, `"name":"journalled"`) ||
		!strings.Contains(post.Body, `"password":"[REDACTED]"`) {
		t.Errorf("POST entry: %+v", post)
	}
	if miss.NearMiss == nil || miss.Endpoint != "" || miss.NearMiss.Path != "/api/v4/projects/:id" || miss.NearMiss.Method != "GET" || miss.NearMiss.Distance != 1 {
		t.Errorf("near-miss entry: %+v near %+v", miss, miss.NearMiss)
	}
	// A 404 from a route that exists is no near-miss.
	if notFound.NearMiss != nil || notFound.Endpoint == "" || notFound.Status != 404 {
		t.Errorf("404 of a known route: %+v", notFound)
	}

	for query, want := range map[string][]uint64{
		"?method=post":                        {post.ID},
		"?path=/api/v4/projects/":             {get.ID, notFound.ID},
		"?status=404":                         {miss.ID, notFound.ID},
		"?status=2xx":                         {get.ID, post.ID},
		"?method=GET&status=4xx&path=/api/v4": {miss.ID, notFound.ID},
		"?since=" + url.QueryEscape(post.Time.Format(time.RFC3339Nano)): {post.ID, miss.ID, notFound.ID},
	} {
		var ids []uint64
		for _, e := range journalOf(t, c, query) {
			ids = append(ids, e.ID)
		}
		if len(ids) != len(want) || !equalIDs(ids, want) {
			t.Errorf("GET /-/requests%s: %v, want %v", query, ids, want)
		}
	}
	for _, bad := range []string{"?status=abc", "?status=99x", "?since=yesterday"} {
		if status, body := c.do("GET", "/-/requests"+bad, c.admin, ""); status != 400 || !strings.Contains(string(body), "is invalid") {
			t.Errorf("GET /-/requests%s: %d %s, want 400", bad, status, body)
		}
	}
	c.expect(http.StatusNoContent, "DELETE", "/-/requests", c.admin, "")
	if got := journalOf(t, c, ""); len(got) != 0 {
		t.Errorf("journal after DELETE: %d entries", len(got))
	}
}

// The journal is a ring: the newest JournalSize requests stay.
func TestRequestJournalBounded(t *testing.T) {
	c := newConvServer(t, reference.Config{JournalSize: 3})
	for range 5 {
		c.expect(http.StatusOK, "GET", "/api/v4/version", c.admin, "")
	}
	c.expect(http.StatusOK, "GET", "/api/v4/user", c.admin, "")
	got := journalOf(t, c, "")
	if len(got) != 3 || got[0].ID != 4 || got[2].ID != 6 || got[2].Path != "/api/v4/user" {
		t.Fatalf("journal of 3 after 6 requests: %+v", got)
	}
	off := newConvServer(t, reference.Config{JournalSize: -1})
	off.expect(http.StatusOK, "GET", "/api/v4/version", off.admin, "")
	if got := journalOf(t, off, ""); len(got) != 0 {
		t.Fatalf("journal turned off holds %d entries", len(got))
	}
}

func equalIDs(a, b []uint64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func faultsOf(t *testing.T, c *convServer) []reference.Fault {
	t.Helper()
	var out []reference.Fault
	if err := json.Unmarshal(c.expect(http.StatusOK, "GET", "/-/faults", c.admin, ""), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFaultsOnDemand(t *testing.T) {
	c := newConvServer(t, reference.Config{})
	c.adminOnly("GET", "/-/faults")
	c.adminOnly("POST", "/-/faults")
	c.adminOnly("DELETE", "/-/faults")
	if got := faultsOf(t, c); len(got) != 0 {
		t.Fatalf("faults by default: %+v", got)
	}
	// Refused declarations add nothing, and say which field is wrong.
	for body, field := range map[string]string{
		`{"path":"/api/v4/version"}`:                                  "status",
		`{"path":"/api/v4/version","status":200}`:                     "status",
		`{"path":"api/v4","status":500}`:                              "path",
		`{"endpoint":"no.such","status":500}`:                         "endpoint",
		`{"path":"/api/v4","latency":"soon"}`:                         "latency",
		`{"path":"/api/v4","status":500,"nth":2,"probability":0.5}`:   "probability",
		`[{"path":"/api/v4","status":500},{"path":"/x","status":42}]`: "status",
		`{"path":"/api/v4","status":500,"colour":"red"}`:              "faults",
	} {
		if status, data := c.do("POST", "/-/faults", c.admin, body); status != 400 || !strings.Contains(string(data), `"`+field+` is invalid"`) {
			t.Errorf("POST /-/faults %s: %d %s, want 400 %s is invalid", body, status, data, field)
		}
	}
	if got := faultsOf(t, c); len(got) != 0 {
		t.Fatalf("refused declarations added %+v", got)
	}

	// The spec's error shape for a chosen status, on the 2nd matching request only.
	c.expect(http.StatusCreated, "POST", "/-/faults", c.admin, `{"method":"GET","path":"/api/v4/projects/:id","status":503,"nth":2}`)
	c.expect(http.StatusOK, "GET", "/api/v4/projects/demo%2Fwebsite", c.admin, "")
	c.expect(http.StatusOK, "GET", "/api/v4/version", c.admin, "") // another path: not counted
	data := c.expect(http.StatusServiceUnavailable, "GET", "/api/v4/projects/demo%2Fwebsite", c.admin, "")
	if string(data) != `{"message":"503 Service Unavailable"}` {
		t.Errorf("faulted body: %s", data)
	}
	c.expect(http.StatusOK, "GET", "/api/v4/projects/demo%2Fwebsite", c.admin, "")
	c.expect(http.StatusNotFound, "GET", "/api/v4/projects/demo%2Fwebsite/issues/x/y", c.admin, "") // a template takes whole segments
	got := faultsOf(t, c)
	if len(got) != 1 || got[0].Matched != 3 || got[0].Injected != 1 {
		t.Fatalf("fault counters: %+v", got)
	}
	if j := journalOf(t, c, "?status=503"); len(j) != 1 || !strings.Contains(j[0].Fault, "status 503") {
		t.Errorf("journal of the faulted request: %+v", j)
	}
	// The hooks are never faulted, and one fault goes by its ID.
	c.expect(http.StatusNoContent, "DELETE", "/-/faults/"+got[0].ID, c.admin, "")
	c.expect(http.StatusNotFound, "DELETE", "/-/faults/"+got[0].ID, c.admin, "")

	// A dropped connection: the client sees no answer at all.
	c.expect(http.StatusCreated, "POST", "/-/faults", c.admin, `[{"endpoint":"version.get","drop":true}]`)
	req, _ := http.NewRequest("GET", c.srv.URL+"/api/v4/version", nil)
	req.Header.Set("PRIVATE-TOKEN", c.admin)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("dropped request answered %d", resp.StatusCode)
	}
	if j := journalOf(t, c, "?path=/api/v4/version"); len(j) == 0 || j[len(j)-1].Status != 0 || !strings.Contains(j[len(j)-1].Fault, "drop") {
		t.Errorf("journal of the dropped request: %+v", j)
	}
	c.expect(http.StatusNoContent, "DELETE", "/-/faults", c.admin, "")
	c.expect(http.StatusOK, "GET", "/api/v4/version", c.admin, "")

	// Latency: a client with a shorter timeout gives up; one without waits and is answered.
	c.expect(http.StatusCreated, "POST", "/-/faults", c.admin, "path: /api/v4/user\nlatency: 300ms\n")
	short := &http.Client{Timeout: 50 * time.Millisecond}
	req, _ = http.NewRequest("GET", c.srv.URL+"/api/v4/user", nil)
	req.Header.Set("PRIVATE-TOKEN", c.admin)
	if resp, err := short.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("a 300ms fault answered within 50ms: %d", resp.StatusCode)
	}
	c.expect(http.StatusOK, "GET", "/api/v4/user", c.admin, "")
	c.expect(http.StatusNoContent, "DELETE", "/-/faults", c.admin, "")

	// A share, drawn from a seed: the same seed faults the same requests.
	pattern := func() string {
		c.expect(http.StatusNoContent, "DELETE", "/-/faults", c.admin, "")
		c.expect(http.StatusCreated, "POST", "/-/faults", c.admin, `{"path":"/api/v4/version","status":500,"probability":0.5,"seed":7}`)
		var b strings.Builder
		for range 40 {
			status, _ := c.do("GET", "/api/v4/version", c.admin, "")
			b.WriteString(strconv.Itoa(status / 100))
		}
		return b.String()
	}
	first, second := pattern(), pattern()
	if first != second || !strings.Contains(first, "5") || !strings.Contains(first, "2") {
		t.Errorf("seeded share: %s then %s, want the same mix of 2xx and 5xx", first, second)
	}
}

// serve --faults FILE declares faults at start.
func TestFaultsFile(t *testing.T) {
	c := newConvServer(t, reference.Config{})
	file := t.TempDir() + "/faults.yaml"
	os.WriteFile(file, []byte("- method: POST\n  path: /api/v4/projects\n  status: 429\n"), 0o644)
	if err := c.inst.LoadFaults(file); err != nil {
		t.Fatal(err)
	}
	c.expect(http.StatusTooManyRequests, "POST", "/api/v4/projects", c.admin, `{"name":"x"}`)
	c.expect(http.StatusOK, "GET", "/api/v4/projects", c.admin, "")
	os.WriteFile(file, []byte("- method: POST\n  status: 429\n"), 0o644)
	if err := c.inst.LoadFaults(file); err == nil || !strings.Contains(err.Error(), "path is invalid") {
		t.Errorf("a fault without a path: %v", err)
	}
}

// A reset goes back to the start for the conveniences too: the journal is
// emptied, the faults added at run time go, and the file's stay with their
// counts restarted (an Nth fault faults the Nth request after the reset, as
// after a start), as WireMock's reset treats its journal and stubs.
func TestResetRestartsJournalAndFaults(t *testing.T) {
	c := newConvServer(t, reference.Config{})
	file := t.TempDir() + "/faults.yaml"
	os.WriteFile(file, []byte("- method: POST\n  path: /api/v4/projects\n  status: 429\n  nth: 2\n"), 0o644)
	if err := c.inst.LoadFaults(file); err != nil {
		t.Fatal(err)
	}
	c.expect(http.StatusCreated, "POST", "/-/faults", c.admin, `{"method":"GET","path":"/api/v4/version","status":503}`)
	c.expect(http.StatusCreated, "POST", "/api/v4/projects", c.admin, `{"name":"first"}`)
	c.expect(http.StatusTooManyRequests, "POST", "/api/v4/projects", c.admin, `{"name":"second"}`)
	c.expect(http.StatusServiceUnavailable, "GET", "/api/v4/version", c.admin, "")
	if got := journalOf(t, c, ""); len(got) != 3 {
		t.Fatalf("journal before the reset: %d entries, want 3", len(got))
	}
	lastID := journalOf(t, c, "")[2].ID

	c.expect(http.StatusNoContent, "POST", "/-/reset", c.admin, "")
	if got := journalOf(t, c, ""); len(got) != 0 {
		t.Fatalf("journal after the reset: %+v, want none", got)
	}
	var left []reference.Fault
	if err := json.Unmarshal(c.expect(http.StatusOK, "GET", "/-/faults", c.admin, ""), &left); err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || !left[0].FromFile || left[0].Matched != 0 || left[0].Injected != 0 {
		t.Fatalf("faults after the reset: %+v, want the file's alone, counted from zero", left)
	}
	c.expect(http.StatusOK, "GET", "/api/v4/version", c.admin, "")
	c.expect(http.StatusCreated, "POST", "/api/v4/projects", c.admin, `{"name":"first"}`)
	c.expect(http.StatusTooManyRequests, "POST", "/api/v4/projects", c.admin, `{"name":"second"}`)
	after := journalOf(t, c, "")
	if len(after) != 3 || after[0].ID <= lastID {
		t.Errorf("journal after the reset: %+v, want 3 entries with ids after %d", after, lastID)
	}
}

// BenchmarkJournal measures what the request journal costs a request over
// loopback: GET /api/v4/user with the journal kept (the default) and off.
func BenchmarkJournal(b *testing.B) {
	for _, c := range []struct {
		name string
		size int
	}{{"on", 0}, {"off", -1}} {
		b.Run(c.name, func(b *testing.B) {
			inst, err := reference.New(reference.Config{RootToken: persistRoot, Seed: "demo", FixedClock: true, JournalSize: c.size})
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(inst.Handler())
			defer func() { srv.Close(); inst.Close() }()
			req, _ := http.NewRequest("GET", srv.URL+"/api/v4/user", nil)
			req.Header.Set("PRIVATE-TOKEN", persistRoot)
			b.ReportAllocs()
			for b.Loop() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
