package apitest

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/v4cert/v4cert/specs"
)

// ValidValue is a value of p's declared type (and value set).
func ValidValue(p specs.Param) any {
	first := func(def string) string {
		if len(p.Values) > 0 {
			return p.Values[0]
		}
		return def
	}
	switch p.Type {
	case "integer":
		return 1
	case "boolean":
		return true
	case "datetime":
		return "2026-01-01T00:00:00Z"
	case "date":
		return "2026-01-01"
	case "hash":
		return map[string]any{"k": "v"}
	case "file":
		return ""
	case "array":
		switch p.Items {
		case "hash":
			return []any{map[string]any{"k": "v"}}
		case "integer":
			return []any{1}
		}
		return []any{first("x")}
	}
	return first("x")
}

// EncodeQuery writes body as a query string with name[], name[key] and
// name[i][key], as clients send arrays and hashes (Endpoints convention 5).
func EncodeQuery(body map[string]any) string {
	var parts []string
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(prefix+"["+k+"]", x[k])
			}
		case []any:
			for i, e := range x {
				if _, isMap := e.(map[string]any); isMap {
					walk(fmt.Sprintf("%s[%d]", prefix, i), e)
				} else {
					walk(prefix+"[]", e)
				}
			}
		default:
			parts = append(parts, url.QueryEscape(prefix)+"="+url.QueryEscape(fmt.Sprint(x)))
		}
	}
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		walk(k, body[k])
	}
	return strings.Join(parts, "&")
}

// WrongValues are, per declared type, values of another type or shape:
// arrays and hashes where a scalar is declared, and the reverse.
func WrongValues(p specs.Param) map[string]any {
	arr, hash := []any{"1"}, map[string]any{"a": "1"}
	w := map[string]any{}
	switch p.Type {
	case "string":
		w["array"], w["hash"] = arr, hash
	case "integer":
		w["word"], w["fraction"], w["huge"], w["array"], w["hash"] = "abc", "1.5", "99999999999999999999999", arr, hash
	case "boolean":
		// Words and numbers outside the platform's coercion (specs.BoolWord):
		// yes, 1 and the empty string are booleans (or absent) there.
		w["word"], w["mixed case"], w["two"], w["array"], w["hash"] = "maybe", "tRuE", 2, arr, hash
	case "datetime":
		w["word"], w["array"], w["hash"] = "yesterday", arr, hash
	case "date":
		w["word"], w["month 13"], w["array"], w["hash"] = "soon", "2026-13-01", arr, hash
	case "hash":
		w["scalar"], w["array"] = "v", []any{"v"}
	case "file":
		w["text"], w["array"] = "not a file", arr
	case "array":
		w["hash"] = hash
		switch p.Items {
		case "hash":
			w["scalar"], w["array of scalars"] = "v", []any{"v"}
		case "integer":
			w["word"], w["array of words"], w["array of hashes"] = "x", []any{"x"}, []any{hash}
		default:
			w["array of hashes"] = []any{hash}
		}
	}
	if len(p.Values) > 0 {
		w["outside the value set"] = "not-a-value"
		if p.Type == "array" {
			w["outside the value set"] = []any{"not-a-value"}
		}
	}
	return w
}

// ValidParam is a value of p that names something in the world, so that an
// unspoiled request reaches as deep into its handler as it can.
func (w *World) ValidParam(p specs.Param) any {
	byName := map[string]any{
		"branch": "main", "ref": "main", "commit_message": "fuzz", "content": "fuzz\n", "name": "fuzz", "title": "fuzz",
		"path": "fuzz", "email": "fuzz@example.com", "username": "fuzz", "user_id": w.Users["gina"], "access_level": 30,
		"group_id": w.Invited.ID, "group_access": 30, "source_topic_id": w.Topic, "target_topic_id": w.Topic,
		"note": "fuzz", "body": "fuzz", "tag_name": "fuzz-tag", "url": "https://example.com/fuzz.git",
		"package_name_pattern": "@fuzz/*", "token": "no-such-token", "value": "fuzz", "name_regex_delete": "^fuzz$",
		"scopes":        []any{"api"},
		"configuration": map[string]any{"url": "http://127.0.0.1:1", "access_token": "x"},
		"entities":      []any{map[string]any{"source_type": "group_entity", "source_full_path": "no-such", "destination_slug": "fuzz", "destination_namespace": "world"}},
		"actions":       []any{map[string]any{"action": "create", "file_path": "fuzz.txt", "content": "fuzz"}},
	}
	if v, ok := byName[p.Name]; ok {
		return v
	}
	return ValidValue(p)
}
