package proxy_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dnaeon/go-vcr/v2/cassette"
	"github.com/dnaeon/go-vcr/v2/recorder"

	"github.com/v4cert/v4cert/proxy"
)

// Each secret is distinct so the test can tell which place leaked.
var planted = map[string]string{
	"header PRIVATE-TOKEN":          "glpat-SECRET-private-token-header",
	"header JOB-TOKEN":              "SECRET-job-token-header-0001",
	"header Authorization":          "SECRET-bearer-authorization-0002",
	"query private_token":           "SECRET-query-private-token-0003",
	"query job_token":               "SECRET-query-job-token-0004",
	"request JSON password":         "SECRET-json-password-0005",
	"request JSON runners_token":    "SECRET-json-runners-token-0006",
	"request JSON key":              "ssh-ed25519 SECRET-json-key-material-0007",
	"request JSON secret":           "SECRET-json-secret-0008",
	"request JSON mirror URL":       "SECRET-mirror-password-0009",
	"request form password":         "SECRET-form-password-0010",
	"request form nested token":     "SECRET-form-nested-token-0011",
	"request multipart password":    "SECRET-multipart-password-0012",
	"response JSON token":           "glpat-SECRET-response-token-0013",
	"response JSON nested *_token":  "SECRET-response-nested-token-0014",
	"response JSON credentials URL": "SECRET-response-url-password-0015",
	"response header Set-Cookie":    "SECRET-session-cookie-0016",
	"response Link private_token":   "SECRET-link-private-token-0017",
	"response echo of header token": "glpat-SECRET-private-token-header",
}

// secretUpstream answers with secrets in its body and headers, and echoes
// the request's PRIVATE-TOKEN under a name that is not secret-looking.
func secretUpstream() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Set-Cookie", "_session="+planted["response header Set-Cookie"]+"; HttpOnly")
		w.Header().Set("Link", `<http://x/api/v4/users?private_token=`+planted["response Link private_token"]+`&page=2>; rel="next"`)
		body, _ := json.Marshal(map[string]any{
			"id": 7, "name": "tok", "token": planted["response JSON token"],
			"group": map[string]any{"runners_token": planted["response JSON nested *_token"]},
			"url":   "https://mirror-user:" + planted["response JSON credentials URL"] + "@mirror.example.com/repo.git",
			"seen":  r.Header.Get("PRIVATE-TOKEN"),
		})
		w.WriteHeader(http.StatusCreated)
		w.Write(body)
	})
}

func plantedRequests(t *testing.T, base string) {
	t.Helper()
	send := func(method, path, ct string, body []byte, h map[string]string) {
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		for k, v := range h {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
	}
	send("GET", "/api/v4/job?job_token="+planted["query job_token"], "", nil, map[string]string{"JOB-TOKEN": planted["header JOB-TOKEN"]})
	send("GET", "/api/v4/user?private_token="+planted["query private_token"], "", nil, map[string]string{"Authorization": "Bearer " + planted["header Authorization"]})
	jsonBody, _ := json.Marshal(map[string]any{
		"name": "n", "password": planted["request JSON password"], "runners_token": planted["request JSON runners_token"],
		"key": planted["request JSON key"], "secret": planted["request JSON secret"],
		"url": "https://user:" + planted["request JSON mirror URL"] + "@example.com/x.git",
	})
	send("POST", "/api/v4/users", "application/json", jsonBody, map[string]string{"PRIVATE-TOKEN": planted["header PRIVATE-TOKEN"]})
	send("POST", "/api/v4/users", "application/x-www-form-urlencoded",
		[]byte("name=n&password="+planted["request form password"]+"&user%5Breset_token%5D="+planted["request form nested token"]), nil)
	var mp bytes.Buffer
	mw := multipart.NewWriter(&mp)
	mw.WriteField("name", "n")
	mw.WriteField("password", planted["request multipart password"])
	fw, _ := mw.CreateFormFile("avatar", "a.png")
	fw.Write([]byte("\x89PNG binary"))
	mw.Close()
	send("POST", "/api/v4/users", mw.FormDataContentType(), mp.Bytes(), nil)
}

func TestRecordRedactsEverySecret(t *testing.T) {
	up := newHandlerServer(t, secretUpstream())
	file := filepath.Join(t.TempDir(), "secrets.yaml")
	var vlog bytes.Buffer
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: up, Cassette: file, Violations: &vlog})
	plantedRequests(t, base)
	s, _, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	if s.Recorded != 5 {
		t.Fatalf("recorded %d interactions, want 5", s.Recorded)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for where, secret := range planted {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("%s leaked into the cassette", where)
		}
		if strings.Contains(vlog.String(), secret) {
			t.Errorf("%s leaked into the violations", where)
		}
	}
	c, err := cassette.Load(strings.TrimSuffix(file, ".yaml"))
	if err != nil {
		t.Fatalf("go-vcr cannot load the cassette: %v", err)
	}
	if len(c.Interactions) != 5 {
		t.Fatalf("go-vcr sees %d interactions", len(c.Interactions))
	}
	// The form body is parsed into form as go-vcr does, secrets hidden too.
	if got := c.Interactions[3].Request.Form.Get("password"); got != proxy.Redacted {
		t.Errorf("form password recorded as %q", got)
	}
	if !strings.Contains(c.Interactions[2].Request.Body, `"name":"n"`) {
		t.Errorf("non-secret fields must stay: %s", c.Interactions[2].Request.Body)
	}
}

// TestCassetteReplaysInGoVCR proves a recorded cassette works in a user's own
// Go test with go-vcr v2's recorder.
func TestCassetteReplaysInGoVCR(t *testing.T) {
	ref := newReference(t, 5)
	file := filepath.Join(t.TempDir(), "users.yaml")
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: ref.URL, Cassette: file})
	_, live := get(t, http.DefaultClient, base+"/api/v4/users?per_page=3", "PRIVATE-TOKEN", rootToken)
	_, liveUser := get(t, http.DefaultClient, base+"/api/v4/users/2", "PRIVATE-TOKEN", rootToken)
	_, liveAgain := get(t, http.DefaultClient, base+"/api/v4/users?per_page=3", "PRIVATE-TOKEN", rootToken)
	if _, _, err := p.Close(); err != nil {
		t.Fatal(err)
	}
	// The repeated answer is stored once: go-vcr v2's YAML reads the alias.
	if data, _ := os.ReadFile(file); !bytes.Contains(data, []byte("body: *s0\n")) || liveAgain != live {
		t.Fatalf("the repeated answer is not an alias of the first:\n%s", data)
	}

	// What a user writes: go-vcr's recorder in replay mode, no server running.
	rec, err := recorder.NewAsMode(strings.TrimSuffix(file, ".yaml"), recorder.ModeReplaying, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec.SkipRequestLatency = true // go-vcr would sleep the recorded latency again otherwise
	defer rec.Stop()
	client := &http.Client{Transport: rec}
	// Recorded URLs name the upstream, as the client would without the proxy.
	_, replayed := get(t, client, ref.URL+"/api/v4/users?per_page=3")
	_, replayedUser := get(t, client, ref.URL+"/api/v4/users/2")
	_, replayedAgain := get(t, client, ref.URL+"/api/v4/users?per_page=3")
	if replayed != live || replayedUser != liveUser || replayedAgain != live {
		t.Fatalf("go-vcr replayed something else:\n%s\n%s", replayed, replayedUser)
	}
}

// TestCassetteStrings round-trips awkward text through the streaming writer
// and go-vcr's loader.
func TestCassetteStrings(t *testing.T) {
	bodies := []string{
		"", "plain", "quote \" backslash \\ tab \t newline \n cr \r", "\x00\x01\x1f\x7f", "é ü 日本 🎉",
		"\u0085 nel \u2028 ls \u2029 ps \ufeff bom \ufffe \uffff", "# not a comment: {} [] & * ! | > ' % @ `",
		"- list\n  - nested\n: colon", "\xff\xfe not utf-8 \x80", strings.Repeat("long ", 5000), "null", "true", "123", "~",
	}
	up := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("X-Echo", "é \" value")
		w.Write(b)
	}))
	file := filepath.Join(t.TempDir(), "strings.yaml")
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: up, Cassette: file})
	for _, b := range bodies {
		res, err := http.Post(base+"/api/v4/echo", "application/octet-stream", strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body) // a client that hangs up early is TestRecordClientHangsUp's case
		res.Body.Close()
	}
	if _, _, err := p.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Load(strings.TrimSuffix(file, ".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != len(bodies) {
		t.Fatalf("%d interactions", len(c.Interactions))
	}
	for i, b := range bodies {
		if c.Interactions[i].Request.Body != b || c.Interactions[i].Response.Body != b {
			t.Errorf("body %d: %q became %q / %q", i, b, c.Interactions[i].Request.Body, c.Interactions[i].Response.Body)
		}
	}
	if got := c.Interactions[0].Response.Headers.Get("X-Echo"); got != "é \" value" {
		t.Errorf("header became %q", got)
	}
}

func TestRecordExistingCassette(t *testing.T) {
	ref := newReference(t, 2)
	file := filepath.Join(t.TempDir(), "c.yaml")
	record := func(policy proxy.ExistingPolicy) error {
		p, err := proxy.New(proxy.Options{Mode: proxy.ModeRecord, Upstream: ref.URL, Cassette: file, Existing: policy})
		if err != nil {
			return err
		}
		base, _ := p.Start("127.0.0.1:0")
		get(t, http.DefaultClient, base+"/api/v4/users/1", "PRIVATE-TOKEN", rootToken)
		_, _, err = p.Close()
		return err
	}
	if err := record(proxy.Refuse); err != nil {
		t.Fatal(err)
	}
	if err := record(proxy.Refuse); err == nil || !strings.Contains(err.Error(), "--append") {
		t.Fatalf("an existing cassette must be refused by default, got %v", err)
	}
	if err := record(proxy.Append); err != nil {
		t.Fatal(err)
	}
	if c, err := proxy.LoadCassette(file); err != nil || len(c.Interactions) != 2 {
		t.Fatalf("after append: %v, %d interactions", err, len(c.Interactions))
	}
	if err := record(proxy.Overwrite); err != nil {
		t.Fatal(err)
	}
	if c, err := proxy.LoadCassette(file); err != nil || len(c.Interactions) != 1 {
		t.Fatalf("after overwrite: %v", err)
	}
	// A cassette go-vcr itself saved, empty or not, takes appends too.
	vcr := cassette.New(strings.TrimSuffix(file, ".yaml"))
	vcr.AddInteraction(&cassette.Interaction{Request: cassette.Request{Method: "GET", URL: ref.URL + "/api/v4/user"}, Response: cassette.Response{Code: 200, Body: "{}"}})
	if err := vcr.Save(); err != nil {
		t.Fatal(err)
	}
	if err := record(proxy.Append); err != nil {
		t.Fatal(err)
	}
	if c, err := proxy.LoadCassette(file); err != nil || len(c.Interactions) != 2 {
		t.Fatalf("after appending to go-vcr's cassette: %v", err)
	}
}

// TestRecordClientHangsUp: a client that closes the answer before reading it
// all must not cost the recording; the upstream's answer is kept whole.
func TestRecordClientHangsUp(t *testing.T) {
	long := strings.Repeat("0123456789", 200000) // 2 MB, more than any socket buffer
	up := newHandlerServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		io.WriteString(w, long)
	}))
	file := filepath.Join(t.TempDir(), "hangup.yaml")
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: up, Cassette: file})
	for i := 0; i < 3; i++ {
		res, err := http.Get(base + "/api/v4/echo")
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 10)
		io.ReadFull(res.Body, buf)
		res.Body.Close() // hangs up with most of the body unread
	}
	if _, _, err := p.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := cassette.Load(strings.TrimSuffix(file, ".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != 3 {
		t.Fatalf("%d interactions recorded, want 3", len(c.Interactions))
	}
	for i, in := range c.Interactions {
		if in.Response.Body != long {
			t.Errorf("interaction %d: body of %d bytes, want the whole %d", i, len(in.Response.Body), len(long))
		}
	}
}
