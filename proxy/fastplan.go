package proxy

import (
	"slices"
	"strings"
	"sync/atomic"
)

// A schema with $ref or allOf beside its own keywords (user_list_entry is
// user_reference plus `locked`) is checked by check as one walk of the
// object for itself, then another for each schema it refers to: every
// list entry read twice. An objPlan merges what those schemas ask of an
// object's members into one table, so an object is read once and each
// member checked against every schema that names it, at the depth each
// would have checked it. The verdict is check's by construction; where the
// order of deprecated-field notes could differ (two of the schemas may
// note one) no plan is made, and when a planned walk fails where notes
// may have been taken, the object is walked again the unmerged way, so a
// failing body's notes are check's too.
type objPlan struct {
	conj    []conjunct
	maxHop  int
	keys    map[string]*pprop
	unknown pprop // a name no schema's properties hold
	order   atomic.Pointer[[]planGuess]
	nreq    int
	// minProps, maxProps: the tightest of the schemas' (-1: none).
	minProps, maxProps int
	depReq             map[string][]string
	mayNote            bool // one of the schemas may note a deprecated field
}

// conjunct is one schema applying to the object, hop $ref/allOf steps
// from the planned node (check would reach it at depth+hop).
type conjunct struct {
	n   *fnode
	hop int
}

// pprop is what the schemas ask of one member name.
type pprop struct {
	subs []psub // schemas to check the value against, each at depth+hop+1
	// noting: checking the value may note a deprecated field, whose
	// pointer needs the member's name on v.path; else it is not pushed.
	noting bool
	// skipHop is the deepest hop of a schema that passes the value over
	// (syntax only), -1 when none or when a check as deep covers it.
	skipHop int
	fail    bool // a schema's additionalProperties: false refuses the name
	unseen  bool // a schema passes the value over without another reading it (passOver)
	req     int  // bit of a required name, -1 otherwise
}

// psub is a member's schema with what walkPlan asks of it at hand.
type psub struct {
	n    *fnode
	hop  int
	leaf uint8  // n.leaf
	note string // the location to note when n (or its $ref) is deprecated
}

type planGuess struct {
	name      string
	p         *pprop
	secretish bool
	// plain: name holds no quote, backslash or control character, so a
	// key spelled as name, then a quote, is name without scanning it.
	plain bool
}

// maxConjuncts bounds a plan; beyond it check's own walk is used.
const maxConjuncts = 16

// makePlans gives every node with $ref or allOf that can have one a plan.
func makePlans(nodes map[string]*fnode) {
	for _, n := range nodes {
		n.leaf = leafTypes(n)
	}
	for _, n := range nodes {
		if n.ref != nil || n.allOf != nil { // (after every leaf is known)
			n.plan = planFor(n)
		}
	}
}

func planFor(n *fnode) *objPlan {
	p := &objPlan{keys: map[string]*pprop{}, minProps: -1, maxProps: -1}
	var collect func(c *fnode, hop int, chain []*fnode) bool
	collect = func(c *fnode, hop int, chain []*fnode) bool {
		if c == nil || slices.Contains(chain, c) || len(p.conj) >= maxConjuncts {
			return false
		}
		// A schema refusing every object (false, a type without object,
		// a string enum) fails before walking; check's way says so.
		if c.never || (c.types != 0 && c.types&tObject == 0) || c.enumStr != nil {
			return false
		}
		p.conj = append(p.conj, conjunct{c, hop})
		chain = append(chain, c)
		if c.ref != nil && !collect(c.ref, hop+1, chain) {
			return false
		}
		for _, s := range c.allOf {
			if !collect(s, hop+1, chain) {
				return false
			}
		}
		return true
	}
	if !collect(n, 0, nil) {
		return nil
	}
	noting := 0
	for _, c := range p.conj {
		p.maxHop = max(p.maxHop, c.hop)
		if mayNoteOwn(c.n) {
			noting++
		}
	}
	if noting > 1 {
		return nil
	}
	p.mayNote = noting == 1
	// Names: every schema's properties and required names.
	var names []string
	for _, c := range p.conj {
		for name := range c.n.keys {
			if _, ok := p.keys[name]; !ok {
				p.keys[name] = &pprop{}
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	for _, name := range names {
		pp := p.keys[name]
		pp.req = -1
		fill(pp, p.conj, func(c *fnode) (*fnode, bool) {
			if fp := c.keys[name]; fp != nil {
				return fp.n, fp.n != nil
			}
			return nil, false
		})
		for _, c := range p.conj {
			if fp := c.n.keys[name]; fp != nil && fp.req >= 0 && pp.req < 0 {
				pp.req = p.nreq
				p.nreq++
			}
		}
	}
	if p.nreq > 64 {
		return nil
	}
	fill(&p.unknown, p.conj, func(*fnode) (*fnode, bool) { return nil, false })
	p.unknown.req = -1
	for _, c := range p.conj {
		n := c.n
		if n.minProps >= 0 {
			p.minProps = max(p.minProps, n.minProps)
		}
		if n.maxProps >= 0 && (p.maxProps < 0 || n.maxProps < p.maxProps) {
			p.maxProps = n.maxProps
		}
		for name, needs := range n.depReq {
			if p.depReq == nil {
				p.depReq = map[string][]string{}
			}
			p.depReq[name] = append(p.depReq[name], needs...)
		}
	}
	return p
}

// fill sets what each schema asks of a member: prop gives its property
// schema of the name when it has one; otherwise its additionalProperties
// applies (a schema, false, or nothing: passed over).
func fill(pp *pprop, conj []conjunct, prop func(*fnode) (*fnode, bool)) {
	skip, deepest := -1, -1
	for _, c := range conj {
		sub, ok := prop(c.n)
		if !ok {
			switch {
			case c.n.addlFalse:
				pp.fail = true
				continue
			case c.n.addl != nil:
				sub = c.n.addl
			default:
				skip = max(skip, c.hop)
				if c.n.ref == nil && c.n.allOf == nil && c.n.anyOf == nil && c.n.oneOf == nil {
					pp.unseen = true
				}
				continue
			}
		}
		ps := psub{n: sub, hop: c.hop, leaf: sub.leaf}
		switch {
		case sub.deprecated:
			ps.note = sub.loc
		case sub.ref != nil && sub.ref.deprecated:
			ps.note = sub.ref.loc
		}
		pp.subs = append(pp.subs, ps)
		deepest = max(deepest, c.hop)
		if sub.deprecated || (sub.ref != nil && sub.ref.deprecated) || mayNote(sub) {
			pp.noting = true
		}
	}
	pp.skipHop = -1
	if skip > deepest {
		pp.skipHop = skip
	}
}

// notable: an object walk of n may note a deprecated field at its level.
func notable(n *fnode) bool {
	dep := func(s *fnode) bool { return s != nil && (s.deprecated || (s.ref != nil && s.ref.deprecated)) }
	if dep(n.addl) {
		return true
	}
	for _, p := range n.keys {
		if dep(p.n) {
			return true
		}
	}
	return false
}

// mayNote: checking a value against n may note a deprecated field.
func mayNote(n *fnode) bool {
	seen := map[*fnode]bool{}
	var reach func(m *fnode) bool
	reach = func(m *fnode) bool {
		if m == nil || seen[m] {
			return false
		}
		seen[m] = true
		return notable(m) || slices.ContainsFunc(children(m), reach)
	}
	return reach(n)
}

// mayNoteOwn: checking a value against n may note a deprecated field
// other than through n's $ref and allOf (separate conjuncts of a plan).
func mayNoteOwn(n *fnode) bool {
	if notable(n) {
		return true
	}
	seen := map[*fnode]bool{n: true}
	var reach func(m *fnode) bool
	reach = func(m *fnode) bool {
		if m == nil || seen[m] {
			return false
		}
		seen[m] = true
		if notable(m) {
			return true
		}
		return slices.ContainsFunc(children(m), reach)
	}
	for _, s := range ownChildren(n) {
		if reach(s) {
			return true
		}
	}
	return false
}

func ownChildren(n *fnode) []*fnode {
	out := []*fnode{n.addl, n.items, n.not, n.ifN, n.thenN, n.elseN}
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	for _, p := range n.keys {
		out = append(out, p.n)
	}
	return out
}

func children(n *fnode) []*fnode {
	return append(append(ownChildren(n), n.ref), n.allOf...)
}

// planned is check of the object at d[start] against n by n's plan.
func (v *fvalidator) planned(n *fnode, start, depth int) (int, bool) {
	p := n.plan
	mark, pathMark, unseen := len(v.notes), len(v.path), v.unseen
	end, ok := v.walkPlan(p, start, depth)
	if ok {
		return end, true
	}
	v.path = v.path[:pathMark]
	if !p.mayNote || v.quiet > 0 {
		return 0, false // notes could not differ: the verdict is the same
	}
	// The notes taken up to the failure may not be check's: walk again
	// the unmerged way (plans below too, so the cost is one walk more).
	v.notes, v.path, v.unseen = v.notes[:mark], v.path[:pathMark], unseen
	v.noPlan++
	end, ok = v.check(n, start, depth)
	v.noPlan--
	return end, ok
}

func (v *fvalidator) walkPlan(p *objPlan, start, depth int) (int, bool) {
	d := v.d
	if depth+p.maxHop > maxDepth {
		return 0, false
	}
	var seen uint64
	count := 0
	var present []string
	var order []planGuess
	var learn []planGuess
	if o := p.order.Load(); o != nil {
		order = *o
	}
	next := 0
	trackPresent := p.depReq != nil
	i := skipSpace(d, start+1)
	if i < len(d) && d[i] == '}' {
		i++
	} else {
		for {
			if i >= len(d) || d[i] != '"' {
				return 0, false
			}
			kstart := i
			var pp *pprop
			var key string
			hit, esc, ok := false, false, true
			kend := 0
			// The expected name, spelled plainly and closed, is the key
			// (what scanString would find, without the scan).
			if next < len(order) && order[next].plain {
				g := &order[next]
				if e := i + 1 + len(g.name); e < len(d) && d[e] == '"' && string(d[i+1:e]) == g.name {
					pp, hit, key, kend = g.p, true, g.name, e+1
					next++
					v.secretish = v.secretish || g.secretish
				}
			}
			if !hit {
				kend, esc, ok = scanString(d, i)
				if !ok {
					return 0, false
				}
				key = stringValue(d[i:kend], esc)
				// Or one a few on (optional members left out).
				for k := next; k < len(order) && k < next+4; k++ {
					if order[k].name == key {
						pp, hit, next = order[k].p, true, k+1
						v.secretish = v.secretish || order[k].secretish
						break
					}
				}
			}
			if i = kend; i < len(d) && d[i] == ':' {
				i++ // the common spelling, "key":value
			} else {
				i = skipSpace(d, kend)
				if i >= len(d) || d[i] != ':' {
					return 0, false
				}
				i++
			}
			count++
			if trackPresent {
				present = append(present, key)
			}
			if !hit {
				pp = p.keys[key]
				if pp == nil {
					pp = &p.unknown
				}
				secretish := esc || mayBeSecretName(d[kstart+1:kend-1])
				v.secretish = v.secretish || secretish
				if order == nil && len(learn) < 64 {
					learn = append(learn, planGuess{strings.Clone(key), pp, secretish, plainName(key)})
				}
			}
			if pp.fail {
				return 0, false
			}
			if pp.req >= 0 {
				seen |= 1 << pp.req
			}
			vstart := i
			if len(pp.subs) > 0 {
				if pp.noting {
					v.path = append(v.path, pathSeg{key: key, idx: -1})
				}
				for k := range pp.subs {
					s := &pp.subs[k]
					if s.note != "" && v.quiet == 0 {
						v.noteDeprecated(s.note)
					}
					if s.leaf != 0 {
						i, ok = v.checkLeaf(s.leaf, vstart, depth+s.hop+1)
					} else {
						i, ok = v.check(s.n, vstart, depth+s.hop+1)
					}
					if !ok {
						return 0, false
					}
				}
				if pp.noting {
					v.path = v.path[:len(v.path)-1]
				}
			}
			if pp.skipHop >= 0 {
				if i, ok = skipValue(d, vstart, depth+pp.skipHop+1); !ok {
					return 0, false
				}
			}
			if pp.unseen {
				if j := skipSpace(d, vstart); j < len(d) && (d[j] == '{' || d[j] == '[') {
					v.unseen = true
				}
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
		l := learn
		p.order.CompareAndSwap(nil, &l)
	}
	if p.nreq > 0 && seen != (uint64(1)<<p.nreq)-1 {
		return 0, false
	}
	if (p.minProps >= 0 && count < p.minProps) || (p.maxProps >= 0 && count > p.maxProps) {
		return 0, false
	}
	if p.depReq != nil {
		for name, needs := range p.depReq {
			if !slices.Contains(present, name) {
				continue
			}
			for _, need := range needs {
				if !slices.Contains(present, need) {
					return 0, false
				}
			}
		}
	}
	// What each schema asks of the whole value besides its members.
	for _, c := range p.conj {
		n := c.n
		if (n.enum != nil && n.enumStr == nil) || n.hasConst {
			if !v.equalsAny(n, d[start:i]) {
				return 0, false
			}
		}
		if n.anyOf != nil || n.oneOf != nil || n.not != nil || n.ifN != nil {
			if !v.alternatives(n, start, depth+c.hop) {
				return 0, false
			}
		}
	}
	return i, true
}

// leafTypes is n.types when n asks nothing of a value but its type, none
// of the types being object or array; 0 otherwise.
func leafTypes(n *fnode) uint8 {
	simple := !n.never && n.types != 0 && n.types&(tObject|tArray) == 0 &&
		n.enum == nil && n.enumStr == nil && !n.hasConst &&
		n.keys == nil && n.nreq == 0 && n.addl == nil && !n.addlFalse && n.minProps < 0 && n.maxProps < 0 && n.depReq == nil &&
		n.items == nil && n.minItems < 0 && n.maxItems < 0 &&
		n.minLen < 0 && n.maxLen < 0 && n.pattern == nil && n.format == fmtNone &&
		n.minimum == nil && n.maximum == nil && n.exMin == nil && n.exMax == nil &&
		n.ref == nil && n.anyOf == nil && n.oneOf == nil && n.allOf == nil && n.not == nil && n.ifN == nil
	if !simple {
		return 0
	}
	return n.types
}

// checkLeaf is check against a node whose leaf is t: the same verdict
// (see str, number and check's literals) without the general path.
func (v *fvalidator) checkLeaf(t uint8, i, depth int) (int, bool) {
	d := v.d
	i = skipSpace(d, i)
	if i >= len(d) || depth > maxDepth {
		return 0, false
	}
	switch c := d[i]; c {
	case '"':
		if t&tString == 0 {
			return 0, false
		}
		end, _, ok := scanString(d, i)
		return end, ok
	case 't':
		if t&tBool == 0 {
			return 0, false
		}
		return literalAt(d, i, "true")
	case 'f':
		if t&tBool == 0 {
			return 0, false
		}
		return literalAt(d, i, "false")
	case 'n':
		if t&tNull == 0 {
			return 0, false
		}
		return literalAt(d, i, "null")
	case '{', '[':
		return 0, false // neither type is allowed
	}
	end, plain, ok := scanNumber(d, i)
	if !ok {
		return 0, false
	}
	if t&tNumber == 0 && (t&tInteger == 0 || !(plain || numberIsInteger(d[i:end]))) {
		return 0, false
	}
	return end, true
}

func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
