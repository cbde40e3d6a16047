package suites

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"
	"github.com/tidwall/gjson"

	"github.com/v4cert/v4cert/schemas"
)

// HaveStatus succeeds when the response has one of the statuses; its failure
// message prints the exchange.
func HaveStatus(statuses ...int) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r *Response) (bool, error) {
		for _, s := range statuses {
			if r.Status == s {
				return true, nil
			}
		}
		return false, nil
	}).WithTemplate(fmt.Sprintf("Expected status %v, got:\n{{.Actual}}", statuses))
}

// MatchEndpointSchema validates the body against the schema of the endpoint
// the request matched in the rulebook (errors against the error schema).
func MatchEndpointSchema() types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r *Response) (bool, error) {
		if err := validateBody(r); err != nil {
			exchanges.name(r) // the message names it with %s, not through Gomega's formatter
			return false, fmt.Errorf("%v\nin answer to:\n%s", err, r)
		}
		return true, nil
	}).WithTemplate("Expected the body to match its schema:\n{{.Actual}}")
}

// MatchSchema validates the body against a named schema (an array of it when array is set).
func MatchSchema(name string, array bool) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r *Response) (bool, error) {
		var err error
		if array {
			err = schemas.ValidateArray(name, r.Body)
		} else {
			err = schemas.Validate(name, r.Body)
		}
		if err != nil {
			return false, fmt.Errorf("schema %s: %v\nin answer to:\n%s", name, err, r)
		}
		return true, nil
	}).WithTemplate("Expected the body to match schema " + name + ":\n{{.Actual}}")
}

// missingRe is Errors rule 2; the platform quotes the attribute, the spec shows it bare.
var missingRe = regexp.MustCompile(`^400 \(Bad request\) "?([^"]+)"? not given$`)

// BeMissingAttribute matches Errors rule 2 for attr.
func BeMissingAttribute(attr string) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r *Response) (bool, error) {
		if r.Status != 400 {
			return false, nil
		}
		m := missingRe.FindStringSubmatch(r.Get("message").String())
		return m != nil && m[1] == attr, nil
	}).WithTemplate(fmt.Sprintf("Expected 400 with message '400 (Bad request) %s not given', got:\n{{.Actual}}", attr))
}

// grapeMissingRe is one attribute of Grape's presence error ("x is
// missing", several joined by ", "); helperMissingRe the platform's
// bad_request_missing_attribute! text.
var (
	grapeMissingRe  = regexp.MustCompile(`^(.+) is missing$`)
	helperMissingRe = regexp.MustCompile(`^400 Bad request - "([^"]+)" not given$`)
)

// BeMissingAttributeAsPlatform matches what the platform answers where
// Errors rule 2 speaks (errors.missing.1's platform.does, a known
// divergence): 400 {"error":"<attr> is missing"} from Grape's presence
// validator (several attributes joined by ", "), or 400 {"message":"400 Bad
// request - \"<attr>\" not given"} from its helper. Only for
// SpecOrPlatform's platform side: it names attr, as the spec's does.
func BeMissingAttributeAsPlatform(attr string) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r *Response) (bool, error) {
		if r.Status != 400 {
			return false, nil
		}
		if m := helperMissingRe.FindStringSubmatch(r.Get("message").String()); m != nil {
			return m[1] == attr, nil
		}
		e := r.Get("error")
		if e.Type != gjson.String {
			return false, nil
		}
		for _, part := range strings.Split(e.String(), ", ") {
			if m := grapeMissingRe.FindStringSubmatch(part); m != nil && m[1] == attr {
				return true, nil
			}
		}
		return false, nil
	}).WithTemplate(fmt.Sprintf("Expected 400 with {\"error\":\"%s is missing\"} or {\"message\":\"400 Bad request - \\\"%s\\\" not given\"}, got:\n{{.Actual}}", attr, attr))
}

// errorText is the text of an error body in either of the platform's
// envelopes: its helpers' {"message": "..."} or Grape's {"error": "..."}
// (schemas/error.json). A rule that asks only that a refusal name something
// reads it here; Errors rules 2 to 6 fix their bodies and have matchers.
func errorText(r *Response) string {
	if m := r.Get("message"); m.Type == gjson.String {
		return m.String()
	}
	return r.Get("error").String()
}

// BeValidationError matches Errors rule 3, with an entry for each of fields.
// BeMutuallyExclusive matches Grape's refusal of parameters declared
// mutually_exclusive and sent together: 400 {"error":"<a>, <b> are mutually
// exclusive"} naming every one of names (ruby-grape/grape
// lib/grape/locale/en.yml v2.0.0, mutual_exclusion).
func BeMutuallyExclusive(names ...string) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r *Response) (bool, error) {
		e := r.Get("error")
		if r.Status != 400 || e.Type != gjson.String {
			return false, nil
		}
		text, ok := strings.CutSuffix(e.String(), " are mutually exclusive")
		if !ok {
			return false, nil
		}
		got := strings.Split(text, ", ")
		for _, n := range names {
			if !slices.Contains(got, n) {
				return false, nil
			}
		}
		return true, nil
	}).WithTemplate(fmt.Sprintf("Expected 400 {\"error\":\"%s are mutually exclusive\"}, got:\n{{.Actual}}", strings.Join(names, ", ")))
}

func BeValidationError(fields ...string) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r *Response) (bool, error) {
		if r.Status != 400 {
			return false, nil
		}
		msg := r.Get("message")
		if !msg.IsObject() {
			return false, nil
		}
		for _, f := range fields {
			v := msg.Get(f)
			if !v.IsArray() || len(v.Array()) == 0 {
				return false, nil
			}
		}
		return true, nil
	}).WithTemplate(fmt.Sprintf("Expected a 400 validation error naming %v, got:\n{{.Actual}}", fields))
}

// HaveHeader matches a response header; with no value it only needs to be
// present, with a value one of the header's values must equal it. Its failure
// message names what the header held and prints the whole answer.
func HaveHeader(name string, value ...string) types.GomegaMatcher {
	return headerMatcher{name: http.CanonicalHeaderKey(name), value: value}
}

type headerMatcher struct {
	name  string
	value []string
}

func (m headerMatcher) Match(actual any) (bool, error) {
	r, ok := actual.(*Response)
	if !ok {
		return false, fmt.Errorf("HaveHeader expects a *Response, got %T", actual)
	}
	vals, present := r.Header[m.name]
	if !present {
		return false, nil
	}
	return len(m.value) == 0 || slices.Contains(vals, m.value[0]), nil
}

func (m headerMatcher) FailureMessage(actual any) string {
	return m.message(actual, "Expected")
}

func (m headerMatcher) NegatedFailureMessage(actual any) string {
	return m.message(actual, "Expected no")
}

func (m headerMatcher) message(actual any, expected string) string {
	want := ""
	if len(m.value) > 0 {
		want = fmt.Sprintf(" %q", m.value[0])
	}
	got := "it is absent"
	r, _ := actual.(*Response)
	if r != nil {
		exchanges.name(r) // the message prints it with %v, not through Gomega's formatter
		if vals, ok := r.Header[m.name]; ok {
			got = fmt.Sprintf("it holds %q", vals)
		}
	}
	return fmt.Sprintf("%s header %s%s; %s, in:\n%v", expected, m.name, want, got, actual)
}
