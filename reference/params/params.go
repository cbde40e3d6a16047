// Package params decodes request parameters from the query string, a JSON body
// or a form body into one tree, and reads typed values out of it (spec,
// Endpoints conventions 4 to 7).
package params

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/v4cert/v4cert/specs"
)

// MaxBody bounds what one request body may hold; larger bodies are a 413 at the
// HTTP layer rather than memory the server cannot give back.
const MaxBody = 32 << 20

// File is an uploaded file of a multipart form.
type File struct {
	Name    string
	Content []byte
}

// Values is the decoded parameter tree: leaves are string, json.Number, bool,
// nil (an explicit JSON null) or *File; inner nodes are []any and map[string]any.
type Values struct {
	m map[string]any
}

// DecodeError says the request could not be decoded at all (malformed JSON, a
// broken multipart body); it is a 400 for the caller.
type DecodeError struct{ Reason string }

func (e *DecodeError) Error() string { return e.Reason }

// ErrTooLarge is returned for bodies over MaxBody.
var ErrTooLarge = errors.New("request body too large")

// FromRequest decodes the query string and, for requests with a body, the body.
// Body values win over query values of the same name, as Grape merges them.
func FromRequest(r *http.Request) (*Values, error) {
	v := &Values{m: map[string]any{}}
	if err := v.addQuery(r.URL.RawQuery); err != nil {
		return nil, err
	}
	if r.Body == nil || r.Body == http.NoBody {
		return v, nil
	}
	ct, ctParams, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch {
	case ct == "multipart/form-data":
		return v, v.addMultipart(r.Body, ctParams["boundary"])
	default:
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
		if err != nil {
			return nil, &DecodeError{"could not read the request body"}
		}
		if len(body) > MaxBody {
			return nil, ErrTooLarge
		}
		return v, v.addBody(ct, body)
	}
}

// FromQuery decodes a raw query string alone.
func FromQuery(raw string) (*Values, error) {
	v := &Values{m: map[string]any{}}
	return v, v.addQuery(raw)
}

func (v *Values) addBody(ct string, body []byte) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil
	}
	// Clients are not consistent about Content-Type on JSON bodies; a body that
	// starts like a JSON object is read as one unless it is declared as a form.
	if ct == "application/json" || strings.HasSuffix(ct, "+json") ||
		(ct != "application/x-www-form-urlencoded" && trimmed[0] == '{') {
		return v.addJSON(trimmed)
	}
	return v.addQuery(string(body))
}

// addJSON reads a body that must be exactly one JSON object. Anything after
// it is refused, whitespace aside: a body such as `{"branch":"main"}}` must not
// act on its first value (Decoder.More alone misses a trailing '}' or ']').
// A body of `null` carries no parameters, as an explicit null option does not:
// the platform's Go client sends it for endpoints whose options are all empty.
func (v *Values) addJSON(body []byte) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return &DecodeError{"the request body is not valid JSON"}
	}
	if rest := bytes.TrimSpace(body[dec.InputOffset():]); len(rest) > 0 {
		return &DecodeError{"the request body holds more than one JSON value"}
	}
	if doc == nil {
		return nil
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return &DecodeError{"the request body must be a JSON object"}
	}
	for k, val := range obj {
		v.m[k] = val
	}
	return nil
}

func (v *Values) addMultipart(body io.Reader, boundary string) error {
	if boundary == "" {
		return &DecodeError{"multipart body without boundary"}
	}
	mr := multipart.NewReader(io.LimitReader(body, MaxBody+1), boundary)
	form, err := mr.ReadForm(MaxBody)
	if err != nil {
		return &DecodeError{"malformed multipart body"}
	}
	defer form.RemoveAll()
	for k, vals := range form.Value {
		for _, s := range vals {
			if err := v.set(k, s); err != nil {
				return err
			}
		}
	}
	for k, fhs := range form.File {
		for _, fh := range fhs {
			f, err := fh.Open()
			if err != nil {
				return &DecodeError{"malformed multipart body"}
			}
			data, err := io.ReadAll(f)
			f.Close()
			if err != nil {
				return &DecodeError{"malformed multipart body"}
			}
			if err := v.set(k, &File{Name: fh.Filename, Content: data}); err != nil {
				return err
			}
		}
	}
	// A multipart body is a form too: name[0][key] makes an array of hashes.
	v.normalizeValues()
	return nil
}

func (v *Values) addQuery(raw string) error {
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, val, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return &DecodeError{"malformed query string"}
		}
		value, err := url.QueryUnescape(val)
		if err != nil {
			return &DecodeError{"malformed query string"}
		}
		if err := v.set(key, value); err != nil {
			return err
		}
	}
	v.normalizeValues()
	return nil
}

// normalizeValues applies normalize below the top level: top-level names that
// happen to be digits (0=a&1=b) stay names rather than turning the whole tree
// into an array.
func (v *Values) normalizeValues() {
	for k, val := range v.m {
		v.m[k] = normalize(val)
	}
}

// maxDepth bounds bracket nesting; deeper keys are a client error, not recursion.
const maxDepth = 8

// set stores value under a Rack-style key: name, name[], name[key], name[0][key], name[][key].
func (v *Values) set(key string, value any) error {
	base, rest, _ := strings.Cut(key, "[")
	if base == "" {
		return nil // Rack ignores keys without a name
	}
	var subs []string
	if rest != "" {
		rest = "[" + rest
		for rest != "" {
			if rest[0] != '[' {
				break // trailing garbage after the last ], as Rack ignores it
			}
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				break
			}
			subs = append(subs, rest[1:end])
			rest = rest[end+1:]
		}
		if len(subs) > maxDepth {
			return &DecodeError{fmt.Sprintf("parameter %q is nested too deeply", base)}
		}
	}
	var err error
	v.m[base], err = insert(v.m[base], subs, value)
	if err != nil {
		return &DecodeError{fmt.Sprintf("parameter %q mixes a value, an array and a hash", base)}
	}
	return nil
}

var errShape = errors.New("shape")

func insert(node any, subs []string, value any) (any, error) {
	if len(subs) == 0 {
		if node != nil {
			if _, leaf := node.(string); !leaf {
				return nil, errShape
			}
		}
		return value, nil // a repeated scalar key keeps the last value, as Rack does
	}
	sub := subs[0]
	if sub == "" { // name[] or name[][key]
		var arr []any
		switch n := node.(type) {
		case nil:
		case []any:
			arr = n
		default:
			return nil, errShape
		}
		if len(subs) == 1 {
			return append(arr, value), nil
		}
		// name[][key]: start a new hash when the last one already has key.
		if len(arr) > 0 {
			if last, ok := arr[len(arr)-1].(map[string]any); ok {
				if _, has := last[subs[1]]; !has || len(subs) > 2 {
					nv, err := insert(last, subs[1:], value)
					if err != nil {
						return nil, err
					}
					arr[len(arr)-1] = nv
					return arr, nil
				}
			}
		}
		nv, err := insert(map[string]any{}, subs[1:], value)
		if err != nil {
			return nil, err
		}
		return append(arr, nv), nil
	}
	var m map[string]any
	switch n := node.(type) {
	case nil:
		m = map[string]any{}
	case map[string]any:
		m = n
	default:
		return nil, errShape
	}
	nv, err := insert(m[sub], subs[1:], value)
	if err != nil {
		return nil, err
	}
	m[sub] = nv
	return m, nil
}

// normalize turns hashes keyed only by decimal indexes (name[0][key]) into arrays.
func normalize(node any) any {
	switch n := node.(type) {
	case map[string]any:
		for k, val := range n {
			n[k] = normalize(val)
		}
		if len(n) == 0 {
			return n
		}
		idx := make([]int, 0, len(n))
		for k := range n {
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || strconv.Itoa(i) != k {
				return n
			}
			idx = append(idx, i)
		}
		sort.Ints(idx)
		arr := make([]any, 0, len(idx))
		for _, i := range idx {
			arr = append(arr, n[strconv.Itoa(i)])
		}
		return arr
	case []any:
		for i, val := range n {
			n[i] = normalize(val)
		}
	}
	return node
}

// Has reports whether name was sent with a value other than JSON null; clients
// such as the platform's JavaScript client send null for every absent option.
func (v *Values) Has(name string) bool {
	val, ok := v.m[name]
	return ok && val != nil
}

// Raw returns the decoded value of name.
func (v *Values) Raw(name string) any { return v.m[name] }

// Set overrides one top-level value; the HTTP layer uses it for headers that
// stand for parameters (Sudo).
func (v *Values) Set(name string, value any) { v.m[name] = value }

// Names lists the top-level parameter names, sorted.
func (v *Values) Names() []string {
	out := make([]string, 0, len(v.m))
	for k := range v.m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Error is a parameter that was missing, could not be read as its type, or
// lies outside its value set (NotInSet).
type Error struct {
	Name     string
	Missing  bool
	NotInSet bool
}

// Error words it as the platform's validators do (grape 2.0.0
// lib/grape/locale/en.yml: coerce 'is invalid', values 'does not have a
// valid value'); a missing one as Errors rule 2 does.
func (e *Error) Error() string {
	switch {
	case e.Missing:
		return e.Name + " not given"
	case e.NotInSet:
		return e.Name + " does not have a valid value"
	}
	return e.Name + " is invalid"
}

// Reader reads typed values and keeps the first error, so a handler reads every
// option and checks once.
type Reader struct {
	v   *Values
	err error
}

// Read starts reading v.
func (v *Values) Read() *Reader { return &Reader{v: v} }

// Err returns the first error met, as *Error.
func (r *Reader) Err() error { return r.err }

func (r *Reader) fail(name string, missing bool) {
	if r.err == nil {
		r.err = &Error{Name: name, Missing: missing}
	}
}

// Require records a missing-attribute error for each name not given.
func (r *Reader) Require(names ...string) *Reader {
	for _, n := range names {
		if !r.v.Has(n) {
			r.fail(n, true)
		}
	}
	return r
}

func scalar(val any) (string, bool) {
	switch x := val.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// String returns name as a string, or nil when absent.
func (r *Reader) String(name string) *string {
	if !r.v.Has(name) {
		return nil
	}
	s, ok := scalar(r.v.m[name])
	if !ok {
		r.fail(name, false)
		return nil
	}
	return &s
}

// StringOr returns name or def.
func (r *Reader) StringOr(name, def string) string {
	if s := r.String(name); s != nil {
		return *s
	}
	return def
}

// Enum returns name when it is one of allowed.
func (r *Reader) Enum(name string, allowed ...string) *string {
	s := r.String(name)
	if s == nil {
		return nil
	}
	for _, a := range allowed {
		if *s == a {
			return s
		}
	}
	if r.err == nil {
		r.err = &Error{Name: name, NotInSet: true}
	}
	return nil
}

// Bool returns name as a boolean (AsBool); a value AsBool refuses is an
// invalid parameter, and the empty string, nil to the platform, is a
// parameter not given (nil here, so the caller's default applies).
func (r *Reader) Bool(name string) *bool {
	if !r.v.Has(name) {
		return nil
	}
	if s, ok := r.v.m[name].(string); ok && s == "" {
		return nil
	}
	b, ok := AsBool(r.v.m[name])
	if !ok {
		r.fail(name, false)
		return nil
	}
	return &b
}

// AsBool reads a decoded value as the platform reads a boolean parameter:
// true, false and the other words of its coercion (specs.BoolWord: yes, 1,
// on, FALSE...), a JSON boolean, or a JSON 1 or 0. ok is false for any
// other value.
func AsBool(val any) (b, ok bool) {
	s, ok := scalar(val)
	if !ok {
		return false, false
	}
	return specs.BoolWord(s)
}

// BoolOr returns name or def.
func (r *Reader) BoolOr(name string, def bool) bool {
	if b := r.Bool(name); b != nil {
		return *b
	}
	return def
}

// Int returns name as an integer.
func (r *Reader) Int(name string) *int {
	if !r.v.Has(name) {
		return nil
	}
	s, ok := scalar(r.v.m[name])
	if !ok {
		r.fail(name, false)
		return nil
	}
	i, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		r.fail(name, false)
		return nil
	}
	return &i
}

// IntOr returns name or def.
func (r *Reader) IntOr(name string, def int) int {
	if i := r.Int(name); i != nil {
		return *i
	}
	return def
}

// Ints returns name as an integer array: name[]=1&name[]=2, a JSON array, or
// the comma-joined form the platform's clients send (name=1,2).
func (r *Reader) Ints(name string) []int {
	if !r.v.Has(name) {
		return nil
	}
	var parts []string
	switch x := r.v.m[name].(type) {
	case []any:
		for _, e := range x {
			s, ok := scalar(e)
			if !ok {
				r.fail(name, false)
				return nil
			}
			parts = append(parts, s)
		}
	default:
		s, ok := scalar(x)
		if !ok {
			r.fail(name, false)
			return nil
		}
		if s != "" {
			parts = strings.Split(s, ",")
		}
	}
	out := make([]int, 0, len(parts))
	for _, p := range parts {
		i, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			r.fail(name, false)
			return nil
		}
		out = append(out, i)
	}
	return out
}

// Strings returns name as a string array (name[]=a or a JSON array; a single
// value counts as one element, and comma-joined values are split).
func (r *Reader) Strings(name string) []string {
	if !r.v.Has(name) {
		return nil
	}
	switch x := r.v.m[name].(type) {
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := scalar(e)
			if !ok {
				r.fail(name, false)
				return nil
			}
			out = append(out, s)
		}
		return out
	default:
		s, ok := scalar(x)
		if !ok {
			r.fail(name, false)
			return nil
		}
		if s == "" {
			return []string{}
		}
		return strings.Split(s, ",")
	}
}

// Hash returns name[key]=value pairs as a map of strings.
func (r *Reader) Hash(name string) map[string]string {
	if !r.v.Has(name) {
		return nil
	}
	m, ok := r.v.m[name].(map[string]any)
	if !ok {
		r.fail(name, false)
		return nil
	}
	out := make(map[string]string, len(m))
	for k, val := range m {
		s, ok := scalar(val)
		if !ok {
			r.fail(name, false)
			return nil
		}
		out[k] = s
	}
	return out
}

// Objects returns name as an array of hashes (name[0][key]=v, name[][key]=v or JSON).
func (r *Reader) Objects(name string) []map[string]any {
	if !r.v.Has(name) {
		return nil
	}
	arr, ok := r.v.m[name].([]any)
	if !ok {
		r.fail(name, false)
		return nil
	}
	out := make([]map[string]any, 0, len(arr))
	for _, e := range arr {
		m, ok := e.(map[string]any)
		if !ok {
			r.fail(name, false)
			return nil
		}
		out = append(out, m)
	}
	return out
}

// Time returns name as an ISO 8601 datetime (a bare date means its midnight UTC).
func (r *Reader) Time(name string) *time.Time {
	s := r.String(name)
	if s == nil {
		return nil
	}
	t, ok := parseTime(*s)
	if !ok {
		r.fail(name, false)
		return nil
	}
	return &t
}

// Date returns name as a YYYY-MM-DD date; an empty string clears it (nil, no error).
func (r *Reader) Date(name string) *time.Time {
	s := r.String(name)
	if s == nil || *s == "" {
		return nil
	}
	t, err := time.Parse("2006-01-02", *s)
	if err != nil {
		r.fail(name, false)
		return nil
	}
	return &t
}

// File returns an uploaded file, or (nil, true) when name was sent as an empty
// value, which the spec uses to remove a file (topic avatar).
func (r *Reader) File(name string) (f *File, cleared bool) {
	val, ok := r.v.m[name]
	if !ok {
		return nil, false
	}
	switch x := val.(type) {
	case *File:
		return x, false
	case nil:
		return nil, true
	case string:
		if x == "" {
			return nil, true
		}
	}
	r.fail(name, false)
	return nil, false
}
