package specs

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// exportDoc exports the rulebook with the schema files beside it.
func exportDoc(t *testing.T) map[string]any {
	t.Helper()
	out, err := Default().OpenAPIFromFS("test", os.DirFS("../schemas"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

var httpMethods = map[string]bool{"get": true, "head": true, "post": true, "put": true, "patch": true, "delete": true}

// operations returns every operation of the document by operationId, with
// the path it sits under.
func operations(doc map[string]any) map[string]struct {
	path string
	op   map[string]any
} {
	out := map[string]struct {
		path string
		op   map[string]any
	}{}
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if httpMethods[method] {
				o := op.(map[string]any)
				out[o["operationId"].(string)] = struct {
					path string
					op   map[string]any
				}{path, o}
			}
		}
	}
	return out
}

// TestOpenAPIExport checks what the ecosystem's tools need of the export:
// every endpoint an operation, every reference resolving, every path
// parameter declared, the pagination headers on every paginated operation,
// servers and security schemes, no $ref beside other keywords, and the
// allowed values of array parameters on their items. (kin-openapi's own
// validation runs in specs/openapitest.)
func TestOpenAPIExport(t *testing.T) {
	doc := exportDoc(t)
	book := Default()
	ops := operations(doc)
	placeholder := regexp.MustCompile(`\{([^}]+)\}`)
	for _, e := range book.Endpoints {
		o, ok := ops[e.ID]
		if !ok {
			t.Errorf("endpoint %s has no operation", e.ID)
			continue
		}
		declared := map[string]bool{}
		params, _ := o.op["parameters"].([]any)
		for _, p := range params {
			pm := p.(map[string]any)
			if ref, ok := pm["$ref"].(string); ok {
				pm = resolve(doc, ref).(map[string]any)
			}
			if pm["in"] == "path" {
				declared[pm["name"].(string)] = true
			}
			if s, _ := pm["schema"].(map[string]any); s["type"] == "array" && s["enum"] != nil {
				t.Errorf("%s: parameter %s puts its enum on the array, not its items", e.ID, pm["name"])
			}
		}
		for _, m := range placeholder.FindAllStringSubmatch(o.path, -1) {
			if !declared[m[1]] {
				t.Errorf("%s: path parameter {%s} of %s is not declared", e.ID, m[1], o.path)
			}
		}
		if e.paginated() {
			ok := o.op["responses"].(map[string]any)[itoa(e.Status)].(map[string]any)
			headers, _ := ok["headers"].(map[string]any)
			for _, h := range PaginationHeaders {
				if headers[h] == nil {
					t.Errorf("%s: paginated, but its answer does not declare %s", e.ID, h)
				}
			}
		}
		if len(o.op["security"].([]any)) == 0 {
			t.Errorf("%s: no security requirement", e.ID)
		}
	}
	servers := doc["servers"].([]any)
	if len(servers) == 0 || !strings.Contains(servers[0].(map[string]any)["url"].(string), "{base_url}") {
		t.Errorf("servers: %v", servers)
	}
	schemes := doc["components"].(map[string]any)["securitySchemes"].(map[string]any)
	for name, want := range map[string]string{"privateToken": "PRIVATE-TOKEN", "privateTokenQuery": "private_token", "jobToken": "JOB-TOKEN", "jobTokenQuery": "job_token"} {
		if s, _ := schemes[name].(map[string]any); s == nil || s["name"] != want {
			t.Errorf("security scheme %s: %v", name, s)
		}
	}
	if s, _ := schemes["bearer"].(map[string]any); s == nil || s["scheme"] != "bearer" {
		t.Errorf("no bearer scheme: %v", schemes)
	}
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if resolve(doc, ref) == nil {
					t.Errorf("%s: unresolved $ref %s", where, ref)
				}
				if len(x) > 1 {
					t.Errorf("%s: $ref %s has sibling keywords %v", where, ref, keys(x))
				}
			}
			for k, val := range x {
				walk(where+"/"+k, val)
			}
		case []any:
			for i, val := range x {
				walk(where+"/"+itoa(i), val)
			}
		}
	}
	walk("#", doc)
}

// TestVariantsExport: the simple form of a project list is part of the
// answer's declared shapes.
func TestVariantsExport(t *testing.T) {
	doc := exportDoc(t)
	o := operations(doc)["groups.projects"].op
	s, _ := json.Marshal(o["responses"].(map[string]any)["200"])
	if !strings.Contains(string(s), "#/components/schemas/project_simple") || !strings.Contains(string(s), "#/components/schemas/project_embedded") {
		t.Errorf("groups.projects answers: %s", s)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// resolve follows a local reference, or returns nil.
func resolve(doc map[string]any, ref string) any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var cur any = doc
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[part]; !ok {
			return nil
		}
	}
	return cur
}

// TestPlatformExport: every reviewed rule's platform note reaches its
// operation, a class-3 rule's with diverges, so a reader of the export sees
// why a rule says what it says.
func TestPlatformExport(t *testing.T) {
	ops := operations(exportDoc(t))
	book := Default()
	diverging := 0
	for _, r := range book.Rules {
		if r.Endpoint == "" || r.Platform == nil {
			continue
		}
		notes, _ := ops[r.Endpoint].op["x-v4cert-platform"].(map[string]any)
		note, _ := notes[r.ID].(map[string]any)
		if note == nil {
			t.Errorf("%s: no x-v4cert-platform note on %s", r.ID, r.Endpoint)
			continue
		}
		if note["does"] != r.Platform.Does || note["source"] != r.Platform.Source {
			t.Errorf("%s: note %v, want the rulebook's does and source", r.ID, note)
		}
		if d, _ := note["diverges"].(bool); d != r.Platform.Diverges {
			t.Errorf("%s: diverges %v in the export, %v in the rulebook", r.ID, d, r.Platform.Diverges)
		}
		if r.Platform.Diverges {
			diverging++
		}
	}
	if diverging == 0 {
		t.Error("no class-3 rule with an endpoint reached the export: bulk_imports.create.3 should")
	}
}

func TestDivergenceLabel(t *testing.T) {
	book := Default()
	r := book.Rule("errors.missing.1")
	got := r.Divergence()
	if !strings.HasPrefix(got, DivergencePrefix+": the platform does this: ") || !strings.Contains(got, r.Platform.Does) || !strings.HasSuffix(got, "("+r.Platform.Source+")") {
		t.Errorf("label %q", got)
	}
	if l := book.Rule("errors.validation.1").Divergence(); l != "" {
		t.Errorf("a class-2 rule is labelled %q", l)
	}
}
