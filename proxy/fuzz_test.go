package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/schemas"
	"github.com/v4cert/v4cert/specs"
)

// FuzzFastMatchesLibrary holds the compiled schema checks to the JSON
// Schema library's verdict on any body: the fast path may only be faster.
// The seeds are real answers of the reference, one per schema they match,
// so mutations start from bodies of every shape; make fuzz runs it longer.
func FuzzFastMatchesLibrary(f *testing.F) {
	names := schemas.Names()
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	seen := map[string]bool{}
	for _, s := range corpus(f) {
		if key := s.schema + shape(s.body); !seen[key] {
			seen[key] = true
			f.Add(uint16(index[s.schema]), s.array, s.body)
		}
	}
	f.Add(uint16(index["error"]), false, []byte(`{"message":{"name":["has already been taken"]}}`))
	f.Add(uint16(index["user_reference"]), false, []byte(`{"id":1.0,"name":"x","username":"x","state":"active","avatar_url":null,"web_url":"http://x"}`))
	fast := loadFast()
	f.Fuzz(func(t *testing.T, i uint16, array bool, body []byte) {
		name := names[int(i)%len(names)]
		if _, ok := fast.roots[name]; !ok {
			t.Skip("checked by the library alone")
		}
		valid, _, _ := fast.validate(name, array, body)
		var err error
		if array {
			err = schemas.ValidateArray(name, body)
		} else {
			err = schemas.Validate(name, body)
		}
		if valid != (err == nil) {
			t.Fatalf("schema %s array=%v: compiled checks say valid=%v, the library says %v\nbody: %q", name, array, valid, err, body)
		}
	})
}

// FuzzRedactJSON plants a value under a name in a JSON body and checks the
// secret policy end to end: the cassette's body stays valid JSON, hides the
// value exactly when the policy calls it secret, changes nothing else, is
// unchanged by a second pass, and a report of the same body never shows
// what the cassette hides (one policy for both).
func FuzzRedactJSON(f *testing.F) {
	for _, seed := range [][3]string{
		{"password", "hunter2-secret", "plain"},
		{"user[password]", "SECRET-nested-0001", "x"},
		{"runners_token", "GR1348941abcdef", "y"},
		{"key", "shirt", "a short identifier stays"},
		{"key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA", ""},
		{"otp_attempt", "123456", ""},
		{"passphrase", "correct horse battery staple", ""},
		{"url", "https://mirror-user:SECRET-pass@mirror.example.com/r.git", ""},
		{"url", "https://*****:*****@mirror.example.com/r.git", "already masked"},
		{"description", "my token is glpat-abcdefghij0123456789", "tokens are hidden by their look"},
		{"reset_password", "true", ""},
		{"token_expires_at", "2026-01-01", ""},
		{"X-Api-Key", "k-1234567890abcdef1234", ""},
		{"name", "password=inline-secret", "q"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, name, value, other string) {
		if name == "note" || !utf8.ValidString(name+value+other) {
			t.Skip("one member per name, and text JSON can carry")
		}
		nameJSON, _ := json.Marshal(name)
		valueJSON, _ := json.Marshal(value)
		otherJSON, _ := json.Marshal(other)
		body := []byte(`{` + string(nameJSON) + `:` + string(valueJSON) + `,"note":` + string(otherJSON) + `}`)
		var want map[string]string
		if json.Unmarshal(body, &want) != nil || want[name] != value {
			t.Skip("not a round-tripping JSON object (invalid UTF-8)")
		}
		out := redactBody(body, "application/json", nil)
		var got map[string]string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("redaction broke the JSON: %v\nin:  %s\nout: %s", err, body, out)
		}
		wantValue := specs.RedactText(value)
		if specs.IsSecretName(name) && specs.IsSecretValue(name, value) {
			wantValue = Redacted
		}
		if got[name] != wantValue || got["note"] != specs.RedactText(other) || len(got) != 2 {
			t.Fatalf("redacted %s as %q (want %q), note %q (want %q)", nameJSON, got[name], wantValue, got["note"], specs.RedactText(other))
		}
		if again := redactBody(out, "application/json", nil); !bytes.Equal(again, out) {
			t.Fatalf("a second pass changed the body:\n%s\n%s", out, again)
		}
		report := reports.NewRedactor().Text(string(body))
		for _, hidden := range []struct{ before, after string }{{value, got[name]}, {other, got["note"]}} {
			if hidden.after != hidden.before && len(hidden.before) >= 4 && strings.Contains(report, string(mustJSON(hidden.before))) {
				t.Fatalf("the report shows %q, which the cassette hides\nreport: %s\ncassette: %s", hidden.before, report, out)
			}
		}
	})
}

func mustJSON(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}
