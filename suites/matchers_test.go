package suites

import (
	"net/http"
	"strings"
	"testing"
)

// The failure message of HaveHeader names what the header held and prints the
// answer's headers, so a failed pagination assertion explains itself.
func TestHaveHeaderMessage(t *testing.T) {
	r := &Response{Method: "GET", URL: "http://x/api/v4/users", Status: 200,
		Header: http.Header{"X-Page": {"1"}, "X-Per-Page": {"10"}}, Body: []byte(`[]`)}
	m := HaveHeader("x-per-page", "20")
	if ok, err := m.Match(r); ok || err != nil {
		t.Fatalf("matched %v, %v", ok, err)
	}
	msg := m.FailureMessage(r)
	for _, want := range []string{`X-Per-Page "20"`, `it holds ["10"]`, "X-Page: 1\n", "X-Per-Page: 10\n", "→ 200"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "%v") {
		t.Errorf("message prints a verb:\n%s", msg)
	}
	absent := HaveHeader("Link").FailureMessage(r)
	if !strings.Contains(absent, "Link; it is absent") {
		t.Errorf("absent header message:\n%s", absent)
	}
	if ok, _ := HaveHeader("X-Page").Match(r); !ok {
		t.Error("a present header without a value matches")
	}
}
