package specs

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// OpenAPI exports the rulebook as an OpenAPI 3.1 document, so tools of the
// wider ecosystem (mock servers, client generators, linters) can use it.
// schemaDocs maps schema names (without .json) to their JSON Schema documents;
// their file references are rewritten to components. Each operation lists its
// rule IDs under x-v4cert-rules.
func (b *Rulebook) OpenAPI(version string, schemaDocs map[string][]byte) ([]byte, error) {
	components := map[string]any{}
	for name, raw := range schemaDocs {
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		components[name] = rewriteRefs(doc, name)
	}
	paths := map[string]map[string]any{}
	for _, e := range b.Endpoints {
		p := e.Prefix() + strings.TrimSuffix(e.Pattern(), "/{$}")
		if strings.HasSuffix(e.Path, "/") {
			p += "/"
		}
		if paths[p] == nil {
			paths[p] = map[string]any{}
		}
		op, err := b.operation(e, components)
		if err != nil {
			return nil, err
		}
		paths[p][strings.ToLower(e.Method)] = op
	}
	components["error"] = componentOr(components, "error", map[string]any{"type": "object"})
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Development Platform REST API v4 (v4cert rulebook)",
			"version":     version,
			"description": "Generated from the v4cert rulebook " + b.Digest + ". Provisioning operations carry x-v4cert-provisioning: true.",
		},
		"paths": paths,
		"components": map[string]any{
			"schemas": components,
			"securitySchemes": map[string]any{
				"privateToken": map[string]any{"type": "apiKey", "in": "header", "name": "PRIVATE-TOKEN"},
				"jobToken":     map[string]any{"type": "apiKey", "in": "header", "name": "JOB-TOKEN"},
			},
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}

func componentOr(c map[string]any, name string, def any) any {
	if v, ok := c[name]; ok {
		return v
	}
	return def
}

func (b *Rulebook) operation(e *Endpoint, components map[string]any) (map[string]any, error) {
	var params []any
	for _, seg := range e.segments {
		if strings.HasPrefix(seg, ":") {
			params = append(params, map[string]any{"name": seg[1:], "in": "path", "required": true,
				"description": "an integer ID, or a URL-encoded path", "schema": map[string]any{"type": "string"}})
		}
	}
	inPath := map[string]bool{}
	for _, seg := range e.segments {
		if strings.HasPrefix(seg, ":") {
			inPath[seg[1:]] = true
		}
	}
	props := map[string]any{}
	var required []string
	for _, p := range e.Params {
		if inPath[p.Name] {
			continue
		}
		s := paramSchema(p)
		if e.Method == http.MethodGet || e.Method == http.MethodHead || e.Method == http.MethodDelete {
			q := map[string]any{"name": p.Name, "in": "query", "required": p.Required, "schema": s}
			if p.Type == "array" {
				q["name"] = p.Name + "[]"
			}
			if p.Type == "hash" {
				q["style"], q["explode"] = "deepObject", true
			}
			params = append(params, q)
			continue
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	op := map[string]any{
		"operationId": e.ID,
		"tags":        []string{e.Area},
		"summary":     e.Method + " " + e.Path,
		"security":    security(e),
		"responses":   responses(e, components),
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if len(props) > 0 {
		body := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			sort.Strings(required)
			body["required"] = required
		}
		op["requestBody"] = map[string]any{"content": map[string]any{
			"application/json":                  map[string]any{"schema": body},
			"application/x-www-form-urlencoded": map[string]any{"schema": body},
		}}
	}
	var rules []string
	for _, r := range b.RulesOf(e.ID) {
		rules = append(rules, r.ID)
	}
	if len(rules) > 0 {
		op["x-v4cert-rules"] = rules
	}
	if e.Provisioning {
		op["x-v4cert-provisioning"] = true
	}
	if e.Pagination != "" && e.Pagination != "none" {
		op["x-v4cert-pagination"] = e.Pagination
	}
	if e.Deprecated {
		op["deprecated"] = true
	}
	return op, nil
}

func security(e *Endpoint) []any {
	s := []any{map[string]any{"privateToken": []string{}}}
	if e.JobToken {
		s = append(s, map[string]any{"jobToken": []string{}})
	}
	if e.Who == "anonymous" {
		s = append(s, map[string]any{})
	}
	return s
}

func paramSchema(p Param) map[string]any {
	var s map[string]any
	switch p.Type {
	case "integer":
		s = map[string]any{"type": "integer"}
	case "boolean":
		s = map[string]any{"type": "boolean"}
	case "datetime":
		s = map[string]any{"type": "string", "format": "date-time"}
	case "date":
		s = map[string]any{"type": "string", "format": "date"}
	case "array":
		items := map[string]any{}
		switch p.Items {
		case "integer":
			items["type"] = "integer"
		case "hash":
			items["type"] = "object"
		case "string":
			items["type"] = "string"
		}
		s = map[string]any{"type": "array", "items": items}
	case "hash":
		s = map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}}
	case "file":
		s = map[string]any{"type": "string", "contentMediaType": "application/octet-stream"}
	default:
		s = map[string]any{"type": "string"}
	}
	if len(p.Values) > 0 {
		if items, ok := s["items"].(map[string]any); ok {
			items["enum"] = p.Values // the value set of each element
		} else {
			s["enum"] = p.Values
		}
	}
	if p.Default != nil {
		s["default"] = p.Default
	}
	var notes []string
	if p.Admin {
		notes = append(notes, "administrators only")
	}
	if p.Paid {
		notes = append(notes, "paid tier")
	}
	if len(notes) > 0 {
		s["description"] = strings.Join(notes, "; ")
	}
	return s
}

func responses(e *Endpoint, components map[string]any) map[string]any {
	out := map[string]any{}
	ok := map[string]any{"description": http.StatusText(e.Status)}
	if e.Schema != "" {
		var s any = map[string]any{"$ref": "#/components/schemas/" + e.Schema}
		if e.Array {
			s = map[string]any{"type": "array", "items": s}
		}
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": s}}
	}
	out[strconv.Itoa(e.Status)] = ok
	for _, st := range e.Statuses {
		r := map[string]any{"description": http.StatusText(st)}
		if st >= 400 {
			r["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/error"}}}
		}
		out[strconv.Itoa(st)] = r
	}
	return out
}

// rewriteRefs turns references of the schema named self — to other files
// ("user.json", "user.json#/properties/state") or within itself ("#/$defs/x") — into component
// references, and drops the per-file $id and $schema that components must not carry.
func rewriteRefs(v any, self string) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "$id")
		delete(x, "$schema")
		for k, val := range x {
			if k == "$ref" {
				if s, ok := val.(string); ok {
					x[k] = componentRef(s, self)
					continue
				}
			}
			x[k] = rewriteRefs(val, self)
		}
		return x
	case []any:
		for i := range x {
			x[i] = rewriteRefs(x[i], self)
		}
	}
	return v
}

func componentRef(ref, self string) string {
	file, frag, _ := strings.Cut(ref, "#")
	if file == "" {
		return "#/components/schemas/" + self + frag // "#" means this schema's own root
	}
	file = strings.TrimSuffix(file[strings.LastIndexByte(file, '/')+1:], ".json")
	return "#/components/schemas/" + file + frag
}
