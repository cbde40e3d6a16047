package specs

import (
	"net/http"
	"strings"
	"testing"
)

func TestMatchRequest(t *testing.T) {
	expectMatches(t, "MatchRequest", Default().MatchRequest, []matchCase{
		{"GET", "/api/v4/users", "users.list"},
		{"GET", "/api/v4/users?per_page=2", "users.list"},
		{"GET", "/api/v4/groups/a%2Fb/members", "members.group.list"},
		{"GET", "/api/v4/groups/a/b/members", ""}, // un-encoded: no endpoint (Endpoints 2)
		{"HEAD", "/api/v4/projects/1/repository/files/a.txt", "files.head"},
		{"HEAD", "/api/v4/users/1", "users.get"}, // HEAD as GET
		{"GET", "/jwt/auth", "registry.native.auth"},
		{"DELETE", "/v2/group/project/image/manifests/v1", "registry.native.manifest-delete"},
		{"GET", "/v2/_catalog", "registry.native.catalog"},
		{"GET", "/api/v4x/users", ""},
		{"GET", "/elsewhere", ""},
	})
}

func TestExpectBody(t *testing.T) {
	b := Default()
	projects := b.Endpoint("groups.projects")
	user := b.Endpoint("users.get")
	for _, c := range []struct {
		e                   *Endpoint
		method, path, query string
		status              int
		want                BodyRule
	}{
		{projects, "GET", "/api/v4/groups/1/projects", "", 200, BodyRule{Schema: "project_embedded", Array: true}},
		{projects, "GET", "/api/v4/groups/1/projects", "simple=true", 200, BodyRule{Schema: "project_simple", Array: true}},
		{projects, "GET", "/api/v4/groups/1/projects", "simple=false", 200, BodyRule{Schema: "project_embedded", Array: true}},
		// The platform reads simple=1, yes, on, TRUE... as true (BoolWord).
		{projects, "GET", "/api/v4/groups/1/projects", "simple=1", 200, BodyRule{Schema: "project_simple", Array: true}},
		{projects, "GET", "/api/v4/groups/1/projects", "simple=yes", 200, BodyRule{Schema: "project_simple", Array: true}},
		{projects, "GET", "/api/v4/groups/1/projects", "simple=TRUE", 200, BodyRule{Schema: "project_simple", Array: true}},
		{projects, "GET", "/api/v4/groups/1/projects", "simple=0", 200, BodyRule{Schema: "project_embedded", Array: true}},
		{projects, "GET", "/api/v4/groups/1/projects", "simple=tRuE", 200, BodyRule{Schema: "project_embedded", Array: true}},
		{user, "GET", "/api/v4/users/1", "", 404, BodyRule{Schema: ErrorSchema, MayBeEmpty: true}},
		{nil, "GET", "/api/v4/nothing", "", 404, BodyRule{Schema: ErrorSchema, MayBeEmpty: true}},
		{nil, "GET", "/elsewhere", "", 404, BodyRule{}},
		// The platform's rate limiter answers 429 in plain text.
		{user, "GET", "/api/v4/users/1", "", 429, BodyRule{Schema: ErrorSchema, MayBeEmpty: true, MayBePlainText: true}},
		{nil, "GET", "/api/v4/nothing", "", 429, BodyRule{Schema: ErrorSchema, MayBeEmpty: true, MayBePlainText: true}},
		{user, "HEAD", "/api/v4/users/1", "", 200, BodyRule{}},
		{user, "GET", "/api/v4/users/1", "", 204, BodyRule{MustBeEmpty: true}},
		{user, "GET", "/api/v4/users/1", "", 201, BodyRule{}}, // not its success status
	} {
		if got := ExpectBody(c.e, c.method, c.path, c.query, c.status); got != c.want {
			t.Errorf("%s %s?%s → %d: %+v, want %+v", c.method, c.path, c.query, c.status, got, c.want)
		}
	}
}

// An anonymous caller of GET /projects and /projects/:id is judged against
// the platform's basic form (projects.anonymous.1); a credential in a
// header or a parameter, even redacted in a cassette, selects the full form.
func TestExpectBodyForAnonymousCaller(t *testing.T) {
	b := Default()
	get, list := b.Endpoint("projects.get"), b.Endpoint("projects.list")
	withToken := http.Header{"Private-Token": {Redacted}}
	for _, c := range []struct {
		e      *Endpoint
		header http.Header
		query  string
		want   string
	}{
		{get, nil, "", "project_basic"},
		{get, http.Header{"Content-Type": {"application/json"}}, "", "project_basic"},
		{get, withToken, "", "project"},
		{get, http.Header{"Authorization": {"Bearer x"}}, "", "project"},
		{get, http.Header{"Job-Token": {"x"}}, "", "project"},
		{get, nil, "private_token=x", "project"},
		{get, nil, "access_token=x&statistics=true", "project"},
		{list, nil, "search=a", "project_basic"},
		{list, withToken, "search=a", "project"},
	} {
		anon := Anonymous(c.header, c.query)
		if got := ExpectBodyFor(c.e, "GET", "/api/v4/projects/1", c.query, 200, anon); got.Schema != c.want || got.Array != c.e.Array {
			t.Errorf("%s %v ?%s: %+v, want schema %s", c.e.ID, c.header, c.query, got, c.want)
		}
	}
	// ExpectBody judges a caller with a credential.
	if got := ExpectBody(get, "GET", "/api/v4/projects/1", "", 200); got.Schema != "project" {
		t.Errorf("ExpectBody: %+v, want project", got)
	}
	// A parameter variant comes before the caller's.
	projects := b.Endpoint("groups.projects")
	if got := projects.SchemaForCaller("simple=true", true); got != "project_simple" {
		t.Errorf("groups.projects simple=true anonymous: %s", got)
	}
}

func TestDeprecatedIn(t *testing.T) {
	b := Default()
	del := b.Endpoint("registry.tags.bulk-delete")
	if got := del.DeprecatedIn(map[string][]string{"name_regex": {".*"}}); len(got) != 1 || got[0].String() != "parameter name_regex is deprecated (use name_regex_delete)" {
		t.Errorf("name_regex: %v", got)
	}
	if got := del.DeprecatedIn(map[string][]string{"name_regex_delete": {".*"}}); len(got) != 0 {
		t.Errorf("name_regex_delete: %v", got)
	}
	list := b.Endpoint("runners.list")
	if got := list.DeprecatedIn(map[string][]string{"status": {"active"}, "type": {"instance_type"}}); len(got) != 1 || got[0].Value != "active" {
		t.Errorf("status=active: %v", got)
	}
	if got := list.DeprecatedIn(map[string][]string{"status": {"online"}}); len(got) != 0 {
		t.Errorf("status=online: %v", got)
	}
	if !del.HasDeprecatedParams() || b.Endpoint("users.get").HasDeprecatedParams() {
		t.Error("HasDeprecatedParams")
	}
}

func TestSecretPolicy(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "user[password]": true, "PRIVATE-TOKEN": true, "private_token": true, "runners_token": true,
		"token[]": true, "key": true, "api_key": true, "X-Api-Key": true, "passphrase": true, "otp": true, "otp_attempt": true,
		"client_secret": true, "credentials": true, "token_expires_at": false, "password_expires_at": false, "name": false,
		"keyset": false, "tokens_count": false,
	} {
		if IsSecretName(name) != want {
			t.Errorf("IsSecretName(%q) = %v", name, !want)
		}
	}
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"password", "hunter2", true}, {"password", "", false}, {"reset_password", "true", false},
		{"key", "shirt", false}, {"key", "ssh-ed25519 AAAAC3Nza", true}, {"key", strings.Repeat("k", 24), true},
		// A variable's name is not a secret, whatever its length (this was hidden
		// as [REDACTED] until it was told from key material by its shape).
		{"key", "CI_SERVER_VERSION_MAJOR", false}, {"variables[][key]", "deploy_region_for_production", false},
		{"key", "AbCdEf0123456789XyZ_AbCdEf", true}, {"key", "0123456789abcdef0123456789abcdef", true},
		{"key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE", true}, {"key", "_LEADING_UNDERSCORE_NAME", false},
		{"token", Redacted, false},
	} {
		if IsSecretValue(c.name, c.value) != c.want {
			t.Errorf("IsSecretValue(%q, %q) = %v", c.name, c.value, !c.want)
		}
	}
	for in, want := range map[string]string{
		"https://user:pw@host/x.git":          "https://" + Redacted + "@host/x.git",
		"https://*****:*****@host/x.git":      "https://*****:*****@host/x.git",
		"token glpat-abcdef123456 here":       "token " + Redacted + " here",
		"glrt-short":                          "glrt-short",
		"global glue-x":                       "global glue-x",
		"no secret at all, just text@example": "no secret at all, just text@example",
	} {
		if got := RedactText(in); got != want {
			t.Errorf("RedactText(%q) = %q, want %q", in, got, want)
		}
	}
	if !IsSecretHeader("Job-Token") || !IsSecretHeader("x-svc-captcha-response") || IsSecretHeader("Content-Type") {
		t.Error("IsSecretHeader")
	}
}

// BoolWord is the platform's coercion of a boolean parameter (dry-types
// 1.7.1 Params::Bool): exact, case-sensitive words.
func TestBoolWord(t *testing.T) {
	for word, want := range map[string]bool{
		"true": true, "True": true, "TRUE": true, "t": true, "T": true, "yes": true, "Yes": true, "YES": true,
		"y": true, "Y": true, "on": true, "On": true, "ON": true, "1": true,
		"false": false, "False": false, "FALSE": false, "f": false, "F": false, "no": false, "No": false, "NO": false,
		"n": false, "N": false, "off": false, "Off": false, "OFF": false, "0": false,
	} {
		if got, ok := BoolWord(word); !ok || got != want {
			t.Errorf("BoolWord(%q) = %v, %v; want %v", word, got, ok, want)
		}
	}
	for _, word := range []string{"", "maybe", "2", "-1", "1.0", "truee", "tRuE", "yEs", "oN", "nO", " true", "false "} {
		if _, ok := BoolWord(word); ok {
			t.Errorf("BoolWord(%q) accepted", word)
		}
	}
}
