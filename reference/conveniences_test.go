package reference_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
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
