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

// BeMissingAttributeAsPlatform accepts what the platform answers for a
// missing attribute (errors.missing.1's platform.does) and nothing looser:
// another attribute, another status or another text fails it.
func TestBeMissingAttributeAsPlatform(t *testing.T) {
	answer := func(status int, body string) *Response {
		return &Response{Method: "POST", URL: "http://x/api/v4/groups", Status: status,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}
	}
	for body, want := range map[string]bool{
		`{"error":"name is missing"}`:                        true,
		`{"error":"path is missing, name is missing"}`:       true,
		`{"message":"400 Bad request - \"name\" not given"}`: true,
		`{"error":"names is missing"}`:                       false,
		`{"error":"path is missing"}`:                        false,
		`{"error":"name is invalid"}`:                        false,
		`{"message":"400 (Bad request) name not given"}`:     false, // the spec's text: the spec side's, not the platform's
		`{"message":"400 Bad request - \"path\" not given"}`: false,
		`{"error":{"name":"is missing"}}`:                    false,
	} {
		if ok, err := BeMissingAttributeAsPlatform("name").Match(answer(400, body)); ok != want || err != nil {
			t.Errorf("%s: matched %v (%v), want %v", body, ok, err, want)
		}
	}
	if ok, _ := BeMissingAttributeAsPlatform("name").Match(answer(422, `{"error":"name is missing"}`)); ok {
		t.Error("a 422 matched")
	}
}
