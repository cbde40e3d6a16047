package specs

import (
	"bytes"
	"net/http"
	"regexp"
	"strings"
)

// The one secret policy: what counts as a secret wherever v4cert writes
// traffic down. The proxy's cassettes and violations and the certification
// reports both follow it, so a report never prints what a cassette hides.
// It lives beside the rulebook because it reads the spec's Authentication
// section (PRIVATE-TOKEN, JOB-TOKEN, bearer, private_token, job_token) and
// its resources' secret fields (runners_token, passwords, keys, mirror URLs).

// Redacted replaces every secret.
const Redacted = "[REDACTED]"

// secretHeaders carry credentials (Authentication 1 and 2), sessions, or a
// CAPTCHA answer (Errors 6). Any header whose name is a secret name
// (X-Api-Key) counts too.
var secretHeaders = map[string]bool{
	"Private-Token": true, "Job-Token": true, "Authorization": true, "Proxy-Authorization": true,
	"Cookie": true, "Set-Cookie": true, "X-Svc-Captcha-Response": true, "X-Gitlab-Token": true, "Deploy-Token": true,
}

// IsSecretHeader reports whether a header's value is a credential.
func IsSecretHeader(name string) bool {
	return secretHeaders[http.CanonicalHeaderKey(name)] || IsSecretName(name)
}

// IsSecretName reports whether a parameter, field or header name holds a
// secret: passwords and passphrases, tokens (token, *_token: private_token,
// job_token, runners_token…), keys, secrets, credentials and one-time
// passwords — not their metadata (token_expires_at). A bracketed form such
// as user[password] or token[] is judged by its innermost name.
func IsSecretName(name string) bool {
	n := innermost(name)
	n = strings.ReplaceAll(n, "-", "_")
	switch n {
	case "password", "password_confirmation", "current_password", "new_password", "passphrase",
		"token", "secret", "credentials", "credential", "authorization", "key", "private_key", "secret_key",
		"otp", "otp_attempt":
		return true
	}
	for _, suffix := range []string{"_token", "_password", "_passphrase", "_secret", "_credentials", "_key"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

func innermost(name string) string {
	n := strings.ToLower(strings.TrimSuffix(name, "[]"))
	if i := strings.LastIndexByte(n, '['); i >= 0 {
		n = strings.TrimSuffix(n[i+1:], "]")
	}
	return n
}

// IsSecretValue reports whether the value of a secret-named field is worth
// hiding: booleans and empty values say nothing (reset_password=true). Under
// "key" the API puts both names and key material. A CI/CD variable's or a
// custom attribute's key is the NAME of a value ({"key":"CI_SERVER_VERSION_MAJOR",
// "value":"17"}; the platform allows /\A[a-zA-Z0-9_]+\z/ up to 255 there,
// gitlabhq/gitlabhq app/models/concerns/ci/has_variable.rb @1363ca12), while a
// deploy, SSH, GPG or Pages domain key is the material itself (ssh-ed25519
// AAAA…, a PEM block). A short plain word or a snake_case name is kept;
// anything else under "key" is hidden.
func IsSecretValue(name, v string) bool {
	if v == "" || v == "true" || v == "false" || v == Redacted {
		return false
	}
	if innermost(name) == "key" && isKeyName(v) {
		return false
	}
	return true
}

// A CI/CD variable marked masked is a secret its owner declared: the
// platform hides its value in job logs (and a hidden one in answers too).
// Its value travels beside the flag, {"key":…,"value":…,"masked":true}, in
// the variables API (gitlabhq/gitlabhq lib/api/entities/ci/variable.rb
// @495a5c79) and in the runner's job payload (lib/gitlab/ci/variables/
// collection/item.rb @0a412bce, to_runner_variable), and as
// masked=true&value=… (or masked_and_hidden=true) when a client creates one.
// An unmasked value is one the platform prints in job logs itself: it stays,
// so a replayed variable list still reads as recorded.
const MaskedValue = "value"

// IsMaskFlag reports whether a member or parameter declares the value
// beside it (MaskedValue) secret: masked or masked_and_hidden set true.
func IsMaskFlag(name, v string) bool {
	n := innermost(name)
	return (n == "masked" || n == "masked_and_hidden") && v == "true"
}

// isKeyName tells a name under "key" from key material: a short word
// without spaces, or a variable name — letters, digits and underscores in
// words joined by "_", its letters all of one case (CI_SERVER_VERSION_MAJOR,
// deploy_region). Key material is long and has spaces (ssh-rsa AAAA…, PEM),
// or is random text: mixed-case base64 or hex, without an underscore between
// words.
func isKeyName(v string) bool {
	if len(v) < 20 && !strings.ContainsAny(v, " \n") {
		return true
	}
	if len(v) > 255 || !strings.Contains(v, "_") {
		return false
	}
	upper, lower := false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9', c == '_':
		default:
			return false
		}
	}
	return !(upper && lower)
}

// CredentialURL finds user information in URLs (https://user:pass@host, as
// in push-mirror URLs): scheme://userinfo@. User information made only of
// asterisks and colons is already masked (the mirror URLs of answers,
// https://*****:*****@host) and stays, so the masking stays visible.
var CredentialURL = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.\-]*://)([^/?#@\s"'<>]*[^/?#@\s"'<>*:][^/?#@\s"'<>]*)@`)

// tokenPrefixes are how the platform's tokens begin (personal, OAuth,
// runner, pipeline trigger, deploy, feed, incoming mail, agent, SCIM, CI
// build, feature flags, runner registration, workspace tokens), so a token
// is recognised wherever it appears.
var tokenPrefixes = []string{"glpat", "gloas", "glrt", "glptt", "gldt", "glft", "glimt", "glagent", "glsoat", "glcbt", "glffct", "glrtr", "glwt"}

// TokenPattern matches a token by its prefix.
var TokenPattern = regexp.MustCompile(`\b(?:` + strings.Join(tokenPrefixes, "|") + `)-[A-Za-z0-9_.\-]{6,}`)

// MayHoldToken is a cheap test that a body might contain a prefixed token.
func MayHoldToken(b []byte) bool {
	return mayHoldToken(b, func(b []byte) int { return bytes.Index(b, []byte("gl")) })
}

// MayHoldTokenText is MayHoldToken for a string.
func MayHoldTokenText(s string) bool {
	return mayHoldToken(s, func(s string) int { return strings.Index(s, "gl") })
}

func mayHoldToken[T ~string | ~[]byte](s T, indexGL func(T) int) bool {
	for i := 0; ; {
		j := indexGL(s[i:])
		if j < 0 {
			return false
		}
		i += j
		for _, p := range tokenPrefixes {
			if len(s)-i > len(p) && string(s[i:i+len(p)]) == p && s[i+len(p)] == '-' {
				return true
			}
		}
		i += 2
	}
}

// RedactText hides what is secret by its look alone, wherever it stands:
// user information in URLs and prefixed tokens. Text without either comes
// back unchanged.
func RedactText(s string) string {
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = CredentialURL.ReplaceAllString(s, "${1}"+Redacted+"@")
	}
	if MayHoldTokenText(s) {
		s = TokenPattern.ReplaceAllString(s, Redacted)
	}
	return s
}
