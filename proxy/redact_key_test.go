package proxy

import (
	"net/http"
	"strings"
	"testing"
)

// TestRedactKeepsVariableNames: a CI/CD variable's key is the name of its
// value. Before, every value of 20 bytes or more under "key" was hidden, so
// {"key":"CI_SERVER_VERSION_MAJOR","value":"17"} reached the cassette as
// {"key":"[REDACTED]","value":"17"} and a replayed variable list named
// nothing. Key material under the same field (a deploy key, a PEM block, a
// random API key) is still hidden, in requests and answers alike.
func TestRedactKeepsVariableNames(t *testing.T) {
	body := []byte(`[{"variable_type":"env_var","key":"CI_SERVER_VERSION_MAJOR","value":"17","protected":false},` +
		`{"key":"deploy_region_for_production","value":"eu"},` +
		`{"id":3,"title":"deploy","key":"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey0material"},` +
		`{"domain":"pages.example.com","key":"-----BEGIN RSA PRIVATE KEY-----\nMIIEsecret\n-----END RSA PRIVATE KEY-----"},` +
		`{"key":"Zx8kQ2mN4pR7tV1wY3aB5cD"}]`)
	ex := &Exchange{Method: "GET", URL: "http://x/api/v4/projects/1/variables", Path: "/api/v4/projects/1/variables",
		ReqHeader: http.Header{}, Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
	got := interactionOf(ex).Response.Body
	for _, kept := range []string{`"key":"CI_SERVER_VERSION_MAJOR","value":"17"`, `"key":"deploy_region_for_production"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("a variable's name was hidden: want %s in\n%s", kept, got)
		}
	}
	for _, hidden := range []string{"AAAAC3NzaC1lZDI1NTE5AAAAIKey0material", "MIIEsecret", "Zx8kQ2mN4pR7tV1wY3aB5cD"} {
		if strings.Contains(got, hidden) {
			t.Errorf("key material %q reached the cassette:\n%s", hidden, got)
		}
	}
	// The form a client creates a variable with: the name stays, as in the answer.
	form := redactQuery("key=CI_SERVER_VERSION_MAJOR&value=17&private_token=SECRET-private-token-0001", nil)
	if form != "key=CI_SERVER_VERSION_MAJOR&value=17&private_token="+redactedQuery {
		t.Errorf("form redacted as %s", form)
	}
}

// TestCheckShareKeepsRedaction: the check tells the cassette's redaction
// that a body has no secret-named member only when it read every name. A
// page of users with nothing secret gets the shortcut; the same page with a
// secret member planted at the top level or deep inside an object the
// schema does not describe is still redacted.
func TestCheckShareKeepsRedaction(t *testing.T) {
	page := `[{"id":1,"username":"a-user","name":"A User","state":"active","locked":false,"avatar_url":null,"web_url":"http://x/a-user"}]`
	c := NewChecker(nil)
	inspect := func(body string) *Exchange {
		ex := &Exchange{Method: "GET", URL: "http://x/api/v4/users", Path: "/api/v4/users", ReqHeader: http.Header{}, Status: 200,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(body)}
		c.Inspect(ex)
		return ex
	}
	if ex := inspect(page); !ex.noSecretNames {
		t.Fatal("a plain page of users did not get the shortcut: the check and the redaction read it twice")
	}
	for _, body := range []string{
		strings.Replace(page, `"locked":false`, `"locked":false,"private_token":"SECRET-planted-top-0001"`, 1),
		strings.Replace(page, `"locked":false`, `"locked":false,"custom":{"deep":[{"runner_token":"SECRET-planted-deep-0002"}]}`, 1),
		strings.Replace(page, `"locked":false`, `"locked":false,"pass\u0077ord":"SECRET-planted-escaped-0003"`, 1),
	} {
		ex := inspect(body)
		if got := interactionOf(ex).Response.Body; strings.Contains(got, "SECRET-planted") {
			t.Errorf("a planted secret reached the cassette (shortcut %v):\n%s", ex.noSecretNames, got)
		}
	}
}

// TestRedactMaskedVariableValues: a CI/CD variable marked masked is a secret
// its owner declared (specs.IsMaskFlag), in the variables API, in the
// runner's job payload and in the request that creates it, whichever side of
// the value the flag stands on. Before, every such value reached the cassette
// in clear. An unmasked variable's value stays, and so do the names.
func TestRedactMaskedVariableValues(t *testing.T) {
	answer := []byte(`[{"variable_type":"env_var","key":"DEPLOY_SECRET","value":"s3cr3t-deploy-value","protected":true,"masked":true},` +
		`{"masked":true,"key":"API_PASS","value":"another-masked-v4lue","hidden":false},` +
		`{"variable_type":"env_var","key":"REGION","value":"eu-west-1","masked":false}]`)
	payload := []byte(`{"id":7,"variables":[{"key":"CI_JOB_ID","value":"7","public":true,"masked":false},` +
		`{"key":"MY_MASKED","value":"runner-side-m4sked","public":false,"masked":true}]}`)
	ex := func(path string, body []byte) *Exchange {
		return &Exchange{Method: "GET", URL: "http://x" + path, Path: path, ReqHeader: http.Header{}, Status: 200,
			Header: http.Header{"Content-Type": {"application/json"}}, Body: body}
	}
	got := interactionOf(ex("/api/v4/projects/1/variables", answer)).Response.Body +
		interactionOf(ex("/api/v4/jobs/request", payload)).Response.Body
	for _, hidden := range []string{"s3cr3t-deploy-value", "another-masked-v4lue", "runner-side-m4sked"} {
		if strings.Contains(got, hidden) {
			t.Errorf("masked value %q reached the cassette:\n%s", hidden, got)
		}
	}
	for _, kept := range []string{`"key":"DEPLOY_SECRET","value":"[REDACTED]"`, `"value":"eu-west-1"`, `"key":"CI_JOB_ID","value":"7"`, `"key":"MY_MASKED"`} {
		if !strings.Contains(got, kept) {
			t.Errorf("want %s in\n%s", kept, got)
		}
	}
	// Creating one: the form, and a JSON body with its value found secret
	// wherever the answer echoes it.
	for _, form := range []string{"key=DEPLOY_SECRET&value=form-m4sked-value&masked=true", "masked_and_hidden=true&key=K&value=form-m4sked-value"} {
		if got := redactQuery(form, nil); strings.Contains(got, "form-m4sked-value") || !strings.Contains(got, "value="+redactedQuery) {
			t.Errorf("form %s redacted as %s", form, got)
		}
	}
	if got := redactQuery("key=REGION&value=eu-west-1&masked=false", nil); got != "key=REGION&value=eu-west-1&masked=false" {
		t.Errorf("an unmasked variable's form changed: %s", got)
	}
	post := &Exchange{Method: "POST", URL: "http://x/api/v4/projects/1/variables", Path: "/api/v4/projects/1/variables",
		ReqHeader: http.Header{"Content-Type": {"application/json"}}, ReqBody: []byte(`{"key":"K","value":"json-m4sked-value","masked":true}`),
		Status: 201, Header: http.Header{"Content-Type": {"text/plain"}}, Body: []byte("created K = json-m4sked-value")}
	in := interactionOf(post)
	if strings.Contains(in.Request.Body, "json-m4sked-value") || strings.Contains(in.Response.Body, "json-m4sked-value") {
		t.Errorf("a masked value sent in a request reached the cassette:\n%s\n%s", in.Request.Body, in.Response.Body)
	}
}
