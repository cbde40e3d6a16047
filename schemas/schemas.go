// Package schemas holds the JSON Schemas that v4 response bodies must match, one resource or error shape per file.
package schemas

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed *.json
var files embed.FS

// baseURL is the prefix of every schema's $id; schemas refer to each other by
// relative file name, so the compiler must see them under this same base.
const baseURL = "https://v4cert.dev/schemas/"

// printer renders the library's localizable messages; its error kinds carry
// no printer of their own.
var printer = message.NewPrinter(language.English)

// Names returns the schema names (file names without .json) in sorted order.
func Names() []string {
	return slices.Clone(names())
}

var names = sync.OnceValue(func() []string {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // the embedded directory is fixed at build time
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok {
			out = append(out, name)
		}
	}
	return out
})

// FS returns the schema files, so reports and tools can ship or serve the
// exact documents a run was judged against.
func FS() fs.FS {
	return files
}

// Digest returns a SHA-256 over every schema file in sorted name order, so a
// report can name the schema set that judged the run.
func Digest() string {
	return digest()
}

var digest = sync.OnceValue(func() string {
	h := sha256.New()
	for _, name := range names() {
		data, err := files.ReadFile(name + ".json")
		if err != nil {
			panic(err)
		}
		// Length-prefixed so that moving bytes between files changes the sum.
		fmt.Fprintf(h, "%s.json\x00%d\x00", name, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
})

// Validate checks one JSON document against the named schema. A mismatch is
// returned as an *Error.
func Validate(name string, body []byte) error {
	s, sch, err := lookup(name)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("schemas: %s: body is not JSON: %w", name, err)
	}
	if issues := s.check(sch, v, -1); len(issues) > 0 {
		return &Error{Schema: name, Issues: issues}
	}
	return nil
}

// ValidateArray checks that body is a JSON array whose every element matches
// the named schema, as list endpoints answer. Every failing element is
// reported, each Issue carrying its Index.
func ValidateArray(name string, body []byte) error {
	s, sch, err := lookup(name)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("schemas: %s: body is not JSON: %w", name, err)
	}
	arr, ok := v.([]any)
	if !ok {
		return fmt.Errorf("schemas: %s: body is a JSON %s, want an array", name, jsonType(v))
	}
	var issues []Issue
	for i, elem := range arr {
		issues = append(issues, s.check(sch, elem, i)...)
	}
	if len(issues) > 0 {
		return &Error{Schema: name, Issues: issues}
	}
	return nil
}

// Error lists every place where a body breaks a schema, so that one failed
// check shows all problems at once.
type Error struct {
	Schema string // schema name, as passed to Validate or ValidateArray
	Issues []Issue
}

// Issue is one broken keyword. It carries enough to act on without opening
// the schema: where in the body, which keyword, and the spec's note for the
// field.
type Issue struct {
	// Index is the array element for ValidateArray, -1 for Validate.
	Index int
	// Pointer is the JSON pointer into the body; for ValidateArray it starts
	// with the element index.
	Pointer string
	// Keyword is the keyword path from the named schema's root, through any
	// $ref, such as /properties/created_by/$ref/properties/state/enum.
	Keyword string
	// Location is where that keyword is written, such as
	// user_reference.json#/properties/state/enum.
	Location string
	// Message says what is wrong with the value.
	Message string
	// Description is the spec's note for the field, from the nearest
	// enclosing schema that has one.
	Description string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "body does not match schema %s", e.Schema)
	if len(e.Issues) != 1 {
		fmt.Fprintf(&b, " (%d problems)", len(e.Issues))
	}
	b.WriteByte(':')
	for _, is := range e.Issues {
		b.WriteString("\n  at ")
		if is.Pointer == "" {
			b.WriteString("(root)")
		} else {
			b.WriteString(is.Pointer)
		}
		if is.Index >= 0 {
			fmt.Fprintf(&b, " (element %d)", is.Index)
		}
		fmt.Fprintf(&b, ": %s\n    schema: %s", is.Message, is.Keyword)
		if is.Location != e.Schema+".json#"+is.Keyword {
			fmt.Fprintf(&b, " (%s)", is.Location)
		}
		if is.Description != "" {
			fmt.Fprintf(&b, "\n    field: %s", is.Description)
		}
	}
	return b.String()
}

// set is the compiled schemas plus their raw documents; the raw documents
// supply descriptions, which the compiled form does not index by location.
type set struct {
	schemas map[string]*jsonschema.Schema
	docs    map[string]any // by file name
}

var load = sync.OnceValues(func() (*set, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	// Draft 2020-12 treats format as an annotation by default; the spec's
	// date and datetime types are assertions.
	c.AssertFormat()
	s := &set{schemas: map[string]*jsonschema.Schema{}, docs: map[string]any{}}
	for _, name := range names() {
		data, err := files.ReadFile(name + ".json")
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("schemas: %s.json: %w", name, err)
		}
		if err := c.AddResource(baseURL+name+".json", doc); err != nil {
			return nil, fmt.Errorf("schemas: %s.json: %w", name, err)
		}
		s.docs[name+".json"] = doc
	}
	for _, name := range names() {
		sch, err := c.Compile(baseURL + name + ".json")
		if err != nil {
			return nil, fmt.Errorf("schemas: compiling %s.json: %w", name, err)
		}
		s.schemas[name] = sch
	}
	return s, nil
})

func lookup(name string) (*set, *jsonschema.Schema, error) {
	s, err := load()
	if err != nil {
		return nil, nil, err
	}
	sch, ok := s.schemas[name]
	if !ok {
		return nil, nil, fmt.Errorf("schemas: no schema named %q", name)
	}
	return s, sch, nil
}

func (s *set) check(sch *jsonschema.Schema, v any, index int) []Issue {
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Issue{{Index: index, Message: err.Error()}}
	}
	var issues []Issue
	s.collect(ve, "", "", "", &issues)
	prefix := ""
	if index >= 0 {
		prefix = "/" + strconv.Itoa(index)
	}
	for i := range issues {
		issues[i].Index = index
		issues[i].Pointer = prefix + issues[i].Pointer
	}
	slices.SortStableFunc(issues, func(a, b Issue) int {
		return cmp.Or(strings.Compare(a.Pointer, b.Pointer), strings.Compare(a.Keyword, b.Keyword))
	})
	return issues
}

// collect turns the library's error tree into flat issues. It tracks the
// keyword path through $ref the way the library's own output formats do
// (base is the schema URL the parent's keyword path is relative to), because
// the error tree only records absolute locations. alt prefixes messages that
// belong to one alternative of an anyOf or oneOf.
func (s *set) collect(e *jsonschema.ValidationError, base, kw, alt string, out *[]Issue) {
	if base != "" {
		if rest, ok := strings.CutPrefix(e.SchemaURL, base); ok {
			kw += unescapeFragment(rest)
		}
	}
	ref, isRef := e.ErrorKind.(*kind.Reference)
	if isRef {
		kw += "/" + ref.Keyword
		base = ref.URL
	} else {
		base = e.SchemaURL
	}

	if len(e.Causes) > 0 && !s.collapsible(e) {
		_, isAnyOf := e.ErrorKind.(*kind.AnyOf)
		_, isOneOf := e.ErrorKind.(*kind.OneOf)
		for i, c := range e.Causes {
			note := alt
			if isAnyOf || isOneOf {
				// Only one alternative has to be fixed; say so, or the
				// issues read as a list of things all wrong at once.
				note += printer.Sprintf("alternative %d of %d: ", i+1, len(e.Causes))
			}
			s.collect(c, base, kw, note, out)
		}
		return
	}

	keyword := kw + pointer(e.ErrorKind.KeywordPath())
	is := Issue{
		Pointer:  pointer(e.InstanceLocation),
		Keyword:  keyword,
		Location: shortURL(e.SchemaURL) + pointer(e.ErrorKind.KeywordPath()),
		Message:  alt + e.ErrorKind.LocalizedString(printer),
	}
	if req, ok := e.ErrorKind.(*kind.Required); ok {
		// One issue per missing property, each with that property's note.
		for _, m := range req.Missing {
			is := is
			is.Message = alt + printer.Sprintf("missing property %q", m)
			is.Description = s.description(e.SchemaURL, m)
			*out = append(*out, is)
		}
		return
	}
	if len(e.Causes) > 0 {
		var msgs []string
		for _, leaf := range leaves(e) {
			msgs = append(msgs, leaf.ErrorKind.LocalizedString(printer))
		}
		is.Message += ": " + strings.Join(msgs, "; ")
	}
	is.Description = s.description(e.SchemaURL, "")
	*out = append(*out, is)
}

// collapsible reports whether an anyOf/oneOf failure reads better as one
// issue: when every alternative failed on the value itself (say "got number,
// want string; got number, want object") rather than deeper inside it.
func (s *set) collapsible(e *jsonschema.ValidationError) bool {
	switch e.ErrorKind.(type) {
	case *kind.AnyOf, *kind.OneOf:
	default:
		return false
	}
	at := pointer(e.InstanceLocation)
	for _, leaf := range leaves(e) {
		if pointer(leaf.InstanceLocation) != at {
			return false
		}
		if _, ok := leaf.ErrorKind.(*kind.Required); ok {
			return false
		}
	}
	return true
}

func leaves(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// description finds the note for the schema at schemaURL: the missing
// property's own description when one is named, else the nearest enclosing
// schema's, since anyOf branches and array items usually have none.
func (s *set) description(schemaURL, missing string) string {
	file, frag, _ := strings.Cut(strings.TrimPrefix(schemaURL, baseURL), "#")
	doc, ok := s.docs[file]
	if !ok {
		return ""
	}
	var toks []string
	if f := unescapeFragment(frag); f != "" {
		for _, t := range strings.Split(f[1:], "/") {
			toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
		}
	}
	if missing != "" {
		if d := descriptionAt(doc, append(slices.Clone(toks), "properties", missing)); d != "" {
			return d
		}
	}
	for i := len(toks); i >= 0; i-- {
		if d := descriptionAt(doc, toks[:i]); d != "" {
			return d
		}
	}
	return ""
}

func descriptionAt(doc any, toks []string) string {
	node := doc
	for _, t := range toks {
		switch n := node.(type) {
		case map[string]any:
			node = n[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(n) {
				return ""
			}
			node = n[i]
		default:
			return ""
		}
	}
	if m, ok := node.(map[string]any); ok {
		if d, ok := m["description"].(string); ok {
			return d
		}
	}
	return ""
}

// unescapeFragment undoes the percent-encoding the library applies to schema
// URL fragments ($defs becomes %24defs), leaving JSON pointer escapes alone.
func unescapeFragment(frag string) string {
	if u, err := url.PathUnescape(frag); err == nil {
		return u
	}
	return frag
}

func shortURL(u string) string {
	if rest, ok := strings.CutPrefix(u, baseURL); ok {
		file, frag, _ := strings.Cut(rest, "#")
		return file + "#" + unescapeFragment(frag)
	}
	return u
}

func pointer(toks []string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	default:
		return "number"
	}
}
