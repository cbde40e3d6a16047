package proxy

import (
	"encoding/binary"
	"encoding/json"
	"math/big"
	"unsafe"
)

// The scanner below reads JSON in place: it finds where values begin and end
// and checks their syntax without building Go values, so judging a 6 KB page
// costs no garbage (a generic decode costs thousands of allocations, and
// garbage collection was the main cost of validation measured here).

// maxDepth bounds nesting so a hostile body cannot exhaust the stack.
const maxDepth = 512

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// scanString reads the string starting at d[i] == '"' and returns the index
// after its closing quote, and whether it holds escapes.
func scanString(d []byte, i int) (end int, escaped bool, ok bool) {
	i++
	for {
		// Runs of ordinary bytes are the bulk of a body; skip them first,
		// eight at a time while none of the eight is special.
		for i+16 <= len(d) && !specialIn2(binary.LittleEndian.Uint64(d[i:]), binary.LittleEndian.Uint64(d[i+8:])) {
			i += 16
		}
		for i+8 <= len(d) && !specialIn(binary.LittleEndian.Uint64(d[i:])) {
			i += 8
		}
		for i < len(d) && plainByte[d[i]] {
			i++
		}
		if i >= len(d) {
			return 0, false, false
		}
		switch c := d[i]; {
		case c == '"':
			return i + 1, escaped, true
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				return 0, false, false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) {
					return 0, false, false
				}
				for _, h := range d[i+2 : i+6] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				i += 6
			default:
				return 0, false, false
			}
		default: // a control character, which JSON strings may not hold raw
			return 0, false, false
		}
	}
}

// plainByte marks the bytes a string may hold as they are.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// specialIn reports whether any of eight bytes may end a run of plain
// string bytes: a quote, a backslash or a control character. It may say yes
// for a plain byte after a special one (a borrow carries on), never no for a
// special byte, and the byte-wise loop after it decides exactly.
func specialIn(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := x^(ones*'"'), x^(ones*'\\')
	return ((quote-ones)&^quote|(backslash-ones)&^backslash|(x-ones*0x20)&^x)&highs != 0
}

// specialIn2 is specialIn of sixteen bytes, one branch for both words.
func specialIn2(x, y uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	qx, bx := x^(ones*'"'), x^(ones*'\\')
	qy, by := y^(ones*'"'), y^(ones*'\\')
	return ((qx-ones)&^qx|(bx-ones)&^bx|(x-ones*0x20)&^x|
		(qy-ones)&^qy|(by-ones)&^by|(y-ones*0x20)&^y)&highs != 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// scanNumber reads a JSON number at d[i]; plain reports a literal without
// fraction or exponent.
func scanNumber(d []byte, i int) (end int, plain bool, ok bool) {
	start := i
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return 0, false, false
	}
	plain = true
	if i < len(d) && d[i] == '.' {
		plain = false
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return 0, false, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		plain = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return 0, false, false
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	_ = start
	return i, plain, true
}

// numberIsInteger reports whether a number literal has an integral value, as
// JSON Schema's integer type means it (1.0 and 1e2 are integers).
func numberIsInteger(lit []byte) bool {
	r, ok := new(big.Rat).SetString(string(lit))
	return ok && r.IsInt()
}

func literalAt(d []byte, i int, lit string) (int, bool) {
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return 0, false
	}
	return i + len(lit), true
}

// skipValue checks the syntax of the value at d[i] (after spaces) and returns
// the index after it.
func skipValue(d []byte, i, depth int) (int, bool) {
	i = skipSpace(d, i)
	if i >= len(d) || depth > maxDepth {
		return 0, false
	}
	switch c := d[i]; {
	case c == '"':
		end, _, ok := scanString(d, i)
		return end, ok
	case c == '{':
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(d) || d[i] != '"' {
				return 0, false
			}
			end, _, ok := scanString(d, i)
			if !ok {
				return 0, false
			}
			i = skipSpace(d, end)
			if i >= len(d) || d[i] != ':' {
				return 0, false
			}
			if i, ok = skipValue(d, i+1, depth+1); !ok {
				return 0, false
			}
			var more bool
			if i, more = nextMember(d, i, '}'); i < 0 {
				return 0, false
			}
			if !more {
				return i, true
			}
		}
	case c == '[':
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == ']' {
			return i + 1, true
		}
		for {
			var ok bool
			if i, ok = skipValue(d, i, depth+1); !ok {
				return 0, false
			}
			i = skipSpace(d, i)
			if i >= len(d) {
				return 0, false
			}
			if d[i] == ']' {
				return i + 1, true
			}
			if d[i] != ',' {
				return 0, false
			}
			i++
		}
	case c == 't':
		return literalAt(d, i, "true")
	case c == 'f':
		return literalAt(d, i, "false")
	case c == 'n':
		return literalAt(d, i, "null")
	default:
		end, _, ok := scanNumber(d, i)
		return end, ok
	}
}

// validJSON reports whether d is exactly one JSON value.
func validJSON(d []byte) bool {
	end, ok := skipValue(d, 0, 0)
	return ok && skipSpace(d, end) == len(d)
}

// stringValue returns the content of the string literal d[start:end]
// (quotes included). Without escapes it aliases d and allocates nothing; the
// result must not outlive d.
func stringValue(lit []byte, escaped bool) string {
	if !escaped {
		inner := lit[1 : len(lit)-1]
		if len(inner) == 0 {
			return ""
		}
		return unsafe.String(&inner[0], len(inner))
	}
	var s string
	if err := json.Unmarshal(lit, &s); err != nil {
		return ""
	}
	return s
}

// nextMember steps over what follows a value inside an object or array closed
// by end: with more, i is at the next member; without, i is just past end; a
// negative i means the input is malformed. The three scanners (schema checks,
// redaction, skipping) share it.
func nextMember(d []byte, i int, end byte) (next int, more bool) {
	i = skipSpace(d, i)
	switch {
	case i >= len(d):
		return -1, false
	case d[i] == end:
		return i + 1, false
	case d[i] != ',':
		return -1, false
	}
	return skipSpace(d, i+1), true
}
