package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/proxy"
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

// TestReplayRepeat: with ReplayRepeat an identical request gets the last
// recorded answer again once its answers are used up; without it, it misses,
// and every miss is logged with the closest recorded request.
func TestReplayRepeat(t *testing.T) {
	ref := newReference(t, 2)
	file := filepath.Join(t.TempDir(), "repeat.yaml")
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: ref.URL, Cassette: file, CassetteFormat: proxy.Format2})
	_, want := do(t, "GET", base+"/api/v4/users/2", "", "", "PRIVATE-TOKEN", rootToken)
	if _, _, err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, repeat := range []bool{false, true} {
		var log strings.Builder
		_, base := startProxy(t, proxy.Options{Mode: proxy.ModeReplay, Cassette: file, ReplayRepeat: repeat, Log: newLog(&log)})
		for i := range 3 {
			res, got := do(t, "GET", base+"/api/v4/users/2", "", "")
			switch {
			case i == 0 || repeat:
				if res.StatusCode != 200 || got != want {
					t.Errorf("repeat=%v request %d: %d %s", repeat, i, res.StatusCode, got)
				}
			case res.StatusCode != proxy.MissStatus:
				t.Errorf("repeat=%v request %d: %d, want a miss", repeat, i, res.StatusCode)
			}
		}
		do(t, "GET", base+"/api/v4/users/3", "", "")
		logged := log.String()
		if !strings.Contains(logged, "replay miss: GET /api/v4/users/3; closest recorded #0: GET /api/v4/users/2; path: recorded") {
			t.Errorf("repeat=%v: the miss of /users/3 is not logged with its closest request:\n%s", repeat, logged)
		}
		if got := strings.Count(logged, "replay miss: GET /api/v4/users/2;"); repeat && got != 0 || !repeat && got != 2 {
			t.Errorf("repeat=%v: %d misses of /users/2 logged:\n%s", repeat, got, logged)
		}
	}
}
