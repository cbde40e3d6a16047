package reports

import (
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Redacted replaces every secret a report would otherwise show.
const Redacted = "[REDACTED]"

// secretHeaders carry credentials (Authentication section: PRIVATE-TOKEN,
// JOB-TOKEN, OAuth bearer; cookies for completeness).
var secretHeaders = map[string]bool{
	"Private-Token": true, "Job-Token": true, "Authorization": true, "Proxy-Authorization": true,
	"Cookie": true, "Set-Cookie": true, "X-Gitlab-Token": true, "Deploy-Token": true,
}

// secretKey says whether a JSON key or parameter name holds a secret:
// passwords, tokens, keys and credentials, but not their metadata
// (token_expires_at, password_expires_at).
func secretKey(name string) bool {
	n := strings.ToLower(strings.TrimSuffix(name, "[]"))
	switch n {
	case "password", "password_confirmation", "current_password", "new_password", "token", "private_token",
		"job_token", "access_token", "refresh_token", "id_token", "secret", "client_secret", "private_key",
		"api_key", "credentials", "authorization", "sudo_token", "runner_token", "registration_token",
		"secret_token", "token_secret", "otp", "otp_attempt":
		return true
	}
	for _, suffix := range []string{"_token", "_secret", "_password", "_private_key", "_api_key", "_credentials"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

var (
	// "key": "value" pairs in JSON text, complete or truncated bodies alike.
	jsonPair = regexp.MustCompile(`"([A-Za-z0-9_\[\]-]+)"(\s*:\s*)"((?:[^"\\]|\\.)*)"`)
	// The same pairs inside a quoted Go string, as Gomega prints bodies: \"key\": \"value\".
	escapedJSONPair = regexp.MustCompile(`\\"([A-Za-z0-9_\[\]-]+)\\"(\s*:\s*)\\"((?:[^"\\]|\\[^"])*)\\"`)
	// Credentials inside URLs (push-mirror URLs, remote URLs): scheme://user:secret@host.
	urlCredentials = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@"'<>]*:)[^@\s/"'<>]+@`)
	// Tokens recognisable by the platform's prefixes, wherever they appear.
	prefixedToken = regexp.MustCompile(`\b(glpat|gloas|glrt|glptt|gldt|glft|glimt|glagent|glsoat|glcbt|glffct|glrtr|glwt|ghp|gho)-[A-Za-z0-9_.\-]{6,}`)
	// name=value pairs in query strings and form bodies.
	formPair = regexp.MustCompile(`(^|[?&\s])([A-Za-z0-9_%\[\]-]+)=([^&\s#"]*)`)
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
		if !secretKey(sub[1]) || sub[3] == "" || sub[3] == Redacted {
			return m
		}
		return `"` + sub[1] + `"` + sub[2] + `"` + Redacted + `"`
	})
	s = escapedJSONPair.ReplaceAllStringFunc(s, func(m string) string {
		sub := escapedJSONPair.FindStringSubmatch(m)
		if !secretKey(sub[1]) || sub[3] == "" || sub[3] == Redacted {
			return m
		}
		return `\"` + sub[1] + `\"` + sub[2] + `\"` + Redacted + `\"`
	})
	s = formPair.ReplaceAllStringFunc(s, func(m string) string {
		sub := formPair.FindStringSubmatch(m)
		name, _ := url.QueryUnescape(sub[2])
		if !secretKey(name) || sub[3] == "" {
			return m
		}
		return sub[1] + sub[2] + "=" + Redacted
	})
	s = urlCredentials.ReplaceAllString(s, "${1}"+Redacted+"@")
	s = prefixedToken.ReplaceAllString(s, Redacted)
	return s
}

// Header redacts one header value by its name, then as text.
func (r *Redactor) Header(name, value string) string {
	if secretHeaders[http.CanonicalHeaderKey(name)] && value != "" {
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
