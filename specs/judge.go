package specs

import (
	"mime"
	"net/http"
	"net/url"
	"strings"
)

// The one judge of an exchange: which endpoint a request is and what its
// answer's body must be. The suites' client and the proxy both ask here, so
// a body the suites accept is one the proxy accepts, and the other way round.

// MatchRequest finds the endpoint of a request from its method and escaped
// path as sent to the server root (/api/v4/groups/a%2Fb/members, or
// /v2/group/image/manifests/latest on the registry host). Under /api/v4 it
// matches as Match does; elsewhere it falls back to the token issuer's and
// the registry host's endpoints (MatchRoot). HEAD falls back to GET, which
// servers answer for HEAD (Go's net/http among them). A query, if any, is
// ignored.
func (b *Rulebook) MatchRequest(method, escapedPath string) *Endpoint {
	if i := strings.IndexByte(escapedPath, '?'); i >= 0 {
		escapedPath = escapedPath[:i]
	}
	e := b.MatchRoot(method, escapedPath)
	if e == nil && method == http.MethodHead {
		e = b.MatchRoot(http.MethodGet, escapedPath)
	}
	return e
}

// Variant is a request parameter, or the caller, that changes the shape of
// an endpoint's success answer: Param=Value selects Schema instead of the
// endpoint's own (GET /groups/:id/projects with simple=true answers the
// simple form); Caller anonymous selects it for a request that carries no
// credential (GET /projects answers such a caller the basic form).
type Variant struct {
	Param  string `yaml:"param,omitempty" json:"param,omitempty"`
	Value  string `yaml:"value,omitempty" json:"value,omitempty"`
	Caller string `yaml:"caller,omitempty" json:"caller,omitempty"`
	Schema string `yaml:"schema" json:"schema"`
}

// CallerAnonymous is the one caller a variant can name.
const CallerAnonymous = "anonymous"

// SchemaFor is the schema of the endpoint's success body for a request with
// the given raw query from a caller with a credential: a parameter
// variant's when the query selects one, else Schema.
func (e *Endpoint) SchemaFor(rawQuery string) string { return e.SchemaForCaller(rawQuery, false) }

// SchemaForCaller is SchemaFor for a caller who may be anonymous: a
// parameter variant first (the query names the form), then a caller variant.
func (e *Endpoint) SchemaForCaller(rawQuery string, anonymous bool) string {
	if len(e.Variants) == 0 {
		return e.Schema
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		q = nil
	}
	for _, v := range e.Variants {
		if v.Param != "" && q != nil && e.variantSelected(v, q.Get(v.Param)) {
			return v.Schema
		}
	}
	if anonymous {
		for _, v := range e.Variants {
			if v.Caller == CallerAnonymous {
				return v.Schema
			}
		}
	}
	return e.Schema
}

// credentialParams are the query parameters that carry a credential
// (Authentication 1 and 2).
var credentialParams = []string{"private_token", "access_token", "job_token"}

// Anonymous reports whether a request carries no credential: no
// credential header (PRIVATE-TOKEN, JOB-TOKEN, Authorization, a session
// cookie, a deploy token) and no private_token, access_token or job_token
// parameter. A recording that keeps the header with its value redacted
// still says a credential was sent.
func Anonymous(h http.Header, rawQuery string) bool {
	for _, name := range []string{"Private-Token", "Job-Token", "Authorization", "Cookie", "Deploy-Token"} {
		if h.Get(name) != "" {
			return false
		}
	}
	if rawQuery == "" {
		return true
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return true
	}
	for _, name := range credentialParams {
		if q.Get(name) != "" {
			return false
		}
	}
	return true
}

// variantSelected reports whether a parameter's value selects v: the same
// value, or for a boolean one the platform reads as the same (simple=1
// selects the simple form as simple=true does; see BoolWord).
func (e *Endpoint) variantSelected(v Variant, got string) bool {
	if got == v.Value {
		return true
	}
	if p := e.Param(v.Param); p != nil && p.Type == "boolean" {
		want, ok1 := BoolWord(v.Value)
		read, ok2 := BoolWord(got)
		return ok1 && ok2 && want == read
	}
	return false
}

// BodyRule is what an answer's body must be.
type BodyRule struct {
	// Schema names the schema the body must match; empty when the rulebook
	// says nothing about this body.
	Schema string
	// Array: the body is an array of Schema.
	Array bool
	// MayBeEmpty: an empty body is acceptable too (error answers: "Body
	// format of errors other than those in rules 2 to 6: not shown").
	MayBeEmpty bool
	// MustBeEmpty: the status carries no body (204, 304).
	MustBeEmpty bool
	// MayBePlainText: a text/plain body is acceptable too. The platform's
	// rate limiter answers 429 in plain text ("Retry later", Rack::Attack's
	// throttled responder, lib/gitlab/rack_attack.rb), and the spec shows no
	// body for a 429.
	MayBePlainText bool
}

// ErrorSchema is the shape common to every error body (Errors 2–6).
const ErrorSchema = "error"

// ExpectBody says what the body of an answer must be: e is the endpoint
// the request matched (nil when none), escapedPath its path from the server
// root. HEAD answers carry no body and are not judged here; 204 and 304 must
// be empty; errors (400 and above) on the API or on a known endpoint match
// the error shape, or are empty; the success status of an endpoint with a
// schema matches that schema (or the variant the query selects).
func ExpectBody(e *Endpoint, method, escapedPath, rawQuery string, status int) BodyRule {
	return ExpectBodyFor(e, method, escapedPath, rawQuery, status, false)
}

// ExpectBodyFor is ExpectBody for a request whose caller may be anonymous
// (see Anonymous): a caller variant of the endpoint's schema applies to it.
func ExpectBodyFor(e *Endpoint, method, escapedPath, rawQuery string, status int, anonymous bool) BodyRule {
	switch {
	case method == http.MethodHead:
		return BodyRule{}
	case status == http.StatusNoContent || status == http.StatusNotModified:
		return BodyRule{MustBeEmpty: true}
	case status >= 400:
		if e == nil && !underAPI(escapedPath) {
			return BodyRule{} // not the API's: another server's error page
		}
		rule := BodyRule{Schema: ErrorSchema, MayBeEmpty: true, MayBePlainText: status == http.StatusTooManyRequests}
		if e != nil {
			// The registry host and the token issuer answer in the registry's own envelope.
			rule.Schema = e.ErrorSchema()
		}
		return rule
	case e != nil && status == e.Status && e.Schema != "":
		return BodyRule{Schema: e.SchemaForCaller(rawQuery, anonymous), Array: e.Array}
	}
	return BodyRule{}
}

func underAPI(escapedPath string) bool {
	p, ok := strings.CutPrefix(escapedPath, "/api/v4")
	return ok && (p == "" || p[0] == '/' || p[0] == '?')
}

// IsPlainText reports whether a Content-Type names text/plain.
func IsPlainText(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/plain"
}

// IsJSON reports whether a Content-Type names JSON (application/json or a
// +json type), as every body with a schema must be sent.
func IsJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// Deprecation is a deprecated element a request uses: a parameter, or a
// deprecated value of one (Versioning 6).
type Deprecation struct {
	Param string
	Value string // the deprecated value sent, when the value is what is deprecated
	Use   string // what replaces it, when the rulebook says
}

// String describes the deprecation for a finding.
func (d Deprecation) String() string {
	s := "parameter " + d.Param
	if d.Value != "" {
		s += "=" + d.Value
	}
	s += " is deprecated"
	if d.Use != "" {
		s += " (use " + d.Use + ")"
	}
	return s
}

// HasDeprecatedParams reports whether any parameter of e, or any of its
// values, is deprecated: only then is a request worth reading for them.
func (e *Endpoint) HasDeprecatedParams() bool {
	for _, p := range e.Params {
		if p.Deprecated || len(p.DeprecatedValues) > 0 {
			return true
		}
	}
	return false
}

// DeprecatedIn returns the deprecated parameters and values a request to e
// sends: values holds its parameters by name (query and body alike; a name
// may carry [] or [key] suffixes, as arrays and hashes travel).
func (e *Endpoint) DeprecatedIn(values map[string][]string) []Deprecation {
	var out []Deprecation
	for _, p := range e.Params {
		if !p.Deprecated && len(p.DeprecatedValues) == 0 {
			continue
		}
		for name, vs := range values {
			if base, _, _ := strings.Cut(name, "["); base != p.Name {
				continue
			}
			if p.Deprecated {
				out = append(out, Deprecation{Param: p.Name, Use: p.ReplacedBy})
				break
			}
			for _, v := range vs {
				for _, dv := range p.DeprecatedValues {
					if v == dv {
						out = append(out, Deprecation{Param: p.Name, Value: v, Use: p.ReplacedBy})
					}
				}
			}
		}
	}
	return out
}
