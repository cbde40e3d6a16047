package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reference/apitest"
	"github.com/v4cert/v4cert/specs"
)

// bindCase is one endpoint of the rulebook with its declared (non-path)
// parameters, as a test sends them.
type bindCase struct {
	e      *specs.Endpoint
	params []specs.Param
}

// bindCases lists every endpoint under /api/v4 with parameters to bind.
func bindCases() []bindCase {
	var out []bindCase
	for _, e := range specs.Default().Endpoints {
		if !e.UnderAPI() {
			continue
		}
		bc := bindCase{e: e}
		for _, p := range e.Params {
			if !e.InPath(p.Name) {
				bc.params = append(bc.params, p)
			}
		}
		if len(bc.params) > 0 {
			out = append(out, bc)
		}
	}
	return out
}

// concretePath fills an endpoint's placeholders with values that route; the
// binding answers before any handler looks them up.
func concretePath(e *specs.Endpoint) string {
	segs := strings.Split(e.Path, "/")
	for i, s := range segs {
		switch {
		case s == ":file_path":
			segs[i] = "README.md"
		case s == ":slug":
			segs[i] = "pipelines-email"
		case s == ":sha", s == ":branch", s == ":tag_name", s == ":key":
			segs[i] = "main"
		case strings.HasPrefix(s, ":"):
			segs[i] = "1"
		}
	}
	return "/api/v4" + strings.Join(segs, "/")
}

// bindBody builds the parameters of a request: every declared one but skip,
// with override replacing one value. Bracketed names (range[start]) go inside
// their hash.
func bindBody(params []specs.Param, skip map[string]bool, override map[string]any) map[string]any {
	body := map[string]any{}
	for _, p := range params {
		if skip[p.Name] {
			continue
		}
		val := apitest.ValidValue(p)
		if o, ok := override[p.Name]; ok {
			val = o
		}
		if base, key, nested := strings.Cut(p.Name, "["); nested {
			h, ok := body[base].(map[string]any)
			if !ok {
				if _, set := body[base]; set {
					continue // the hash itself is overridden with a non-hash
				}
				h = map[string]any{}
				body[base] = h
			}
			h[strings.TrimSuffix(key, "]")] = val
			continue
		}
		body[p.Name] = val
	}
	return body
}

// send sends body to e the way a client would: the query string for GET,
// HEAD and DELETE, a JSON body (form when form is true) otherwise.
func (a *apiClient) send(e *specs.Endpoint, body map[string]any, form bool) (int, []byte) {
	a.t.Helper()
	path := strings.TrimPrefix(concretePath(e), "/api/v4")
	switch {
	case e.Method == http.MethodGet || e.Method == http.MethodHead || e.Method == http.MethodDelete:
		if q := apitest.EncodeQuery(body); q != "" {
			path += "?" + q
		}
		return a.doRaw(e.Method, path, "", "")
	case form:
		return a.doRaw(e.Method, path, "application/x-www-form-urlencoded", apitest.EncodeQuery(body))
	}
	b, _ := json.Marshal(body)
	return a.doRaw(e.Method, path, "application/json", string(b))
}

// expectParamError checks a 400 naming the parameter: a missing one in the
// Errors rule 2 shape, an invalid one in the platform's Grape envelope
// ({"error":"<name> is invalid"}, or "does not have a valid value" for a
// value of the right type outside its set); HEAD answers carry no body.
func expectParamError(t *testing.T, what string, e *specs.Endpoint, status int, body []byte, name string, missing bool) {
	t.Helper()
	if status != http.StatusBadRequest {
		t.Errorf("%s %s %s: %d %s, want 400", e.ID, e.Method, what, status, body)
		return
	}
	if e.Method == http.MethodHead {
		return
	}
	var got struct{ Message, Error string }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Errorf("%s %s %s: body %s is not JSON", e.ID, e.Method, what, body)
		return
	}
	if missing {
		if want := fmt.Sprintf(`400 (Bad request) %q not given`, name); got.Message != want {
			t.Errorf("%s %s %s: body %s, want message %q", e.ID, e.Method, what, body, want)
		}
		return
	}
	if got.Error != name+" is invalid" && got.Error != name+" does not have a valid value" {
		t.Errorf("%s %s %s: body %s, want error %q", e.ID, e.Method, what, body, name+" is invalid")
	}
}

// TestEveryRequiredParameterIsBound walks every endpoint of the rulebook and
// every required parameter: with everything else sent, the answer is the
// missing-attribute 400 (Errors rule 2) naming it, whatever the handler
// would have made of the rest (query, JSON and form bodies alike).
func TestEveryRequiredParameterIsBound(t *testing.T) {
	a := newAPI(t)
	required := 0
	for _, bc := range bindCases() {
		for _, p := range bc.params {
			if !p.Required {
				continue
			}
			required++
			skip := map[string]bool{p.Name: true}
			if p.RequiredUnless != "" {
				skip[p.RequiredUnless] = true
			}
			for _, form := range []bool{false, true} {
				status, body := a.send(bc.e, bindBody(bc.params, skip, nil), form)
				expectParamError(t, "without "+p.Name, bc.e, status, body, p.Name, true)
				// JSON null is no value either.
				status, body = a.send(bc.e, bindBody(bc.params, skip, map[string]any{p.Name: nil}), false)
				expectParamError(t, p.Name+": null", bc.e, status, body, p.Name, true)
			}
			if p.RequiredUnless != "" {
				// The alternative stands in for it.
				delete(skip, p.RequiredUnless)
				status, body := a.send(bc.e, bindBody(bc.params, skip, nil), false)
				if status == http.StatusBadRequest && bytes.Contains(body, []byte(p.Name+`\" not given`)) {
					t.Errorf("%s: %s given, still %s", bc.e.ID, p.RequiredUnless, body)
				}
			}
		}
	}
	if required < 60 {
		t.Fatalf("only %d required parameters in the rulebook: is the walk broken?", required)
	}
	t.Logf("%d required parameters bound", required)
}

// TestEveryParameterIsTypeChecked sends, for every declared parameter of
// every endpoint, values of the wrong type, outside the value set, and
// arrays or hashes where scalars are declared (and the reverse): each is a
// 400 naming the parameter, before any handler runs.
func TestEveryParameterIsTypeChecked(t *testing.T) {
	a := newAPI(t)
	checked := 0
	for _, bc := range bindCases() {
		for _, p := range bc.params {
			for what, val := range apitest.WrongValues(p) {
				checked++
				for _, form := range []bool{false, true} {
					status, body := a.send(bc.e, bindBody(bc.params, nil, map[string]any{p.Name: val}), form)
					expectParamError(t, fmt.Sprintf("%s %s (form %v)", p.Name, what, form), bc.e, status, body, p.Name, false)
				}
			}
		}
	}
	t.Logf("%d wrong values refused", checked)
}
