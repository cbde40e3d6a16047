package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"v4cert/proxy"
)

func do(t *testing.T, method, url, ct, body string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestReplay records real traffic, then answers it again with no server:
// JSON bodies match as JSON, query parameters in any order, tokens ignored,
// identical requests in recorded order, and a miss is unmistakable.
func TestReplay(t *testing.T) {
	ref := newReference(t, 3)
	file := filepath.Join(t.TempDir(), "replay.yaml")
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: ref.URL, Cassette: file})
	_, before := do(t, "GET", base+"/api/v4/groups", "", "", "PRIVATE-TOKEN", rootToken)
	created, createdBody := do(t, "POST", base+"/api/v4/groups", "application/json", `{"name":"Replayed","path":"replayed","visibility":"private"}`, "PRIVATE-TOKEN", rootToken)
	_, after := do(t, "GET", base+"/api/v4/groups", "", "", "PRIVATE-TOKEN", rootToken)
	_, page := do(t, "GET", base+"/api/v4/users?per_page=2&page=2", "", "", "PRIVATE-TOKEN", rootToken)
	if created.StatusCode != 201 || before == after {
		t.Fatalf("setup: %d %s", created.StatusCode, createdBody)
	}
	// The group's runners_token is a secret: the cassette (and so the replay) hides it.
	createdBody = regexp.MustCompile(`"runners_token":"[^"]*"`).ReplaceAllString(createdBody, `"runners_token":"`+proxy.Redacted+`"`)
	ref.Close()
	if _, _, err := p.Close(); err != nil {
		t.Fatal(err)
	}

	_, base = startProxy(t, proxy.Options{Mode: proxy.ModeReplay, Cassette: file})
	other := "glpat-a-different-token-entirely"
	if _, got := do(t, "GET", base+"/api/v4/groups", "", "", "PRIVATE-TOKEN", other); got != before {
		t.Errorf("first GET /groups replayed %s, want %s", got, before)
	}
	res, got := do(t, "POST", base+"/api/v4/groups", "application/json", `{ "visibility": "private", "path": "replayed", "name": "Replayed" }`, "PRIVATE-TOKEN", other)
	if got != createdBody || res.StatusCode != 201 || res.ContentLength != int64(len(createdBody)) {
		t.Errorf("POST replayed %d %s", res.StatusCode, got)
	}
	if _, got := do(t, "GET", base+"/api/v4/groups", "", "", "PRIVATE-TOKEN", other); got != after {
		t.Errorf("second GET /groups replayed %s, want %s", got, after)
	}
	if _, got := do(t, "GET", base+"/api/v4/users?page=2&per_page=2", "", "", "PRIVATE-TOKEN", other); got != page {
		t.Errorf("reordered query replayed %s", got)
	}

	res, got = do(t, "GET", base+"/api/v4/users?per_page=3&page=2", "", "", "PRIVATE-TOKEN", other)
	if res.StatusCode != proxy.MissStatus || res.Header.Get(proxy.ReplayHeader) != "miss" {
		t.Fatalf("miss answered %d %v", res.StatusCode, res.Header)
	}
	var miss struct {
		Closest     struct{ Path, Query string }
		Differences []string
	}
	if err := json.Unmarshal([]byte(got), &miss); err != nil {
		t.Fatal(err)
	}
	if miss.Closest.Path != "/api/v4/users" || !strings.Contains(strings.Join(miss.Differences, "\n"), "per_page=2") {
		t.Errorf("miss body does not point at the closest request: %s", got)
	}
	res, got = do(t, "GET", base+"/api/v4/groups", "", "")
	if res.StatusCode != proxy.MissStatus || !strings.Contains(got, "replayed already") {
		t.Errorf("a third GET /groups must miss (two recorded): %d %s", res.StatusCode, got)
	}
}
