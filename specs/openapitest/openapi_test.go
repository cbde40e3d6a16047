package openapitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/schemas"
	"github.com/v4cert/v4cert/specs"
)

func load(t *testing.T) *openapi3.T {
	t.Helper()
	data, err := specs.Default().OpenAPIFromFS("test", schemas.FS())
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		t.Fatalf("kin-openapi cannot load the export: %v", err)
	}
	return doc
}

// TestExportValidates fails on any error kin-openapi finds in the export.
func TestExportValidates(t *testing.T) {
	doc := load(t)
	if err := doc.Validate(context.Background(), openapi3.EnableMultiError()); err != nil {
		t.Fatalf("kin-openapi refuses the export:\n%v", err)
	}
	if got, want := len(operations(doc)), len(specs.Default().Endpoints); got != want {
		t.Errorf("%d operations for %d endpoints", got, want)
	}
}

func operations(doc *openapi3.T) map[string]*openapi3.Operation {
	out := map[string]*openapi3.Operation{}
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			out[op.OperationID] = op
		}
	}
	return out
}

// TestReferenceAnswersMatchTheExport sends requests to the reference and
// has kin-openapi's request and response validation judge them against the
// exported document: the export describes what the reference really does,
// the pagination headers included.
func TestReferenceAnswersMatchTheExport(t *testing.T) {
	const token = "glpat-openapi-root-token-000000"
	inst, err := reference.New(reference.Config{RootToken: token, Seed: "demo", FixedClock: true})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	srv := httptest.NewServer(inst.Server)
	defer srv.Close()

	doc := load(t)
	doc.Servers = openapi3.Servers{{URL: srv.URL}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/users?per_page=2", ""},
		{"GET", "/users/1", ""},
		{"GET", "/user", ""},
		{"GET", "/groups?per_page=5", ""},
		{"GET", "/groups/demo", ""},
		{"GET", "/groups/demo/projects?simple=true", ""},
		{"GET", "/groups/demo/projects", ""},
		{"GET", "/groups/demo/members/all", ""},
		{"GET", "/projects?per_page=3", ""},
		{"GET", "/projects/demo%2Fwebsite", ""},
		{"GET", "/projects/demo%2Fwebsite/repository/commits", ""},
		{"GET", "/topics", ""},
		{"GET", "/users/999999", ""},
		{"POST", "/groups", `{"name":"Exported","path":"exported"}`},
		{"POST", "/groups", `{}`},
	} {
		var body io.Reader
		if c.body != "" {
			body = strings.NewReader(c.body)
		}
		req, _ := http.NewRequest(c.method, srv.URL+"/api/v4"+c.path, body)
		req.Header.Set("PRIVATE-TOKEN", token)
		if c.body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Errorf("%s %s: no operation of the export routes it: %v", c.method, c.path, err)
			continue
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		if c.body != "{}" { // the empty body is sent to see the 400 answer
			if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
				t.Errorf("%s %s: the request does not satisfy the export: %v", c.method, c.path, err)
			}
		}
		if c.body != "" {
			req.Body = io.NopCloser(strings.NewReader(c.body))
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(res.Body)
		res.Body.Close()
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
			Options: &openapi3filter.Options{IncludeResponseStatus: true}}
		out.SetBodyBytes(got)
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("%s %s → %d: the answer does not satisfy the export: %v\n%s", c.method, c.path, res.StatusCode, err, clip(got))
		}
		// The same answer with its body broken must fail, or the check above
		// proves nothing.
		if broken := breakBody(got); broken != nil {
			out.SetBodyBytes(broken)
			if err := openapi3filter.ValidateResponse(context.Background(), out); err == nil {
				t.Errorf("%s %s → %d: a broken body passes the export too: %s", c.method, c.path, res.StatusCode, clip(broken))
			}
		}
		if res.StatusCode == 200 && route.Operation.Extensions["x-v4cert-pagination"] != nil {
			for _, h := range []string{"X-Total", "X-Page", "X-Per-Page", "Link"} {
				if route.Operation.Responses.Status(200).Value.Headers[h] == nil || res.Header.Get(h) == "" {
					t.Errorf("%s %s: pagination header %s declared %v, sent %q", c.method, c.path, h,
						route.Operation.Responses.Status(200).Value.Headers[h] != nil, res.Header.Get(h))
				}
			}
		}
	}
}

// breakBody turns a JSON object (or the first element of an array) into
// one whose every member is a JSON array, which no schema of the API allows
// for all of them; nil when the body is neither.
func breakBody(b []byte) []byte {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	obj, _ := v.(map[string]any)
	if arr, ok := v.([]any); ok && len(arr) > 0 {
		obj, _ = arr[0].(map[string]any)
	}
	if obj == nil {
		return nil
	}
	for k := range obj {
		obj[k] = []any{[]any{}}
	}
	out, _ := json.Marshal(v)
	return out
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(bytes.TrimSpace(b[:600])) + "…"
	}
	return string(b)
}
