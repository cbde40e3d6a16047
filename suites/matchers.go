package suites

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/onsi/gomega/gcustom"
	"github.com/onsi/gomega/types"

	"v4cert/schemas"
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

// BeValidationError matches Errors rule 3, with an entry for each of fields.
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

// HaveHeader matches a response header; with no value it only needs to be present.
func HaveHeader(name string, value ...string) types.GomegaMatcher {
	return gcustom.MakeMatcher(func(r *Response) (bool, error) {
		vals, ok := r.Header[http_canonical(name)]
		if !ok {
			return false, nil
		}
		if len(value) == 0 {
			return true, nil
		}
		for _, v := range vals {
			if v == value[0] {
				return true, nil
			}
		}
		return false, nil
	}).WithTemplate(fmt.Sprintf("Expected header %s %v, got headers %%v:\n{{.Actual}}", name, value))
}

func http_canonical(name string) string {
	parts := strings.Split(strings.ToLower(name), "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "-")
}
