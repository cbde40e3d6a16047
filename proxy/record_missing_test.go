package proxy_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/proxy"
)

// TestReplayRecordMissing: replay with RecordMissing answers what the
// cassette holds from the cassette (an upstream changed meanwhile does not
// show through) and sends what it does not hold upstream, appending those
// exchanges to the same cassette, which then replays them all with no
// upstream at all.
func TestReplayRecordMissing(t *testing.T) {
	ref := newReference(t, 3)
	file := filepath.Join(t.TempDir(), "episodes.yaml")
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecord, Upstream: ref.URL, Cassette: file})
	_, recorded := do(t, "GET", base+"/api/v4/groups", "", "", "PRIVATE-TOKEN", rootToken)
	if _, _, err := p.Close(); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(file)

	if _, err := proxy.New(proxy.Options{Mode: proxy.ModeReplay, Cassette: file, RecordMissing: true}); err == nil {
		t.Fatal("RecordMissing without an upstream was accepted")
	}
	p, base = startProxy(t, proxy.Options{Mode: proxy.ModeReplay, Cassette: file, RecordMissing: true, Upstream: ref.URL})
	res, changed := do(t, "POST", base+"/api/v4/groups", "application/json", `{"name":"Changed Meanwhile","path":"changed"}`, "PRIVATE-TOKEN", rootToken)
	if res.StatusCode != 201 || !strings.Contains(changed, "Changed Meanwhile") {
		t.Fatalf("a new episode went upstream: %d %s", res.StatusCode, changed)
	}
	if res, got := do(t, "GET", base+"/api/v4/groups", "", "", "PRIVATE-TOKEN", rootToken); res.StatusCode != 200 || got != recorded {
		t.Errorf("a recorded request was not replayed (the group made meanwhile shows): %d %s", res.StatusCode, got)
	}
	res, third := do(t, "GET", base+"/api/v4/users/3", "", "", "PRIVATE-TOKEN", rootToken)
	if res.StatusCode != 200 || res.Header.Get(proxy.ReplayHeader) != "" {
		t.Fatalf("GET /users/3 (new): %d %v", res.StatusCode, res.Header)
	}
	s, _, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	if s.Replayed != 1 || s.Recorded != 2 || s.Misses != 0 {
		t.Errorf("summary: replayed %d recorded %d misses %d, want 1, 2, 0", s.Replayed, s.Recorded, s.Misses)
	}
	after, _ := os.ReadFile(file)
	c, err := proxy.LoadCassette(file)
	if err != nil || len(c.Interactions) != 3 || !strings.HasPrefix(string(after), strings.TrimRight(string(first), "\n")) {
		t.Fatalf("cassette after new episodes: %v, %d interactions (want 3, the first one kept as it was)", err, len(c.Interactions))
	}

	// The group's runners_token is a secret: the cassette hides it.
	changed = regexp.MustCompile(`"runners_token":"[^"]*"`).ReplaceAllString(changed, `"runners_token":"`+proxy.Redacted+`"`)
	ref.Close()
	_, base = startProxy(t, proxy.Options{Mode: proxy.ModeReplay, Cassette: file})
	for _, x := range []struct{ method, path, body, want string }{
		{"GET", "/api/v4/groups", "", recorded},
		{"POST", "/api/v4/groups", `{"name":"Changed Meanwhile","path":"changed"}`, changed},
		{"GET", "/api/v4/users/3", "", third},
	} {
		ct := ""
		if x.body != "" {
			ct = "application/json"
		}
		if res, got := do(t, x.method, base+x.path, ct, x.body, "PRIVATE-TOKEN", rootToken); res.StatusCode/100 != 2 || got != x.want {
			t.Errorf("replay of %s %s: %d %s", x.method, x.path, res.StatusCode, got)
		}
	}
}

// TestRecordOnce records a cassette that does not exist and replays one
// that does, as go-vcr's ModeRecordOnce.
func TestRecordOnce(t *testing.T) {
	ref := newReference(t, 2)
	file := filepath.Join(t.TempDir(), "once.yaml")
	p, base := startProxy(t, proxy.Options{Mode: proxy.ModeRecordOnce, Upstream: ref.URL, Cassette: file})
	if p.Mode() != proxy.ModeRecord {
		t.Fatalf("record-once without a cassette runs %s", p.Mode())
	}
	_, want := do(t, "GET", base+"/api/v4/users/2", "", "", "PRIVATE-TOKEN", rootToken)
	if s, _, err := p.Close(); err != nil || s.Recorded != 1 {
		t.Fatalf("recording: %v, %d recorded", err, s.Recorded)
	}
	ref.Close()
	p, base = startProxy(t, proxy.Options{Mode: proxy.ModeRecordOnce, Upstream: ref.URL, Cassette: file})
	if p.Mode() != proxy.ModeReplay {
		t.Fatalf("record-once with a cassette runs %s", p.Mode())
	}
	if res, got := do(t, "GET", base+"/api/v4/users/2", "", "", "PRIVATE-TOKEN", rootToken); res.StatusCode != 200 || got != want {
		t.Errorf("replayed %d %s", res.StatusCode, got)
	}
	if res, _ := do(t, "GET", base+"/api/v4/users/1", "", "", "PRIVATE-TOKEN", rootToken); res.StatusCode != proxy.MissStatus {
		t.Errorf("a request the cassette does not hold: %d, want the replay miss", res.StatusCode)
	}
}
