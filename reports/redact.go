package reports

import (
	"encoding/json"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/v4cert/v4cert/specs"
)

// Redacted replaces every secret a report would otherwise show. What is
// secret is the one policy of package specs, which the proxy's cassettes
// follow too, so a report never prints what a cassette hides.
const Redacted = specs.Redacted

var (
	// "key": "value" pairs in JSON text, complete or truncated bodies alike.
	// Any member name, as the cassette's redaction reads them (user[password], "api key").
	jsonPair = regexp.MustCompile(`"((?:[^"\\]|\\.)+)"(\s*:\s*)"((?:[^"\\]|\\.)*)"`)
	// The same pairs inside a quoted Go string, as Gomega prints bodies: \"key\": \"value\".
	escapedJSONPair = regexp.MustCompile(`\\"((?:[^"\\]|\\[^"])+)\\"(\s*:\s*)\\"((?:[^"\\]|\\[^"])*)\\"`)
	// name=value pairs in query strings and form bodies.
	formPair = regexp.MustCompile(`(^|[?&\s])([A-Za-z0-9_%\[\]-]+)=([^&\s#"]*)`)
	// A masked variable (specs.IsMaskFlag): a flat JSON object, or a form,
	// that says masked, and the value beside the flag, JSON or Go-quoted.
	maskedObject = regexp.MustCompile(`\{[^{}]*\\?"masked(?:_and_hidden)?\\?"\s*:\s*true[^{}]*\}`)
	maskedForm   = regexp.MustCompile(`(?:^|[?&\s])masked(?:_and_hidden)?=true(?:[&\s#"]|$)`)
	valueMember  = regexp.MustCompile(`(\\?"value\\?"\s*:\s*\\?")((?:[^"\\]|\\[^"])*)(\\?")`)
	valuePair    = regexp.MustCompile(`(^|[?&\s])(value=)([^&\s#"]*)`)
)

// Redactor removes secrets from text meant for a report: the values it was
// told about (the administrator token given to certify) wherever they
// appear, and whatever looks like a secret by where it sits.
type Redactor struct {
	known []string
}

// NewRedactor returns a Redactor that also hides each of the given values.
func NewRedactor(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		if len(s) >= 4 { // shorter values would blot out ordinary text
			r.known = append(r.known, s)
		}
	}
	// Longest first, so a secret containing another is hidden whole.
	sort.Slice(r.known, func(i, j int) bool { return len(r.known[i]) > len(r.known[j]) })
	return r
}

// Text redacts free text: failure messages, bodies, URLs.
func (r *Redactor) Text(s string) string {
	if s == "" {
		return s
	}
	for _, k := range r.known {
		s = strings.ReplaceAll(s, k, Redacted)
	}
	s = jsonPair.ReplaceAllStringFunc(s, func(m string) string {
		sub := jsonPair.FindStringSubmatch(m)
		if name := jsonText(sub[1]); !specs.IsSecretName(name) || !specs.IsSecretValue(name, jsonText(sub[3])) {
			return m
		}
		return `"` + sub[1] + `"` + sub[2] + `"` + Redacted + `"`
	})
	s = escapedJSONPair.ReplaceAllStringFunc(s, func(m string) string {
		sub := escapedJSONPair.FindStringSubmatch(m)
		if !specs.IsSecretName(sub[1]) || !specs.IsSecretValue(sub[1], sub[3]) {
			return m
		}
		return `\"` + sub[1] + `\"` + sub[2] + `\"` + Redacted + `\"`
	})
	s = formPair.ReplaceAllStringFunc(s, func(m string) string {
		sub := formPair.FindStringSubmatch(m)
		name, _ := url.QueryUnescape(sub[2])
		value, err := url.QueryUnescape(sub[3])
		if err != nil {
			value = sub[3]
		}
		if !specs.IsSecretName(name) || !specs.IsSecretValue(name, value) {
			return m
		}
		return sub[1] + sub[2] + "=" + Redacted
	})
	s = maskedObject.ReplaceAllStringFunc(s, func(m string) string {
		return valueMember.ReplaceAllStringFunc(m, func(v string) string {
			sub := valueMember.FindStringSubmatch(v)
			if !specs.IsSecretValue(specs.MaskedValue, jsonText(sub[2])) {
				return v
			}
			return sub[1] + Redacted + sub[3]
		})
	})
	if maskedForm.MatchString(s) {
		s = valuePair.ReplaceAllStringFunc(s, func(m string) string {
			sub := valuePair.FindStringSubmatch(m)
			if !specs.IsSecretValue(specs.MaskedValue, sub[3]) {
				return m
			}
			return sub[1] + sub[2] + Redacted
		})
	}
	return specs.RedactText(s)
}

// jsonText decodes the content of a JSON string (escapes and all); text
// that does not decode, such as a truncated body's, stays as it is.
func jsonText(raw string) string {
	var s string
	if json.Unmarshal([]byte(`"`+raw+`"`), &s) != nil {
		return raw
	}
	return s
}

// Header redacts one header value by its name, then as text.
func (r *Redactor) Header(name, value string) string {
	if specs.IsSecretHeader(name) && value != "" {
		return Redacted
	}
	return r.Text(value)
}

// Exchange returns a copy of e with every secret redacted.
func (r *Redactor) Exchange(e Exchange) Exchange {
	out := e
	out.URL = r.Text(e.URL)
	out.RequestBody = r.Text(e.RequestBody)
	out.ResponseBody = r.Text(e.ResponseBody)
	out.RequestHeaders = r.headers(e.RequestHeaders)
	out.ResponseHeaders = r.headers(e.ResponseHeaders)
	return out
}

func (r *Redactor) headers(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k, v := range h {
		out[k] = r.Header(k, v)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
