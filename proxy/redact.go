package proxy

import (
	"bytes"
	"encoding/json"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/v4cert/v4cert/specs"
)

// Redacted replaces every secret before a cassette reaches disk and before a
// replay match key is computed, so scrubbed cassettes still replay. What is
// secret is the one policy of package specs, which the reports follow too.
const Redacted = specs.Redacted

var redactedQuery = url.QueryEscape(Redacted)

// urlHeaders hold URLs whose query or user information may carry secrets.
var urlHeaders = map[string]bool{"Link": true, "Location": true, "Content-Location": true, "Referer": true}

// IsSecretName reports whether a parameter, field or header name holds a
// secret (specs.IsSecretName).
func IsSecretName(name string) bool { return specs.IsSecretName(name) }

// redactCredentialsIn hides what is secret by its look: user information in
// URLs and prefixed tokens (specs.RedactText).
func redactCredentialsIn(s string) string { return specs.RedactText(s) }

// secretsIn lists the values redactCredentialsIn hides in s, so they are
// hidden wherever else they reappear.
func secretsIn(s string, found *[]string) {
	if found == nil {
		return
	}
	if strings.Contains(s, "@") {
		for _, m := range specs.CredentialURL.FindAllStringSubmatch(s, -1) {
			*found = append(*found, m[2])
		}
	}
	if specs.MayHoldTokenText(s) {
		*found = append(*found, specs.TokenPattern.FindAllString(s, -1)...)
	}
}

// RedactURL hides secret query parameters and user information of a URL,
// keeping every other byte as it was.
func RedactURL(raw string) string {
	s := redactCredentialsIn(raw)
	q := strings.IndexByte(s, '?')
	if q < 0 {
		return s
	}
	frag := ""
	rest := s[q+1:]
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		rest, frag = rest[:h], rest[h:]
	}
	return s[:q+1] + redactQuery(rest, nil) + frag
}

// redactQuery hides the values of secret parameters in a raw query or form
// body, keeping other pairs byte for byte; found collects the hidden values.
func redactQuery(raw string, found *[]string) string {
	if raw == "" || !queryMayHoldSecret(raw) {
		return raw
	}
	changed := false
	pairs := strings.Split(raw, "&")
	masked := false // a masked variable's value=… (specs.IsMaskFlag)
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		if name, err := url.QueryUnescape(k); err == nil && specs.IsMaskFlag(name, v) {
			masked = true
		}
	}
	for i, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			val = v
		}
		if (specs.IsSecretName(name) || masked && name == specs.MaskedValue) && specs.IsSecretValue(name, val) {
			pairs[i] = k + "=" + redactedQuery
			changed = true
			if found != nil {
				*found = append(*found, val)
			}
			continue
		}
		if r := redactCredentialsIn(val); r != val {
			pairs[i] = k + "=" + url.QueryEscape(r)
			changed = true
		}
	}
	if !changed {
		return raw
	}
	return strings.Join(pairs, "&")
}

// queryMayHoldSecret is a first look at a raw query that lets the common
// one (page=2&per_page=20, every Link header of a list) through without
// splitting and unescaping it: no escapes, no user information, no
// prefixed token, and no name ending like a secret one.
func queryMayHoldSecret(raw string) bool {
	if strings.ContainsAny(raw, "%+@") || specs.MayHoldTokenText(raw) {
		return true
	}
	for rest := raw; rest != ""; {
		pair := rest
		if i := strings.IndexByte(rest, '&'); i >= 0 {
			pair, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		name, _, _ := strings.Cut(pair, "=")
		if mayBeSecretName([]byte(name)) {
			return true
		}
	}
	return false
}

// redactHeader returns h with credentials hidden, as a map of its own: a
// value slice with nothing to hide is shared with h, one that changes is a
// new slice, so h is never written to; found collects the hidden values.
func redactHeader(h http.Header, found *[]string) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		ck, secret := headerKind(k)
		var cp []string
		for i, v := range vs {
			var r string
			switch {
			case secret:
				r = Redacted
				if found != nil && v != "" {
					*found = append(*found, v)
					// "Bearer <token>": the token alone may appear elsewhere.
					if _, tok, ok := strings.Cut(v, " "); ok && len(tok) >= 8 {
						*found = append(*found, tok)
					}
				}
			case urlHeaders[ck]:
				r = redactLinks(v)
			default:
				r = redactCredentialsIn(v)
			}
			if r != v && cp == nil {
				cp = append(make([]string, 0, len(vs)), vs...)
			}
			if cp != nil {
				cp[i] = r
			}
		}
		if cp == nil {
			cp = vs
		}
		out[k] = cp
	}
	return out
}

// replaceInHeader hides every occurrence of the known secrets in h's
// values, replacing (never writing to) the slices that change: they may be
// shared with the exchange's own header (redactHeader).
func replaceInHeader(h http.Header, secrets []string) {
	if len(secrets) == 0 {
		return
	}
	for k, vs := range h {
		var out []string
		for i, v := range vs {
			nv := replaceAllString(v, secrets)
			if nv == v {
				continue
			}
			if out == nil {
				out = append([]string(nil), vs...)
				h[k] = out
			}
			out[i] = nv
		}
	}
}

// headerKinds caches, by header name as it came, the canonical name and
// whether it is a credential: the same few dozen names come with every
// exchange, and judging one (specs.IsSecretHeader) costs more than the rest
// of a header's redaction.
var (
	headerKinds     sync.Map // string → headerKindOf
	headerKindsKept atomic.Int32
)

type headerKindOf struct {
	canonical string
	secret    bool
}

func headerKind(name string) (string, bool) {
	if k, ok := headerKinds.Load(name); ok {
		hk := k.(headerKindOf)
		return hk.canonical, hk.secret
	}
	ck := http.CanonicalHeaderKey(name)
	hk := headerKindOf{ck, specs.IsSecretHeader(ck)}
	// Bounded: a client making up names must not make the proxy keep them all.
	if headerKindsKept.Add(1) <= 4096 {
		headerKinds.Store(name, hk)
	}
	return hk.canonical, hk.secret
}

// redactLinks applies RedactURL to every <uri> of a Link header (or to the
// whole value of Location). A value with nothing to hide (every page's
// links) comes back as it was, without being built again.
func redactLinks(v string) string {
	if !strings.Contains(v, "<") {
		return RedactURL(v)
	}
	var b strings.Builder
	done := 0 // v[:done] is in b, once something changed
	for rest := 0; ; {
		i := strings.IndexByte(v[rest:], '<')
		if i < 0 {
			break
		}
		i += rest
		j := strings.IndexByte(v[i:], '>')
		if j < 0 {
			break
		}
		j += i
		rest = j
		u := v[i+1 : j]
		r := RedactURL(u)
		if r == u {
			continue
		}
		if done == 0 {
			b.Grow(len(v) + 16)
		}
		b.WriteString(v[done : i+1])
		b.WriteString(r)
		done = j
	}
	if done == 0 {
		return v
	}
	b.WriteString(v[done:])
	return b.String()
}

// redactBody hides secrets in a request or response body by its content
// type: JSON fields, form parameters, multipart fields, and credentials in
// URLs anywhere. Bytes that are not secret stay as they were.
func redactBody(body []byte, contentType string, found *[]string) []byte {
	return redactBodyKnown(body, contentType, found, false)
}

// redactBodyKnown is redactBody told, by the check that read the same
// body, that no member name in it may be a secret's (noSecretNames): only
// what is secret by its look is left to find.
func redactBodyKnown(body []byte, contentType string, found *[]string, noSecretNames bool) []byte {
	if len(body) == 0 {
		return body
	}
	if noSecretNames && bytes.IndexByte(body, '@') < 0 && !specs.MayHoldToken(body) {
		return body
	}
	mt, params, _ := mime.ParseMediaType(contentType)
	switch {
	case mt == "application/x-www-form-urlencoded":
		return []byte(redactQuery(string(body), found))
	case mt == "multipart/form-data" && params["boundary"] != "":
		return redactMultipart(body, params["boundary"], found)
	}
	i := skipSpace(body, 0)
	if i < len(body) && (body[i] == '{' || body[i] == '[') {
		if out, ok := redactJSON(body, found); ok {
			return out
		}
	}
	// Other text (a job log, a raw file): what is secret by its look alone.
	if bytes.Contains(body, []byte("://")) || specs.MayHoldToken(body) {
		if s := string(body); utf8.ValidString(s) {
			if r := redactCredentialsIn(s); r != s {
				return []byte(r)
			}
		}
	}
	return body
}

type edit struct {
	start, end int
	with       []byte
}

var redactedJSON = []byte(`"` + Redacted + `"`)

// secretEndings are how every secret name specs.IsSecretName accepts ends,
// and the flags that make a sibling value secret (specs.IsMaskFlag: masked,
// masked_and_hidden).
var secretEndings = []string{"token", "password", "secret", "credentials", "credential", "key", "passphrase", "authorization", "confirmation", "otp", "attempt", "masked", "hidden"}

// mayHoldSecret is a cheap first look: most bodies (a page of users) name no
// secret field, carry no URL credentials and no prefixed token, and skip the
// walk entirely. It looks only at JSON keys (each ends with `":`), for an @
// anywhere and for a token prefix.
func mayHoldSecret(body []byte) bool {
	if bytes.IndexByte(body, '@') >= 0 || specs.MayHoldToken(body) {
		return true
	}
	for pos := 0; ; {
		k := bytes.Index(body[pos:], []byte(`":`))
		if k < 0 {
			return false
		}
		end := pos + k
		pos = end + 2
		start := max(0, end-40)
		if q := bytes.LastIndexByte(body[start:end], '"'); q >= 0 {
			start += q + 1
		}
		// An escaped name (pass\u0077ord) is read as what it may spell.
		if mayBeSecretName(body[start:end]) || bytes.IndexByte(body[start:end], '\\') >= 0 {
			return true
		}
	}
}

// mayBeSecretName is true for every name specs.IsSecretName accepts (and a
// few more): it ends like one, judged by the innermost name of user[password].
func mayBeSecretName(key []byte) bool {
	key = bytes.TrimSuffix(key, []byte("[]"))
	if k, ok := bytes.CutSuffix(key, []byte("]")); ok {
		key = k[bytes.LastIndexByte(k, '[')+1:]
	}
	for _, e := range secretEndings {
		if len(key) >= len(e) && asciiEqualFold(key[len(key)-len(e):], e) {
			return true
		}
	}
	return false
}

func asciiEqualFold(b []byte, lower string) bool {
	for i := range b {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// redactJSON walks the JSON in place and rewrites only the values to hide.
func redactJSON(body []byte, found *[]string) ([]byte, bool) {
	if !mayHoldSecret(body) {
		// No secret name and no user information: the body stays as it is,
		// JSON or not, so there is no need to read it through.
		return body, true
	}
	var edits []edit
	end, ok := redactWalk(body, skipSpace(body, 0), "", &edits, found, 0)
	if !ok || skipSpace(body, end) != len(body) {
		return nil, false
	}
	if len(edits) == 0 {
		return body, true
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].start < edits[b].start })
	var out bytes.Buffer
	out.Grow(len(body))
	last := 0
	for _, e := range edits {
		out.Write(body[last:e.start])
		out.Write(e.with)
		last = e.end
	}
	out.Write(body[last:])
	return out.Bytes(), true
}

func redactWalk(d []byte, i int, name string, edits *[]edit, found *[]string, depth int) (int, bool) {
	i = skipSpace(d, i)
	if i >= len(d) || depth > maxDepth {
		return 0, false
	}
	secret := name != "" && IsSecretName(name)
	start := i
	switch d[i] {
	case '{':
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == '}' {
			return i + 1, true
		}
		// A masked variable's value is secret by the flag beside it, which
		// may come before or after it (specs.IsMaskFlag).
		masked, value := false, -1
		for {
			if i >= len(d) || d[i] != '"' {
				return 0, false
			}
			kend, esc, ok := scanString(d, i)
			if !ok {
				return 0, false
			}
			key := stringValue(d[i:kend], esc)
			i = skipSpace(d, kend)
			if i >= len(d) || d[i] != ':' {
				return 0, false
			}
			vstart := skipSpace(d, i+1)
			if i, ok = redactWalk(d, i+1, key, edits, found, depth+1); !ok {
				return 0, false
			}
			switch {
			case key == specs.MaskedValue && d[vstart] == '"':
				value = vstart
			case specs.IsMaskFlag(key, string(d[vstart:i])):
				masked = true
			}
			var more bool
			if i, more = nextMember(d, i, '}'); i < 0 {
				return 0, false
			}
			if !more {
				break
			}
		}
		if masked && value >= 0 && !secret {
			vend, esc, _ := scanString(d, value)
			if v := stringValue(d[value:vend], esc); specs.IsSecretValue(specs.MaskedValue, v) {
				*edits = dropInside(*edits, value, vend)
				*edits = append(*edits, edit{value, vend, redactedJSON})
				if found != nil {
					*found = append(*found, strings.Clone(v))
				}
			}
		}
		if secret {
			*edits = dropInside(*edits, start, i)
			*edits = append(*edits, edit{start, i, redactedJSON})
			if found != nil {
				collectStrings(d[start:i], found)
			}
		}
		return i, true
	case '[':
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			// Elements of a secret array (tokens: [...]) are secret too.
			if i, ok = redactWalk(d, i, name, edits, found, depth+1); !ok {
				return 0, false
			}
			var more bool
			if i, more = nextMember(d, i, ']'); i < 0 {
				return 0, false
			}
			if !more {
				return i, true
			}
		}
	case '"':
		end, esc, ok := scanString(d, i)
		if !ok {
			return 0, false
		}
		s := stringValue(d[i:end], esc)
		if secret && specs.IsSecretValue(name, s) {
			if found != nil {
				*found = append(*found, strings.Clone(s))
			}
			*edits = append(*edits, edit{i, end, redactedJSON})
		} else if r := redactCredentialsIn(s); r != s {
			secretsIn(s, found)
			lit, _ := json.Marshal(r)
			*edits = append(*edits, edit{i, end, lit})
		}
		return end, true
	default:
		end, ok := skipValue(d, i, depth)
		return end, ok
	}
}

func dropInside(edits []edit, start, end int) []edit {
	out := edits[:0]
	for _, e := range edits {
		if e.start < start || e.end > end {
			out = append(out, e)
		}
	}
	return out
}

func collectStrings(d []byte, found *[]string) {
	var v any
	if json.Unmarshal(d, &v) != nil {
		return
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if len(x) >= 8 {
				*found = append(*found, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
}

// redactMultipart hides the values of secret fields of a multipart body by
// replacing their bytes in place, so boundaries and files stay intact.
func redactMultipart(body []byte, boundary string, found *[]string) []byte {
	r := multipart.NewReader(bytes.NewReader(body), boundary)
	var secrets []string
	masked, value := false, ""
	for {
		p, err := r.NextPart()
		if err != nil {
			break
		}
		name := p.FormName()
		if p.FileName() != "" || !mayBeSecretName([]byte(name)) && name != specs.MaskedValue {
			continue
		}
		var buf bytes.Buffer
		buf.ReadFrom(p)
		v := buf.String()
		switch {
		case specs.IsSecretName(name) && specs.IsSecretValue(name, v):
			secrets = append(secrets, v)
		case name == specs.MaskedValue:
			value = v
		case specs.IsMaskFlag(name, v):
			masked = true
		}
	}
	if masked && specs.IsSecretValue(specs.MaskedValue, value) {
		secrets = append(secrets, value)
	}
	if found != nil {
		*found = append(*found, secrets...)
	}
	return replaceAll(body, secrets)
}

// replaceAll hides every occurrence of each known secret: a token a request
// sent in a header must not reappear in a body or a link either.
func replaceAll(b []byte, secrets []string) []byte {
	for _, s := range secrets {
		if len(s) < 6 || s == Redacted {
			continue // short values would blank out ordinary text
		}
		if bytes.Contains(b, []byte(s)) {
			b = bytes.ReplaceAll(b, []byte(s), []byte(Redacted))
		}
	}
	return b
}

func replaceAllString(s string, secrets []string) string {
	for _, x := range secrets {
		if len(x) >= 6 && x != Redacted && strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, Redacted)
		}
	}
	return s
}
