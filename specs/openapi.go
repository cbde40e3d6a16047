package specs

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// DefaultBaseURL is the default of the exported document's server variables:
// where `v4cert serve` listens unless told otherwise, so a mock or a
// generated client works against a local reference out of the box.
const DefaultBaseURL = "http://127.0.0.1:8080"

// PaginationHeaders are the response headers of every paginated list
// (Limits 2); Link comes last.
var PaginationHeaders = []string{"X-Total", "X-Total-Pages", "X-Page", "X-Per-Page", "X-Next-Page", "X-Prev-Page", "Link"}

// OpenAPIFromFS is OpenAPI with the schema documents read from the *.json
// files at the root of fsys (such as schemas.FS()).
func (b *Rulebook) OpenAPIFromFS(version string, fsys fs.FS) ([]byte, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, err
	}
	docs := map[string][]byte{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		docs[strings.TrimSuffix(name, ".json")] = data
	}
	return b.OpenAPI(version, docs)
}

// OpenAPI exports the rulebook as an OpenAPI 3.1 document, so tools of the
// wider ecosystem (mock servers, client generators, linters) can use it.
// schemaDocs maps schema names (without .json) to their JSON Schema documents;
// their file references are rewritten to components. Each operation lists its
// rule IDs under x-v4cert-rules.
//
// Everything is derived from the rulebook's data, so a new area exports
// without a change here. What the export adds for the tools' sake:
//   - servers with a base_url variable (the token issuer's and registry
//     host's paths carry their own servers);
//   - a security scheme for each way the spec sends a credential
//     (Authentication 1, 2 and 4);
//   - the pagination headers (Limits 2) on the success answer of every
//     paginated operation, and its page, per_page (and pagination) parameters
//     where the rulebook leaves them implicit;
//   - a $ref that has sibling keywords becomes an allOf of the $ref beside
//     them: JSON Schema 2020-12 means the same, and tools that still replace a
//     $ref by its target (mock servers among them) then lose nothing.
func (b *Rulebook) OpenAPI(version string, schemaDocs map[string][]byte) ([]byte, error) {
	components := map[string]any{}
	for name, raw := range schemaDocs {
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		components[name] = rewriteRefs(doc, name)
	}
	if _, ok := components["error"]; !ok {
		components["error"] = map[string]any{"type": "object"}
	}
	paths := map[string]map[string]any{}
	areas := map[string]int{}
	usedParams := map[string]bool{}
	for _, e := range b.Endpoints {
		p := e.openAPIPath()
		if paths[p] == nil {
			paths[p] = map[string]any{}
			if !e.UnderAPI() {
				paths[p]["servers"] = hostServers(e.Base)
			}
		}
		paths[p][strings.ToLower(e.Method)] = b.operation(e, usedParams)
		areas[e.Area]++
	}
	var tags []any
	for _, area := range sortedKeys(areas) {
		tags = append(tags, map[string]any{"name": area,
			"description": fmt.Sprintf("The %s area of the spec: %d endpoints, %d rules in the v4cert rulebook.", area, areas[area], b.rulesIn(area))})
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":   "Development Platform REST API v4 (v4cert rulebook)",
			"version": version,
			"description": "Generated from the v4cert rulebook " + b.Digest + ". Each operationId is a rulebook endpoint ID; " +
				"x-v4cert-rules lists the rules of each operation, x-v4cert-platform what the platform does where each reviewed rule speaks (diverges: a known platform divergence from the spec's text); provisioning operations (outside the certified surface) carry x-v4cert-provisioning: true.",
		},
		"servers": []any{map[string]any{
			"url":         "{base_url}",
			"description": "The implementation under test (paths of the API start with /api/v4, Versioning 1).",
			"variables":   map[string]any{"base_url": map[string]any{"default": DefaultBaseURL, "description": "scheme://host[:port] of the implementation"}},
		}},
		"tags":  tags,
		"paths": paths,
		"components": map[string]any{
			"schemas":         components,
			"securitySchemes": securitySchemes(),
			"headers":         paginationHeaderComponents(),
			"parameters":      paginationParameterComponents(usedParams),
		},
	}
	return json.MarshalIndent(doc, "", "  ")
}

// openAPIPath is the endpoint's path in OpenAPI's syntax: {name} for each
// placeholder, from its server's root (the API's under /api/v4). The
// prefix belongs to the path, not the server URL, so a mock server (Prism
// serves paths from its root) answers the same URLs the API does.
func (e *Endpoint) openAPIPath() string {
	segs := make([]string, len(e.segments))
	for i, s := range e.segments {
		if isPlaceholder(s) {
			s = "{" + s[1:] + "}"
		}
		segs[i] = s
	}
	p := e.Prefix() + "/" + strings.Join(segs, "/")
	if strings.HasSuffix(e.Path, "/") && len(segs) > 0 {
		p += "/"
	}
	return p
}

func isPlaceholder(seg string) bool {
	return strings.HasPrefix(seg, ":") || strings.HasPrefix(seg, "*")
}

// hostServers are the servers of the token issuer ({auth_url}) and the
// registry host ({registry_url}), which the spec places outside /api/v4.
func hostServers(base string) []any {
	name, what := "registry_url", "the registry host"
	if base == "auth" {
		name, what = "auth_url", "the registry's token issuer"
	}
	return []any{map[string]any{
		"url":         "{" + name + "}",
		"description": what + " (Container registry, registry-native endpoints)",
		"variables":   map[string]any{name: map[string]any{"default": DefaultBaseURL, "description": "scheme://host[:port] of " + what}},
	}}
}

func securitySchemes() map[string]any {
	apiKey := func(in, name, desc string) map[string]any {
		return map[string]any{"type": "apiKey", "in": in, "name": name, "description": desc}
	}
	http := func(scheme, desc string) map[string]any {
		return map[string]any{"type": "http", "scheme": scheme, "description": desc}
	}
	registry := http("bearer", "A short-lived registry token from {auth_url}/jwt/auth (Authentication 4).")
	registry["bearerFormat"] = "JWT"
	return map[string]any{
		"privateToken":      apiKey("header", "PRIVATE-TOKEN", "A personal or project access token (Authentication 1)."),
		"privateTokenQuery": apiKey("query", "private_token", "An access token in the query, as the platform also accepts."),
		"bearer":            http("bearer", "An access token as Authorization: Bearer; on the job-token endpoints also a CI job token (Authentication 2)."),
		"jobToken":          apiKey("header", "JOB-TOKEN", "A CI job token (Authentication 2), on the endpoints that accept one."),
		"jobTokenQuery":     apiKey("query", "job_token", "A CI job token in the query (Authentication 2)."),
		"registryBasic":     http("basic", "HTTP basic credentials of the registry user: a username and an access token (Authentication 4)."),
		"registryBearer":    registry,
	}
}

// paginationHeaderComponents declare the headers of Limits 2. Their
// examples describe one coherent single page, which mock servers answer.
func paginationHeaderComponents() map[string]any {
	integer := func(desc string, example int) map[string]any {
		return map[string]any{"description": desc, "schema": map[string]any{"type": "integer", "minimum": 0}, "example": example}
	}
	page := func(desc string) map[string]any {
		// Empty on the last (first) page, so not an integer there.
		return map[string]any{"description": desc, "schema": map[string]any{"type": "string", "pattern": "^[0-9]*$"}, "example": ""}
	}
	return map[string]any{
		"X-Total":       integer("Number of items in the list; omitted when it exceeds 10,000, and on the lists the hosted offering sends without counts (Limits 2).", 1),
		"X-Total-Pages": integer("Number of pages, at least 1; omitted with X-Total (Limits 2).", 1),
		"X-Page":        integer("This page's number (offset pages; keyset pages carry only Link).", 1),
		"X-Per-Page":    integer("Items per page (at most 100; offset pages).", 20),
		"X-Next-Page":   page("The next page's number; empty on the last page."),
		"X-Prev-Page":   page("The previous page's number; empty on the first page."),
	}
}

// linkHeader declares the Link header of one paginated operation, with an
// example for its own path (placeholders as 1) that agrees with the other
// headers' examples: one page, first and last.
func linkHeader(e *Endpoint) map[string]any {
	path := regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(e.openAPIPath(), "1")
	u := DefaultBaseURL + path + "?page=1&per_page=20"
	return map[string]any{
		"description": "RFC 8288 links with rel prev, next, first and last (rel last omitted beyond 10,000 items; keyset pagination gives rel next only). Clients follow these links.",
		"schema":      map[string]any{"type": "string"},
		"example":     "<" + u + `>; rel="first", <` + u + `>; rel="last"`,
	}
}

func paginationParameterComponents(used map[string]bool) map[string]any {
	all := map[string]any{
		"page": map[string]any{"name": "page", "in": "query", "description": "Page number (Limits 1).",
			"schema": map[string]any{"type": "integer", "minimum": 1, "default": 1}},
		"per_page": map[string]any{"name": "per_page", "in": "query", "description": "Items per page, at most 100 (Limits 1).",
			"schema": map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
		"pagination": map[string]any{"name": "pagination", "in": "query", "description": "keyset selects keyset pagination (Limits 3); follow the Link header's rel next.",
			"schema": map[string]any{"type": "string", "enum": []string{"keyset"}}},
	}
	out := map[string]any{}
	for name := range used {
		out[name] = all[name]
	}
	return out
}

func (b *Rulebook) rulesIn(area string) int {
	n := 0
	for _, r := range b.Rules {
		if r.Area == area {
			n++
		}
	}
	return n
}

// paginated reports whether the endpoint answers a paginated list.
func (e *Endpoint) paginated() bool { return e.Pagination == "offset" || e.Pagination == "keyset" }

func (b *Rulebook) operation(e *Endpoint, usedParams map[string]bool) map[string]any {
	var params []any
	inPath := map[string]bool{}
	for _, seg := range e.segments {
		if !isPlaceholder(seg) {
			continue
		}
		name := seg[1:]
		inPath[name] = true
		params = append(params, pathParam(e, seg))
	}
	inQuery := e.Method == http.MethodGet || e.Method == http.MethodHead || e.Method == http.MethodDelete
	props := map[string]any{}
	var required []string
	hasFile := false
	for _, p := range e.Params {
		if inPath[p.Name] {
			continue
		}
		s := paramSchema(p)
		if inQuery {
			q := map[string]any{"name": p.Name, "in": "query", "schema": s}
			if p.Required {
				q["required"] = true
			}
			if p.Type == "array" {
				q["name"] = p.Name + "[]"
			}
			if p.Type == "hash" {
				q["style"], q["explode"] = "deepObject", true
			}
			if p.Deprecated {
				q["deprecated"] = true
			}
			if d, ok := s["description"]; ok {
				q["description"] = d
			}
			params = append(params, q)
			continue
		}
		if p.Deprecated {
			s["deprecated"] = true
		}
		hasFile = hasFile || p.Type == "file"
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	if e.paginated() && inQuery {
		names := []string{"page", "per_page"}
		if e.Pagination == "keyset" {
			names = append(names, "pagination")
		}
		for _, n := range names {
			if e.Param(n) == nil {
				params = append(params, map[string]any{"$ref": "#/components/parameters/" + n})
				usedParams[n] = true
			}
		}
	}
	op := map[string]any{
		"operationId": e.ID,
		"tags":        []string{e.Area},
		"summary":     e.Method + " " + e.Path,
		"description": b.describe(e),
		"security":    security(e),
		"responses":   responses(e),
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
		content := map[string]any{
			"application/json":                  map[string]any{"schema": body},
			"application/x-www-form-urlencoded": map[string]any{"schema": body},
		}
		if hasFile {
			content["multipart/form-data"] = map[string]any{"schema": body}
		}
		rb := map[string]any{"content": content}
		if len(required) > 0 {
			rb["required"] = true
		}
		op["requestBody"] = rb
	}
	var rules []string
	platform := map[string]any{}
	for _, r := range b.RulesOf(e.ID) {
		rules = append(rules, r.ID)
		if p := r.Platform; p != nil {
			note := map[string]any{"does": p.Does, "source": p.Source}
			if p.Diverges {
				note["diverges"] = true
			}
			platform[r.ID] = note
		}
	}
	if len(rules) > 0 {
		op["x-v4cert-rules"] = rules
	}
	if len(platform) > 0 {
		// What the platform does where each rule speaks, and whether it
		// is a known divergence from the spec's text (docs/rulebook.md).
		op["x-v4cert-platform"] = platform
	}
	if e.Provisioning {
		op["x-v4cert-provisioning"] = true
	}
	if e.paginated() {
		op["x-v4cert-pagination"] = e.Pagination
	}
	if e.Deprecated {
		op["deprecated"] = true
	}
	return op
}

// describe is an operation's description: who may call it and what the
// spec says about it, rule by rule.
func (b *Rulebook) describe(e *Endpoint) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Caller: %s.", e.Who)
	if e.Provisioning {
		sb.WriteString(" Provisioning (the platform's own shape, outside the certified surface).")
	}
	for _, r := range b.RulesOf(e.ID) {
		fmt.Fprintf(&sb, "\n\n- `%s`: %s", r.ID, r.Says)
	}
	return sb.String()
}

// pathParam declares one placeholder of the path. `:id` of a project or
// group is an integer ID or the URL-encoded full path (Endpoints 2); other
// placeholders take the type the rulebook gives them; `*name` (an image name
// on the registry host) spans one or more segments, which OpenAPI's path
// templates cannot say, so its description does.
func pathParam(e *Endpoint, seg string) map[string]any {
	name := seg[1:]
	s := map[string]any{"type": "string"}
	desc := "a value of " + name
	switch {
	case strings.HasPrefix(seg, "*"):
		desc = "one or more path segments, not encoded (an image name such as group/project/image)"
	case name == "id" && e.UnderAPI():
		desc = "an integer ID, or a URL-encoded full path (`/` as `%2F`)"
	default:
		if p := e.Param(name); p != nil {
			s = paramSchema(*p)
			if d, ok := s["description"].(string); ok {
				desc = d
			}
			delete(s, "description")
		}
		if strings.HasSuffix(name, "_path") || name == "branch" || name == "tag_name" || name == "sha" {
			desc = "URL-encoded when it contains `/` (Endpoints 2)"
		}
	}
	return map[string]any{"name": name, "in": "path", "required": true, "description": desc, "schema": s}
}

func security(e *Endpoint) []any {
	switch e.Base {
	case "auth":
		return []any{map[string]any{"registryBasic": []string{}}}
	case "registry":
		return []any{map[string]any{"registryBearer": []string{}}}
	}
	s := []any{
		map[string]any{"privateToken": []string{}},
		map[string]any{"privateTokenQuery": []string{}},
		map[string]any{"bearer": []string{}},
	}
	if e.JobToken {
		s = append(s, map[string]any{"jobToken": []string{}}, map[string]any{"jobTokenQuery": []string{}})
	}
	if e.Who == "anonymous" || e.Who == "runner" {
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
	if p.Deprecated {
		note := "deprecated"
		if p.ReplacedBy != "" {
			note += ", use " + p.ReplacedBy
		}
		notes = append(notes, note)
	}
	if len(p.DeprecatedValues) > 0 {
		notes = append(notes, "deprecated values: "+strings.Join(p.DeprecatedValues, ", "))
	}
	if len(notes) > 0 {
		s["description"] = strings.Join(notes, "; ")
	}
	return s
}

func responses(e *Endpoint) map[string]any {
	out := map[string]any{}
	ok := map[string]any{"description": http.StatusText(e.Status)}
	if e.Schema != "" && e.Method != http.MethodHead {
		var s any = map[string]any{"$ref": "#/components/schemas/" + e.Schema}
		if len(e.Variants) > 0 {
			// Either shape may come back; which one the request selects is
			// in the description (the first is what mocks answer).
			alts := []any{s}
			notes := []string{e.Schema}
			for _, v := range e.Variants {
				alts = append(alts, map[string]any{"$ref": "#/components/schemas/" + v.Schema})
				if v.Caller != "" {
					notes = append(notes, v.Schema+" for an "+v.Caller+" caller")
				} else {
					notes = append(notes, v.Schema+" with "+v.Param+"="+v.Value)
				}
			}
			s = map[string]any{"anyOf": alts, "description": strings.Join(notes, "; ")}
		}
		if e.Array {
			s = map[string]any{"type": "array", "items": s}
		}
		ok["content"] = map[string]any{"application/json": map[string]any{"schema": s}}
	}
	if e.paginated() {
		h := map[string]any{"Link": linkHeader(e)}
		for _, name := range PaginationHeaders[:len(PaginationHeaders)-1] {
			h[name] = map[string]any{"$ref": "#/components/headers/" + name}
		}
		ok["headers"] = h
	}
	out[strconv.Itoa(e.Status)] = ok
	for _, st := range e.Statuses {
		r := map[string]any{"description": statusDescription(st)}
		if st >= 400 && e.Method != http.MethodHead {
			r["content"] = map[string]any{"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + e.ErrorSchema()}}}
		}
		out[strconv.Itoa(st)] = r
	}
	return out
}

func statusDescription(code int) string {
	if t := http.StatusText(code); t != "" {
		return t
	}
	return "Status " + strconv.Itoa(code)
}

// rewriteRefs turns references of the schema named self — to other files
// ("user.json", "user.json#/properties/state") or within itself ("#/$defs/x") — into component
// references, drops the per-file $id and $schema that components must not
// carry, and moves a $ref that has sibling keywords into an allOf beside them.
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
		// A member whose name is a keyword may be declared as an exact
		// pattern (^properties$); tools that read required against
		// properties then miss it, so it becomes a property again.
		if pp, ok := x["patternProperties"].(map[string]any); ok {
			for pat, sub := range pp {
				name, exact := literalPattern(pat)
				props, _ := x["properties"].(map[string]any)
				if !exact || props == nil || props[name] != nil {
					continue
				}
				props[name] = sub
				delete(pp, pat)
			}
			if len(pp) == 0 {
				delete(x, "patternProperties")
			}
		}
		forbidProperties(x)
		exampleForPattern(x)
		if ref, ok := x["$ref"]; ok && len(x) > 1 {
			delete(x, "$ref")
			all, _ := x["allOf"].([]any)
			x["allOf"] = append([]any{map[string]any{"$ref": ref}}, all...)
		}
		return x
	case []any:
		for i := range x {
			x[i] = rewriteRefs(x[i], self)
		}
	}
	return v
}

// forbidProperties rewrites a property declared as never present
// (`"token": {"not": {}}` or false) as `not: {required: [token]}` beside the
// other keywords: the same constraint, in a form that generators and mock
// servers, which emit every declared property, do not turn into a field.
func forbidProperties(x map[string]any) {
	props, _ := x["properties"].(map[string]any)
	for _, name := range sortedKeys(props) {
		sub := props[name]
		desc := ""
		switch v := sub.(type) {
		case bool:
			if v {
				continue
			}
		case map[string]any:
			not, ok := v["not"].(map[string]any)
			if !ok || len(not) != 0 {
				continue
			}
			for k := range v {
				if k != "not" && k != "description" && k != "$comment" {
					return
				}
			}
			desc, _ = v["description"].(string)
		default:
			continue
		}
		delete(props, name)
		// The empty property declaration inside not changes nothing; linters
		// want every required name declared.
		rule := map[string]any{"not": map[string]any{"required": []any{name}, "properties": map[string]any{name: map[string]any{}}}}
		if desc != "" {
			rule["description"] = desc
		}
		all, _ := x["allOf"].([]any)
		x["allOf"] = append(all, rule)
	}
}

// patternPiece is one piece of a simple pattern: a literal, or a character
// class repeated.
var patternPiece = regexp.MustCompile(`^(?:\\(.)|([^\[\\^$*+?{}()|.])|\[([^\]^][^\]]*)\](?:\{(\d+)(?:,(\d*))?\}|(\*)|(\+))?)`)

// exampleForPattern gives a string schema with a simple pattern (^, literals
// and repeated character classes, $: hexadecimal digests, sha256:<hex>) an
// example that matches it, so mock servers that do not generate from
// patterns answer a valid value.
func exampleForPattern(x map[string]any) {
	pat, ok := x["pattern"].(string)
	if !ok || x["examples"] != nil || x["example"] != nil || x["enum"] != nil || x["const"] != nil {
		return
	}
	rest, ok := strings.CutPrefix(pat, "^")
	if !ok {
		return
	}
	rest, ok = strings.CutSuffix(rest, "$")
	if !ok {
		return
	}
	var out strings.Builder
	for rest != "" {
		m := patternPiece.FindStringSubmatch(rest)
		if m == nil {
			return
		}
		rest = rest[len(m[0]):]
		switch {
		case m[1] != "":
			out.WriteString(m[1])
		case m[2] != "":
			out.WriteString(m[2])
		default:
			chars := expandClass(m[3])
			if chars == "" {
				return
			}
			n := 1
			if m[4] != "" {
				n, _ = strconv.Atoi(m[4])
			}
			for i := 0; i < n; i++ {
				out.WriteByte(chars[i%len(chars)])
			}
		}
	}
	if re, err := regexp.Compile(pat); err == nil && re.MatchString(out.String()) {
		x["examples"] = []any{out.String()}
	}
}

// expandClass lists the characters of a class body such as 0-9a-f.
func expandClass(class string) string {
	var b strings.Builder
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			for c := class[i]; c <= class[i+2]; c++ {
				b.WriteByte(c)
			}
			i += 2
			continue
		}
		b.WriteByte(class[i])
	}
	return b.String()
}

// literalPattern reports whether a pattern matches exactly one name
// (^name$ with no other regular-expression syntax), and that name.
func literalPattern(pat string) (string, bool) {
	name, ok := strings.CutPrefix(pat, "^")
	if !ok {
		return "", false
	}
	if name, ok = strings.CutSuffix(name, "$"); !ok || name == "" {
		return "", false
	}
	return name, !strings.ContainsAny(name, `\.[](){}*+?|^$`)
}

func componentRef(ref, self string) string {
	file, frag, _ := strings.Cut(ref, "#")
	if file == "" {
		return "#/components/schemas/" + self + frag // "#" means this schema's own root
	}
	file = strings.TrimSuffix(file[strings.LastIndexByte(file, '/')+1:], ".json")
	return "#/components/schemas/" + file + frag
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
