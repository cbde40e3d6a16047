package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/v4cert/v4cert/schemas"
)

// fastSchemas is every schema of package schemas compiled once into a tree of
// checks that run over the raw bytes of a body. It answers only "valid or
// not" (plus deprecated fields seen); when a body fails, the checker asks
// package schemas for the full explanation. A schema using a keyword the
// compiler does not know is left out (slow), and the checker validates it the
// generic way: correctness first, speed where the keywords allow.
type fastSchemas struct {
	roots map[string]*fnode // by schema name; absent when slow
	slow  map[string]string // schema name → why it is not compiled
}

// Type bits of a fast node.
const (
	tNull uint8 = 1 << iota
	tBool
	tObject
	tArray
	tNumber
	tInteger
	tString
)

const (
	fmtNone uint8 = iota
	fmtDate
	fmtDateTime
)

type fnode struct {
	loc        string // file.json#/pointer, for warnings
	never      bool   // the false schema
	deprecated bool

	types    uint8
	enum     []any // normalized JSON values
	enumStr  map[string]bool
	hasConst bool
	constVal any

	keys map[string]*fprop // properties and required names
	// order is the member names of the first object this node checked, in
	// their order, each with its entry of keys: a server writes an object's
	// members in the same order every time (the 20 users of a page, every
	// page), so the next name is most often the one expected, and comparing
	// it costs less than hashing it into keys.
	order     atomic.Pointer[[]keyGuess]
	nreq      int
	addl      *fnode
	addlFalse bool
	minProps  int
	maxProps  int
	depReq    map[string][]string

	items    *fnode
	minItems int
	maxItems int

	minLen  int
	maxLen  int
	pattern *regexp.Regexp
	format  uint8

	minimum, maximum, exMin, exMax *big.Rat

	ref                 *fnode
	anyOf, oneOf, allOf []*fnode
	plan                *objPlan // an object checked in one walk with ref and allOf (fastplan.go)
	// leaf is types when they are all n asks of a value, and none is
	// object or array ({"type": "string"}): most members of most bodies,
	// checked inline (checkLeaf) rather than through check.
	leaf              uint8
	not               *fnode
	ifN, thenN, elseN *fnode
}

type keyGuess struct {
	name      string
	p         *fprop
	secretish bool // mayBeSecretName(name)
}

type fprop struct {
	n   *fnode // nil when the name is only required
	req int    // bit of a required name, -1 otherwise
}

// annotations are keywords that never change a verdict.
var annotations = map[string]bool{
	"$schema": true, "$comment": true, "title": true, "description": true, "examples": true,
	"default": true, "deprecated": true, "readOnly": true, "writeOnly": true, "$defs": true,
	"definitions": true, "contentMediaType": true, "contentEncoding": true, "$id": true,
}

var loadFast = sync.OnceValue(func() *fastSchemas {
	fsys := schemas.FS()
	c := &fcompiler{fsys: fsys, docs: map[string]any{}, nodes: map[string]*fnode{}}
	out := &fastSchemas{roots: map[string]*fnode{}, slow: map[string]string{}}
	for _, name := range schemas.Names() {
		c.err = nil
		n := c.resolve(name+".json", "")
		if c.err != nil {
			out.slow[name] = c.err.Error()
			continue
		}
		out.roots[name] = n
	}
	// A schema whose $ref reaches a slow one is slow too: compile errors are
	// recorded per node, so walk each root once more.
	for name, n := range out.roots {
		if why := c.slowReach(n, map[*fnode]bool{}); why != "" {
			delete(out.roots, name)
			out.slow[name] = why
		}
	}
	makePlans(c.nodes)
	return out
})

type fcompiler struct {
	fsys  fs.FS
	docs  map[string]any
	nodes map[string]*fnode // by file#pointer
	bad   map[*fnode]string
	err   error
}

func (c *fcompiler) fail(n *fnode, format string, args ...any) {
	if c.bad == nil {
		c.bad = map[*fnode]string{}
	}
	msg := fmt.Sprintf(format, args...)
	c.bad[n] = msg
	if c.err == nil {
		c.err = fmt.Errorf("%s: %s", n.loc, msg)
	}
}

func (c *fcompiler) slowReach(n *fnode, seen map[*fnode]bool) string {
	if n == nil || seen[n] {
		return ""
	}
	seen[n] = true
	if why, ok := c.bad[n]; ok {
		return n.loc + ": " + why
	}
	subs := []*fnode{n.addl, n.items, n.ref, n.not, n.ifN, n.thenN, n.elseN}
	subs = append(subs, n.anyOf...)
	subs = append(subs, n.oneOf...)
	subs = append(subs, n.allOf...)
	for _, p := range n.keys {
		subs = append(subs, p.n)
	}
	for _, s := range subs {
		if why := c.slowReach(s, seen); why != "" {
			return why
		}
	}
	return ""
}

func (c *fcompiler) doc(file string) any {
	if d, ok := c.docs[file]; ok {
		return d
	}
	data, err := fs.ReadFile(c.fsys, file)
	var d any
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		err = dec.Decode(&d)
	}
	if err != nil {
		c.docs[file] = nil
		return nil
	}
	c.docs[file] = d
	return d
}

// resolve compiles the schema at file#pointer, once.
func (c *fcompiler) resolve(file, pointer string) *fnode {
	loc := file + "#" + pointer
	if n, ok := c.nodes[loc]; ok {
		return n
	}
	n := &fnode{loc: loc}
	c.nodes[loc] = n
	d := c.doc(file)
	if d == nil {
		c.fail(n, "no such schema file")
		return n
	}
	if pointer != "" {
		for _, tok := range strings.Split(pointer[1:], "/") {
			tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			switch v := d.(type) {
			case map[string]any:
				d = v[tok]
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(v) {
					d = nil
				} else {
					d = v[i]
				}
			default:
				d = nil
			}
		}
	}
	c.compile(n, file, pointer, d)
	return n
}

func (c *fcompiler) sub(file, pointer string, _ any) *fnode {
	return c.resolve(file, pointer)
}

func (c *fcompiler) compile(n *fnode, file, ptr string, raw any) {
	n.minProps, n.maxProps, n.minItems, n.maxItems, n.minLen, n.maxLen = -1, -1, -1, -1, -1, -1
	switch v := raw.(type) {
	case bool:
		n.never = !v
		return
	case map[string]any:
		c.compileObject(n, file, ptr, v)
	default:
		c.fail(n, "not a schema")
	}
}

func (c *fcompiler) compileObject(n *fnode, file, ptr string, m map[string]any) {
	at := func(k string) string {
		return ptr + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
	}
	intOf := func(k string) int {
		num, ok := m[k].(json.Number)
		if !ok {
			c.fail(n, "%s is not a number", k)
			return -1
		}
		i, err := num.Int64()
		if err != nil {
			c.fail(n, "%s is not an integer", k)
		}
		return int(i)
	}
	ratOf := func(k string) *big.Rat {
		num, ok := m[k].(json.Number)
		r, ok2 := new(big.Rat).SetString(string(num))
		if !ok || !ok2 {
			c.fail(n, "%s is not a number", k)
		}
		return r
	}
	required := map[string]int{}
	for k, v := range m {
		switch k {
		case "$id":
			if ptr != "" {
				c.fail(n, "nested $id")
			}
		case "deprecated":
			n.deprecated = v == true
		case "type":
			names, ok := v.([]any)
			if !ok {
				names = []any{v}
			}
			for _, t := range names {
				switch t {
				case "null":
					n.types |= tNull
				case "boolean":
					n.types |= tBool
				case "object":
					n.types |= tObject
				case "array":
					n.types |= tArray
				case "number":
					n.types |= tNumber
				case "integer":
					n.types |= tInteger
				case "string":
					n.types |= tString
				default:
					c.fail(n, "type %v", t)
				}
			}
		case "enum":
			vals, ok := v.([]any)
			if !ok {
				c.fail(n, "enum is not an array")
				break
			}
			n.enum = vals
			n.enumStr = map[string]bool{}
			for _, e := range vals {
				s, ok := e.(string)
				if !ok {
					n.enumStr = nil
					break
				}
				n.enumStr[s] = true
			}
		case "const":
			n.hasConst, n.constVal = true, v
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				c.fail(n, "properties is not an object")
				break
			}
			if n.keys == nil {
				n.keys = map[string]*fprop{}
			}
			for name := range props {
				p := n.keys[name]
				if p == nil {
					p = &fprop{req: -1}
					n.keys[name] = p
				}
				p.n = c.sub(file, at("properties")+"/"+strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1"), props[name])
			}
		case "required":
			names, ok := v.([]any)
			if !ok {
				c.fail(n, "required is not an array")
				break
			}
			for _, r := range names {
				s, _ := r.(string)
				if _, dup := required[s]; !dup {
					required[s] = len(required)
				}
			}
		case "additionalProperties":
			if b, ok := v.(bool); ok && !b {
				n.addlFalse = true
			} else if !ok {
				n.addl = c.sub(file, at(k), v)
			}
		case "minProperties":
			n.minProps = intOf(k)
		case "maxProperties":
			n.maxProps = intOf(k)
		case "dependentRequired":
			deps, ok := v.(map[string]any)
			if !ok {
				c.fail(n, "dependentRequired is not an object")
				break
			}
			n.depReq = map[string][]string{}
			for name, list := range deps {
				arr, _ := list.([]any)
				for _, x := range arr {
					s, _ := x.(string)
					n.depReq[name] = append(n.depReq[name], s)
				}
			}
		case "items":
			if b, ok := v.(bool); ok {
				n.items = &fnode{loc: n.loc + "/items", never: !b}
			} else {
				n.items = c.sub(file, at(k), v)
			}
		case "minItems":
			n.minItems = intOf(k)
		case "maxItems":
			n.maxItems = intOf(k)
		case "minLength":
			n.minLen = intOf(k)
		case "maxLength":
			n.maxLen = intOf(k)
		case "pattern":
			s, _ := v.(string)
			re, err := regexp.Compile(s)
			if err != nil {
				c.fail(n, "pattern: %v", err)
			}
			n.pattern = re
		case "format":
			switch v {
			case "date":
				n.format = fmtDate
			case "date-time":
				n.format = fmtDateTime
			default:
				c.fail(n, "format %v", v)
			}
		case "minimum":
			n.minimum = ratOf(k)
		case "maximum":
			n.maximum = ratOf(k)
		case "exclusiveMinimum":
			n.exMin = ratOf(k)
		case "exclusiveMaximum":
			n.exMax = ratOf(k)
		case "$ref":
			ref, _ := v.(string)
			n.ref = c.ref(n, file, ref)
		case "anyOf", "oneOf", "allOf":
			list, ok := v.([]any)
			if !ok {
				c.fail(n, "%s is not an array", k)
				break
			}
			var subs []*fnode
			for i, s := range list {
				subs = append(subs, c.sub(file, at(k)+"/"+strconv.Itoa(i), s))
			}
			switch k {
			case "anyOf":
				n.anyOf = subs
			case "oneOf":
				n.oneOf = subs
			default:
				n.allOf = subs
			}
		case "not":
			n.not = c.sub(file, at(k), v)
		case "if":
			n.ifN = c.sub(file, at(k), v)
		case "then":
			n.thenN = c.sub(file, at(k), v)
		case "else":
			n.elseN = c.sub(file, at(k), v)
		default:
			if !annotations[k] {
				c.fail(n, "keyword %s is not compiled", k)
			}
		}
	}
	if n.ifN == nil {
		n.thenN, n.elseN = nil, nil
	}
	if len(required) > 0 {
		if len(required) > 64 {
			c.fail(n, "more than 64 required properties")
		}
		if n.keys == nil {
			n.keys = map[string]*fprop{}
		}
		for name, bit := range required {
			p := n.keys[name]
			if p == nil {
				p = &fprop{req: -1}
				n.keys[name] = p
			}
			p.req = bit
		}
		n.nreq = len(required)
	}
}

// ref resolves a $ref against the schema set's base, where each schema's $id
// is its file name.
func (c *fcompiler) ref(n *fnode, file, ref string) *fnode {
	base, _ := url.Parse("https://v4cert.dev/schemas/" + file)
	u, err := url.Parse(ref)
	if err != nil {
		c.fail(n, "$ref %q: %v", ref, err)
		return nil
	}
	abs := base.ResolveReference(u)
	if abs.Host != "v4cert.dev" {
		c.fail(n, "$ref %q leaves the schema set", ref)
		return nil
	}
	frag := abs.Fragment
	if frag != "" && !strings.HasPrefix(frag, "/") {
		c.fail(n, "$ref %q uses an anchor", ref)
		return nil
	}
	return c.resolve(path.Base(abs.Path), frag)
}

// deprNote is a deprecated field present in a body.
type deprNote struct {
	Pointer  string
	Location string
}

// fvalidator walks one body. It is reused through a pool.
type fvalidator struct {
	d     []byte
	path  []pathSeg
	notes []deprNote
	quiet int // >0 inside anyOf/oneOf/not/if, whose failures are not the body's
	// noPlan >0: objects are walked the unmerged way (planned's fallback).
	noPlan int
	// What the walk saw of member names, for the cassette's redaction (one
	// read of the body serves both): secretish, a name that may be a
	// secret's; unseen, an object or array passed over without its names
	// being read by any schema.
	secretish, unseen bool
}

type pathSeg struct {
	key string // aliases the body; empty with idx >= 0
	idx int
}

var validatorPool = sync.Pool{New: func() any { return &fvalidator{} }}

func (v *fvalidator) pointer() string {
	var b strings.Builder
	for _, s := range v.path {
		b.WriteByte('/')
		if s.idx >= 0 {
			b.WriteString(strconv.Itoa(s.idx))
		} else {
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s.key, "~", "~0"), "/", "~1"))
		}
	}
	return b.String()
}

// validate reports whether body matches the named schema (each element of an
// array body when array is set). known is false when the schema is slow.
func (f *fastSchemas) validate(name string, array bool, body []byte) (valid, known bool, notes []deprNote) {
	valid, known, notes, _, _ = f.validateCount(name, array, body)
	return
}

// validateCount is validate that also counts the elements of a valid array
// body, which pagination checks need, sparing them a second pass, and says
// whether the walk read every member name of a valid body and none may be
// a secret's (noSecretNames), which spares the cassette's redaction its own
// look at the names.
func (f *fastSchemas) validateCount(name string, array bool, body []byte) (valid, known bool, notes []deprNote, count int, noSecretNames bool) {
	return f.validateWith(name, array, body, true)
}

// validateWith is validateCount with plans (fastplan.go) or, for tests
// holding the two together, without.
func (f *fastSchemas) validateWith(name string, array bool, body []byte, plans bool) (valid, known bool, notes []deprNote, count int, noSecretNames bool) {
	root, ok := f.roots[name]
	if !ok {
		return false, false, nil, -1, false
	}
	v := validatorPool.Get().(*fvalidator)
	v.d, v.path, v.notes, v.quiet, v.noPlan = body, v.path[:0], v.notes[:0], 0, 0
	if !plans {
		v.noPlan = 1
	}
	v.secretish, v.unseen = false, false
	i := skipSpace(body, 0)
	var end int
	count = -1
	if array {
		if i >= len(body) || body[i] != '[' {
			ok = false
		} else {
			end, count, ok = v.array(root, i, 0)
		}
	} else {
		end, ok = v.check(root, i, 0)
	}
	if ok && skipSpace(body, end) != len(body) {
		ok = false
	}
	if len(v.notes) > 0 {
		notes = slices.Clone(v.notes)
	}
	noSecretNames = ok && !v.secretish && !v.unseen
	v.d = nil
	validatorPool.Put(v)
	if !ok {
		count = -1
	}
	return ok, true, notes, count, noSecretNames
}

// array checks a top-level array body element by element.
func (v *fvalidator) array(n *fnode, i, depth int) (int, int, bool) {
	d := v.d
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1, 0, true
	}
	for idx := 0; ; idx++ {
		v.path = append(v.path, pathSeg{idx: idx})
		end, ok := v.check(n, i, depth+1)
		v.path = v.path[:len(v.path)-1]
		if !ok {
			return 0, 0, false
		}
		i = skipSpace(d, end)
		if i >= len(d) {
			return 0, 0, false
		}
		if d[i] == ']' {
			return i + 1, idx + 1, true
		}
		if d[i] != ',' {
			return 0, 0, false
		}
		i = skipSpace(d, i+1)
	}
}

// check validates the value at d[i] against n and returns where it ends.
func (v *fvalidator) check(n *fnode, i, depth int) (int, bool) {
	d := v.d
	i = skipSpace(d, i)
	if i >= len(d) || depth > maxDepth || n.never {
		return 0, false
	}
	start := i
	var end int
	var ok bool
	switch c := d[i]; {
	case c == '"':
		end, ok = v.str(n, i)
	case c == '{':
		if n.plan != nil && v.noPlan == 0 {
			return v.planned(n, i, depth)
		}
		end, ok = v.object(n, i, depth)
	case c == '[':
		end, ok = v.arr(n, i, depth)
	case c == 't' || c == 'f':
		if c == 't' {
			end, ok = literalAt(d, i, "true")
		} else {
			end, ok = literalAt(d, i, "false")
		}
		ok = ok && (n.types == 0 || n.types&tBool != 0) && n.enumStr == nil
	case c == 'n':
		end, ok = literalAt(d, i, "null")
		ok = ok && (n.types == 0 || n.types&tNull != 0) && n.enumStr == nil
	default:
		end, ok = v.number(n, i)
	}
	if !ok {
		return 0, false
	}
	if (n.enum != nil && n.enumStr == nil) || n.hasConst {
		if !v.equalsAny(n, d[start:end]) {
			return 0, false
		}
	}
	if n.ref != nil {
		if _, ok := v.check(n.ref, start, depth+1); !ok {
			return 0, false
		}
	}
	for _, s := range n.allOf {
		if _, ok := v.check(s, start, depth+1); !ok {
			return 0, false
		}
	}
	if n.anyOf != nil || n.oneOf != nil || n.not != nil || n.ifN != nil {
		return end, v.alternatives(n, start, depth)
	}
	return end, true
}

func (v *fvalidator) alternatives(n *fnode, start, depth int) bool {
	if n.anyOf != nil {
		found := false
		for _, s := range n.anyOf {
			// Deprecated fields count only in the alternative that matched.
			mark := len(v.notes)
			if _, ok := v.check(s, start, depth+1); ok {
				found = true
				break
			}
			v.notes = v.notes[:mark]
		}
		if !found {
			return false
		}
	}
	if n.oneOf != nil {
		v.quiet++
		matched := 0
		for _, s := range n.oneOf {
			if _, ok := v.check(s, start, depth+1); ok {
				matched++
			}
		}
		v.quiet--
		if matched != 1 {
			return false
		}
	}
	if n.not != nil {
		v.quiet++
		_, ok := v.check(n.not, start, depth+1)
		v.quiet--
		if ok {
			return false
		}
	}
	if n.ifN != nil {
		v.quiet++
		_, ok := v.check(n.ifN, start, depth+1)
		v.quiet--
		branch := n.elseN
		if ok {
			branch = n.thenN
		}
		if branch != nil {
			if _, ok := v.check(branch, start, depth+1); !ok {
				return false
			}
		}
	}
	return true
}

func (v *fvalidator) str(n *fnode, i int) (int, bool) {
	d := v.d
	end, esc, ok := scanString(d, i)
	if !ok || (n.types != 0 && n.types&tString == 0) {
		return 0, false
	}
	if n.enumStr == nil && n.minLen < 0 && n.maxLen < 0 && n.pattern == nil && n.format == fmtNone {
		return end, true
	}
	s := stringValue(d[i:end], esc)
	if n.enumStr != nil && !n.enumStr[s] {
		return 0, false
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if (n.minLen >= 0 && l < n.minLen) || (n.maxLen >= 0 && l > n.maxLen) {
			return 0, false
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		return 0, false
	}
	switch n.format {
	case fmtDate:
		ok = validDate(s)
	case fmtDateTime:
		ok = validDateTime(s)
	}
	return end, ok
}

func (v *fvalidator) number(n *fnode, i int) (int, bool) {
	d := v.d
	end, plain, ok := scanNumber(d, i)
	if !ok {
		return 0, false
	}
	if n.types != 0 && n.types&tNumber == 0 {
		if n.types&tInteger == 0 || !(plain || numberIsInteger(d[i:end])) {
			return 0, false
		}
	}
	if n.minimum != nil || n.maximum != nil || n.exMin != nil || n.exMax != nil {
		r, ok := new(big.Rat).SetString(string(d[i:end]))
		if !ok {
			return 0, false
		}
		if (n.minimum != nil && r.Cmp(n.minimum) < 0) || (n.maximum != nil && r.Cmp(n.maximum) > 0) ||
			(n.exMin != nil && r.Cmp(n.exMin) <= 0) || (n.exMax != nil && r.Cmp(n.exMax) >= 0) {
			return 0, false
		}
	}
	if n.enumStr != nil {
		return 0, false // every allowed value is a string
	}
	return end, true
}

func (v *fvalidator) object(n *fnode, i, depth int) (int, bool) {
	d := v.d
	if n.types != 0 && n.types&tObject == 0 {
		return 0, false
	}
	if n.enumStr != nil {
		return 0, false
	}
	var seen uint64
	count := 0
	var present []string // only for dependentRequired, which one error shape uses
	var order []keyGuess
	var learn []keyGuess // the first object: its names become the order
	if o := n.order.Load(); o != nil {
		order = *o
	}
	next := 0
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		i++
	} else {
		for {
			if i >= len(d) || d[i] != '"' {
				return 0, false
			}
			kstart := i
			kend, esc, ok := scanString(d, i)
			if !ok {
				return 0, false
			}
			key := stringValue(d[i:kend], esc)
			i = skipSpace(d, kend)
			if i >= len(d) || d[i] != ':' {
				return 0, false
			}
			i++
			count++
			if n.depReq != nil {
				present = append(present, key)
			}
			var p *fprop
			hit := false
			// The expected name, or one a few on (optional members left out).
			for k := next; k < len(order) && k < next+4; k++ {
				if order[k].name == key {
					p, hit, next = order[k].p, true, k+1
					v.secretish = v.secretish || order[k].secretish
					break
				}
			}
			if !hit {
				p = n.keys[key]
				secretish := esc || mayBeSecretName(d[kstart+1:kend-1])
				v.secretish = v.secretish || secretish
				if order == nil && len(learn) < 64 {
					learn = append(learn, keyGuess{strings.Clone(key), p, secretish})
				}
			}
			var sub *fnode
			if p != nil {
				if p.req >= 0 {
					seen |= 1 << p.req
				}
				sub = p.n
			}
			if sub == nil {
				if n.addlFalse {
					return 0, false
				}
				sub = n.addl
			}
			if sub != nil {
				v.path = append(v.path, pathSeg{key: key, idx: -1})
				if v.quiet == 0 && (sub.deprecated || (sub.ref != nil && sub.ref.deprecated)) {
					loc := sub.loc
					if !sub.deprecated {
						loc = sub.ref.loc
					}
					v.noteDeprecated(loc)
				}
				if sub.leaf != 0 {
					i, ok = v.checkLeaf(sub.leaf, i, depth+1)
				} else {
					i, ok = v.check(sub, i, depth+1)
				}
				v.path = v.path[:len(v.path)-1]
			} else {
				v.passOver(n, i)
				i, ok = skipValue(d, i, depth+1)
			}
			if !ok {
				return 0, false
			}
			var more bool
			if i, more = nextMember(d, i, '}'); i < 0 {
				return 0, false
			}
			if !more {
				break
			}
		}
	}
	if len(learn) > 0 {
		l := learn // declared here, so only a learning call allocates it
		n.order.CompareAndSwap(nil, &l)
	}
	if n.nreq > 0 && seen != (uint64(1)<<n.nreq)-1 {
		return 0, false
	}
	if (n.minProps >= 0 && count < n.minProps) || (n.maxProps >= 0 && count > n.maxProps) {
		return 0, false
	}
	for name, needs := range n.depReq {
		if !slices.Contains(present, name) {
			continue
		}
		for _, need := range needs {
			if !slices.Contains(present, need) {
				return 0, false
			}
		}
	}
	return i, true
}

// passOver notes an object or array skipped under n without its member
// names read, unless another schema of n ($ref, allOf, anyOf, oneOf) walks
// the same value.
func (v *fvalidator) passOver(n *fnode, i int) {
	if n.ref != nil || n.allOf != nil || n.anyOf != nil || n.oneOf != nil {
		return
	}
	if j := skipSpace(v.d, i); j < len(v.d) && (v.d[j] == '{' || v.d[j] == '[') {
		v.unseen = true
	}
}

func (v *fvalidator) noteDeprecated(loc string) {
	p := v.pointer()
	for _, n := range v.notes {
		if n.Location == loc && samePattern(n.Pointer, p) {
			return
		}
	}
	v.notes = append(v.notes, deprNote{Pointer: p, Location: loc})
}

// samePattern treats pointers that differ only in array indices as one, so a
// deprecated field is noted once per page, not once per element.
func samePattern(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		if as[i] != bs[i] {
			if _, err := strconv.Atoi(as[i]); err != nil {
				return false
			}
			if _, err := strconv.Atoi(bs[i]); err != nil {
				return false
			}
		}
	}
	return true
}

func (v *fvalidator) arr(n *fnode, i, depth int) (int, bool) {
	d := v.d
	if n.types != 0 && n.types&tArray == 0 {
		return 0, false
	}
	if n.enumStr != nil {
		return 0, false
	}
	count := 0
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		i++
	} else {
		for {
			var ok bool
			if n.items != nil {
				v.path = append(v.path, pathSeg{idx: count})
				i, ok = v.check(n.items, i, depth+1)
				v.path = v.path[:len(v.path)-1]
			} else {
				v.passOver(n, i)
				i, ok = skipValue(d, i, depth+1)
			}
			if !ok {
				return 0, false
			}
			count++
			var more bool
			if i, more = nextMember(d, i, ']'); i < 0 {
				return 0, false
			}
			if !more {
				break
			}
		}
	}
	if (n.minItems >= 0 && count < n.minItems) || (n.maxItems >= 0 && count > n.maxItems) {
		return 0, false
	}
	return i, true
}

// equalsAny compares a value with enum or const the way JSON Schema does:
// numbers by value, objects regardless of key order.
func (v *fvalidator) equalsAny(n *fnode, raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var val any
	if err := dec.Decode(&val); err != nil {
		return false
	}
	if n.hasConst && !jsonEqual(val, n.constVal) {
		return false
	}
	if n.enum != nil && n.enumStr == nil {
		for _, e := range n.enum {
			if jsonEqual(val, e) {
				return true
			}
		}
		return false
	}
	return true
}

func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && rx.Cmp(ry) == 0
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// validDate and validDateTime follow the format checks of the JSON Schema
// library package schemas uses (RFC 3339 full-date and date-time), so both
// paths agree; a test holds them to that.
func validDate(s string) bool {
	_, err := time.Parse("2006-01-02", s)
	return err == nil
}

func validDateTime(s string) bool {
	if len(s) < 20 || (s[10] != 't' && s[10] != 'T') {
		return false
	}
	return validDate(s[:10]) && validTime(s[11:])
}

func validTime(str string) bool {
	if len(str) < 9 || str[2] != ':' || str[5] != ':' {
		return false
	}
	num := func(s string) (int, bool) {
		i, err := strconv.Atoi(s)
		return i, err == nil && i >= 0
	}
	h, ok1 := num(str[0:2])
	m, ok2 := num(str[3:5])
	s, ok3 := num(str[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || s > 60 {
		return false
	}
	str = str[8:]
	if rem, ok := strings.CutPrefix(str, "."); ok {
		digits := 0
		for digits < len(rem) && rem[digits] >= '0' && rem[digits] <= '9' {
			digits++
		}
		if digits == 0 {
			return false
		}
		str = rem[digits:]
	}
	if str != "z" && str != "Z" {
		if len(str) != 6 {
			return false
		}
		var sign int
		switch str[0] {
		case '+':
			sign = -1
		case '-':
			sign = 1
		default:
			return false
		}
		str = str[1:]
		if str[2] != ':' {
			return false
		}
		zh, ok1 := num(str[:2])
		zm, ok2 := num(str[3:])
		if !ok1 || !ok2 || zh > 23 || zm > 59 {
			return false
		}
		hm := (h*60 + m) + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	return s < 60 || (h == 23 && m == 59)
}
