package reports

import (
	"net/http"
	"strings"

	"github.com/v4cert/v4cert/specs"
)

// TokenVar is the shell variable a reproduce line takes the token from:
// reports never print the token itself.
const TokenVar = "V4CERT_TOKEN"

// Curl is a POSIX shell command that sends the exchange's request again, as
// Schemathesis prints one per failing check: method, URL, the headers that
// shape the answer, and the body, each quoted so that quotes, newlines and
// $ in them reach the target as they were sent. Credentials, which reports
// redact, come from $V4CERT_TOKEN. A body a report clipped cannot be sent
// again whole; the line then says so. Empty when the exchange has no
// request (a failure with no traffic).
func (e Exchange) Curl() string {
	if e.Method == "" || e.URL == "" {
		return ""
	}
	var b strings.Builder
	// -g: URLs carry [ ] (array parameters, [REDACTED]) that curl would glob.
	b.WriteString("curl -sS -i -g")
	if e.Method != http.MethodGet || e.RequestBody != "" {
		if e.Method == http.MethodHead {
			b.WriteString(" -I")
		} else {
			b.WriteString(" -X " + shellQuote(e.Method))
		}
	}
	for _, k := range sortedKeys(e.RequestHeaders) {
		v := e.RequestHeaders[k]
		switch http.CanonicalHeaderKey(k) {
		case "User-Agent", "Accept-Encoding", "Content-Length", "Host", "Connection", "Date":
			continue // the transport's, not the request's
		}
		b.WriteString(" -H ")
		if specs.IsSecretHeader(k) {
			prefix := ""
			if http.CanonicalHeaderKey(k) == "Authorization" {
				prefix = "Bearer "
				if scheme, _, ok := strings.Cut(v, " "); ok && scheme != Redacted {
					prefix = scheme + " "
				}
			}
			b.WriteString(shellQuote(k+": "+prefix) + `"$` + TokenVar + `"`)
			continue
		}
		b.WriteString(withToken(k + ": " + v))
	}
	if e.RequestBody != "" {
		b.WriteString(" --data-binary " + shellQuote(e.RequestBody))
	}
	b.WriteString(" " + withToken(e.URL))
	if clipped(e.RequestBody) {
		b.WriteString("  # the body was clipped in this report: the request sent more")
	}
	return b.String()
}

// withToken quotes s for the shell with every redacted secret in it (a
// private_token in the query) standing for $V4CERT_TOKEN.
func withToken(s string) string {
	parts := strings.Split(s, Redacted)
	for i, p := range parts {
		parts[i] = shellQuote(p)
	}
	return strings.Join(parts, `"$`+TokenVar+`"`)
}

// shellQuote quotes s as one POSIX shell word: inside single quotes nothing
// is special but the single quote itself, which is closed, escaped and
// reopened.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func clipped(body string) bool {
	i := strings.LastIndex(body, "… (")
	return i >= 0 && strings.HasSuffix(body, " characters in all)")
}
