package params

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/v4cert/v4cert/specs"
)

// Decl is one declared parameter, in the rulebook's terms (specs.Param): the
// HTTP layer checks every request against its endpoint's declarations before
// a handler runs, so a handler never sees a value of the wrong shape.
type Decl struct {
	// Name is the parameter's name; `range[start]` names a key of the hash `range`.
	Name string
	// Type is string, integer, boolean, datetime, date, array, hash or file.
	Type string
	// Items is the type of an array's elements: string (the default), integer or hash.
	Items string
	// Required parameters must be given (not null); RequiredUnless names an
	// alternative whose presence lifts the requirement (a deprecated alias).
	Required       bool
	RequiredUnless string
	// Values is the value set of a scalar, or of each element of an array.
	Values []string
}

// Bind checks v against decls in order and returns the first failure as an
// *Error: a required parameter missing (Errors rule 2), or one given with a
// value of the wrong type, outside its value set, or of the wrong shape (an
// array or hash where a scalar is declared, a scalar where a hash is). Names
// nobody declared pass untouched: the platform ignores unknown parameters.
func (v *Values) Bind(decls []Decl) error {
	for i := range decls {
		d := &decls[i]
		val, given := v.lookup(d.Name)
		if !given {
			if d.Required && (d.RequiredUnless == "" || !v.given(d.RequiredUnless)) {
				return &Error{Name: d.Name, Missing: true}
			}
			continue
		}
		if !d.accepts(val) {
			return &Error{Name: d.Name}
		}
		if !d.inSets(val) {
			return &Error{Name: d.Name, NotInSet: true}
		}
	}
	return nil
}

func (v *Values) given(name string) bool {
	_, ok := v.lookup(name)
	return ok
}

// lookup finds name, or name[key] inside the hash name; JSON null is absent.
func (v *Values) lookup(name string) (any, bool) {
	base, rest, nested := strings.Cut(name, "[")
	val, ok := v.m[base]
	if !ok || val == nil {
		return nil, false
	}
	if nested {
		m, isMap := val.(map[string]any)
		if !isMap {
			return nil, false // the hash itself is checked under its own name
		}
		val, ok = m[strings.TrimSuffix(rest, "]")]
		if !ok || val == nil {
			return nil, false
		}
	}
	return val, true
}

// accepts reports whether val is a value of the declared type.
func (d *Decl) accepts(val any) bool {
	switch d.Type {
	case "array":
		return d.acceptsArray(val)
	case "hash":
		_, ok := val.(map[string]any)
		return ok
	case "file":
		switch x := val.(type) {
		case *File:
			return true
		case string:
			return x == "" // an empty value removes the file (topic avatar)
		}
		return false
	}
	s, ok := scalar(val)
	return ok && scalarOf(d.Type, s)
}

// acceptsArray takes a JSON array, name[]=v, or — as the platform's clients
// send them — one scalar or a comma-joined list of scalars.
func (d *Decl) acceptsArray(val any) bool {
	items := d.Items
	if items == "" {
		items = "string"
	}
	switch x := val.(type) {
	case []any:
		for _, e := range x {
			if items == "hash" {
				if _, ok := e.(map[string]any); !ok {
					return false
				}
				continue
			}
			s, ok := scalar(e)
			if !ok || !scalarOf(items, s) {
				return false
			}
		}
		return true
	case map[string]any, *File:
		return false
	}
	if items == "hash" {
		return false
	}
	s, ok := scalar(val)
	if !ok {
		return false
	}
	if s == "" {
		return true // an empty list
	}
	for _, part := range strings.Split(s, ",") {
		if !scalarOf(items, strings.TrimSpace(part)) {
			return false
		}
	}
	return true
}

func (d *Decl) inSet(s string) bool { return len(d.Values) == 0 || slices.Contains(d.Values, s) }

// inSets reports whether a value that accepts takes is inside the value set
// (each element of an array): the platform checks the set after the type
// (Grape's values validator runs after coercion), with its own answer.
func (d *Decl) inSets(val any) bool {
	if len(d.Values) == 0 {
		return true
	}
	if x, isArr := val.([]any); isArr {
		for _, e := range x {
			if s, _ := scalar(e); !d.inSet(s) {
				return false
			}
		}
		return true
	}
	s, _ := scalar(val)
	if d.Type == "array" {
		if s == "" {
			return true
		}
		for _, part := range strings.Split(s, ",") {
			if !d.inSet(part) {
				return false
			}
		}
		return true
	}
	return d.inSet(s)
}

// scalarOf reports whether s is a value of a scalar type, by
// the same rules as the Reader's typed getters.
func scalarOf(typ, s string) bool {
	switch typ {
	case "integer":
		_, err := strconv.Atoi(strings.TrimSpace(s))
		return err == nil
	case "boolean":
		// The platform's coercion (specs.BoolWord); the empty string is
		// nil there, a parameter not given.
		_, ok := specs.BoolWord(s)
		return ok || s == ""
	case "datetime":
		_, ok := parseTime(s)
		return ok
	case "date":
		if s == "" {
			return true // clears the date
		}
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "string":
		return true
	}
	panic(fmt.Sprintf("params: unknown type %q", typ))
}

// parseTime reads an ISO 8601 datetime; a bare date means its midnight UTC.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", time.DateOnly} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
