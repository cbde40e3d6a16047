package specs

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenAPIExport checks that every endpoint becomes an operation and that
// every reference in the document resolves inside it.
func TestOpenAPIExport(t *testing.T) {
	docs := map[string][]byte{}
	files, err := filepath.Glob("../schemas/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("schemas: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[strings.TrimSuffix(filepath.Base(f), ".json")] = b
	}
	book := Default()
	out, err := book.OpenAPI("test", docs)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	for _, item := range doc["paths"].(map[string]any) {
		for _, op := range item.(map[string]any) {
			ops[op.(map[string]any)["operationId"].(string)] = true
		}
	}
	for _, e := range book.Endpoints {
		if !ops[e.ID] {
			t.Errorf("endpoint %s has no operation", e.ID)
		}
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && !resolves(doc, ref) {
				t.Errorf("unresolved $ref %s", ref)
			}
			for _, val := range x {
				walk(val)
			}
		case []any:
			for _, val := range x {
				walk(val)
			}
		}
	}
	walk(doc)
}

func resolves(doc map[string]any, ref string) bool {
	if !strings.HasPrefix(ref, "#/") {
		return false
	}
	var cur any = doc
	for _, part := range strings.Split(ref[2:], "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[part]; !ok {
			return false
		}
	}
	return true
}
