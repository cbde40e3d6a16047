package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/schemas"
	"github.com/v4cert/v4cert/specs"
)

// sample is a body and the schema it should match.
type sample struct {
	schema string
	array  bool
	body   []byte
}

// corpus collects real bodies: from a recorded cassette when V4CERT_CORPUS
// names one (make test passes the suites' own recording), else from a small
// reference world built here.
func corpus(t testing.TB) []sample {
	t.Helper()
	c := NewChecker(nil)
	var exs []*Exchange
	if path := os.Getenv("V4CERT_CORPUS"); path != "" {
		cas, err := LoadCassette(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range cas.Interactions {
			u, _ := url.Parse(in.Request.URL)
			exs = append(exs, &Exchange{Method: in.Request.Method, Path: u.EscapedPath(), RawQuery: u.RawQuery,
				Status: in.Response.Code, Header: in.Response.Headers, Body: []byte(in.Response.Body)})
		}
	} else {
		exs = referenceExchanges(t)
	}
	var out []sample
	for _, ex := range exs {
		if len(bytes.TrimSpace(ex.Body)) == 0 || ex.Method == http.MethodHead {
			continue
		}
		e := c.Match(ex.Method, ex.Path)
		if rule := specs.ExpectBody(e, ex.Method, ex.Path, ex.RawQuery, ex.Status); rule.Schema != "" {
			out = append(out, sample{rule.Schema, rule.Array, ex.Body})
		}
	}
	return out
}

func referenceExchanges(t testing.TB) []*Exchange {
	inst, err := reference.New(reference.Config{RootToken: "corpus-root-token", Seed: "demo", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	do := func(method, target, body string) *Exchange {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("PRIVATE-TOKEN", "corpus-root-token")
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		w := httptest.NewRecorder()
		inst.Server.ServeHTTP(w, req)
		u, _ := url.Parse(target)
		return &Exchange{Method: method, Path: u.EscapedPath(), RawQuery: u.RawQuery, Status: w.Code, Header: w.Header(), Body: w.Body.Bytes()}
	}
	var exs []*Exchange
	for _, target := range []string{"/api/v4/users", "/api/v4/users?per_page=3", "/api/v4/users/1", "/api/v4/user", "/api/v4/groups",
		"/api/v4/projects", "/api/v4/topics", "/api/v4/users/999999", "/api/v4/groups/a/b"} {
		exs = append(exs, do("GET", target, ""))
	}
	exs = append(exs, do("POST", "/api/v4/users", `{}`), do("POST", "/api/v4/groups", `{"name":"x"}`))
	var groups []struct{ ID int }
	json.Unmarshal(exs[4].Body, &groups)
	for _, g := range groups {
		for _, tail := range []string{"", "/members", "/members/all", "/projects", "/projects?simple=true", "/access_requests", "/billable_members"} {
			exs = append(exs, do("GET", fmt.Sprintf("/api/v4/groups/%d%s", g.ID, tail), ""))
		}
	}
	var projects []struct{ ID int }
	json.Unmarshal(exs[5].Body, &projects)
	for _, p := range projects {
		for _, tail := range []string{"", "/members", "/members/all"} {
			exs = append(exs, do("GET", fmt.Sprintf("/api/v4/projects/%d%s", p.ID, tail), ""))
		}
	}
	return exs
}

// mutations returns variants of a JSON document, each changed at one place:
// a key removed, a value replaced by another type, a string made an invalid
// date, an extra key added.
func mutations(body []byte, limit int) [][]byte {
	var root any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&root) != nil {
		return nil
	}
	replacements := []any{nil, json.Number("12345"), json.Number("1.5"), "x", true, map[string]any{}, []any{}, "2024-13-45T99:00:00Z", "2024-01-01", "2024-01-01T00:00:00Z"}
	var out [][]byte
	var walk func(v any, set func(any), del func())
	emit := func() {
		if b, err := json.Marshal(root); err == nil {
			out = append(out, b)
		}
	}
	walk = func(v any, set func(any), del func()) {
		if len(out) >= limit {
			return
		}
		for _, r := range replacements {
			set(r)
			emit()
		}
		set(v)
		if del != nil {
			del()
			emit()
			set(v)
		}
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			x["zz_extra"] = 1
			emit()
			delete(x, "zz_extra")
			for _, k := range keys {
				k := k
				walk(x[k], func(n any) { x[k] = n }, func() { delete(x, k) })
			}
		case []any:
			for i := range x {
				i := i
				walk(x[i], func(n any) { x[i] = n }, nil)
			}
		}
	}
	walk(root, func(n any) { root = n }, nil)
	return out
}

// TestFastMatchesLibrary holds the compiled checks to the JSON Schema
// library's verdicts on real bodies and on thousands of one-place mutations
// of them: the fast path may only ever be faster, never different.
func TestFastMatchesLibrary(t *testing.T) {
	fast := loadFast()
	for name, why := range fast.slow {
		t.Logf("schema %s is checked by the library alone: %s", name, why)
	}
	samples := corpus(t)
	if len(samples) < 10 {
		t.Fatalf("corpus too small: %d", len(samples))
	}
	seen := map[string]bool{}
	checked, mutated := 0, 0
	for _, s := range samples {
		if _, ok := fast.roots[s.schema]; !ok {
			continue
		}
		// One body per shape: the mutations then reach every kind of field
		// without repeating the same ones across thousands of similar bodies.
		key := s.schema + shape(s.body)
		if seen[key] {
			continue
		}
		seen[key] = true
		bodies := append([][]byte{s.body}, mutations(s.body, 400)...)
		for i, b := range bodies {
			valid, _, _ := fast.validate(s.schema, s.array, b)
			var err error
			if s.array {
				err = schemas.ValidateArray(s.schema, b)
			} else {
				err = schemas.Validate(s.schema, b)
			}
			if valid != (err == nil) {
				t.Fatalf("schema %s array=%v: fast says valid=%v, library says %v\nbody: %s", s.schema, s.array, valid, err, b)
			}
			if i == 0 {
				checked++
			} else {
				mutated++
			}
		}
	}
	t.Logf("%d bodies and %d mutations agree", checked, mutated)
}

func TestFastRejectsMalformedJSON(t *testing.T) {
	fast := loadFast()
	for _, b := range []string{``, `[`, `[{"id":1,}]`, `[1 2]`, `[] []`, `["\x01"]`, `["\u12"]`, `[01]`, `[1.]`, `[-]`, `[tru]`, `{"a":1}`} {
		if valid, _, _ := fast.validate("user_list_entry", true, []byte(b)); valid {
			t.Errorf("%q accepted", b)
		}
	}
	if valid, _, _ := fast.validate("user_list_entry", true, []byte(" [ ] \n")); !valid {
		t.Error("empty array refused")
	}
}

func TestDateFormatsMatchLibrary(t *testing.T) {
	for _, s := range []string{"2024-01-01", "2024-02-30", "2024-1-01", "2024-01-01T00:00:00Z", "2024-01-01t00:00:00z",
		"2024-01-01T23:59:60Z", "2024-01-01T12:59:60Z", "2024-01-01T00:00:00.123+01:00", "2024-01-01T00:00:00+1:00",
		"2024-01-01T00:00:00.Z", "2024-01-01 00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T00:00:00-23:59"} {
		wantDate := jsonschemaFormat("date", s)
		wantDT := jsonschemaFormat("date-time", s)
		if validDate(s) != wantDate || validDateTime(s) != wantDT {
			t.Errorf("%s: date %v (library %v), date-time %v (library %v)", s, validDate(s), wantDate, validDateTime(s), wantDT)
		}
	}
}

func jsonschemaFormat(format, s string) bool {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("f.json", map[string]any{"type": "string", "format": format}); err != nil {
		panic(err)
	}
	sch, err := c.Compile("f.json")
	if err != nil {
		panic(err)
	}
	return sch.Validate(s) == nil
}

// shape is a body with every scalar replaced by its type and arrays reduced
// to their distinct element shapes.
func shape(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return string(body)
	}
	var walk func(any) string
	walk = func(v any) string {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			var b strings.Builder
			b.WriteString("{")
			for _, k := range keys {
				b.WriteString(k + ":" + walk(x[k]) + ",")
			}
			return b.String() + "}"
		case []any:
			set := map[string]bool{}
			for _, e := range x {
				set[walk(e)] = true
			}
			parts := make([]string, 0, len(set))
			for p := range set {
				parts = append(parts, p)
			}
			sort.Strings(parts)
			return "[" + strings.Join(parts, "|") + "]"
		case string:
			if len(x) >= 10 && x[4] == '-' {
				return "date"
			}
			return "s"
		case nil:
			return "null"
		default:
			return fmt.Sprintf("%T", x)
		}
	}
	return walk(v)
}
