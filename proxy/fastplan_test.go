package proxy

import (
	"reflect"
	"testing"

	"github.com/v4cert/v4cert/schemas"
)

// planOutcome is all a walk says of a body.
type planOutcome struct {
	Valid, Known bool
	Notes        []deprNote
	Count        int
}

func walkBoth(f *fastSchemas, name string, array bool, body []byte) (planned, unplanned planOutcome) {
	v, k, n, c, _ := f.validateWith(name, array, body, true)
	planned = planOutcome{v, k, n, c}
	v, k, n, c, _ = f.validateWith(name, array, body, false)
	unplanned = planOutcome{v, k, n, c}
	return
}

// TestPlansMatchUnplanned: an object checked in one walk by its plan gets
// the verdict, the deprecated-field notes (same order) and the count of the
// walk per schema, on every reference answer and on each of them broken at
// many places and checked against every schema.
func TestPlansMatchUnplanned(t *testing.T) {
	f := loadFast()
	bodies := [][]byte{
		[]byte(`{"id":1,"name":"g","path":"g","projects":[{"id":1}],"shared_projects":[],"merged_by":{"id":1}}`),
		[]byte(`[{"id":1,"username":"u","name":"n","state":"active","locked":false,"avatar_url":null,"web_url":"w","x":{"a":[1]}}]`),
	}
	for _, s := range corpus(t) {
		bodies = append(bodies, s.body)
	}
	n := 0
	for _, body := range bodies {
		variants := [][]byte{body}
		for _, cut := range []int{1, 2, 7, len(body) / 3, len(body) / 2, len(body) - 2} {
			if cut > 0 && cut < len(body) {
				variants = append(variants, body[:cut])
				b := append([]byte(nil), body...)
				b[cut] = '"'
				variants = append(variants, b)
				b = append([]byte(nil), body...)
				b[cut] = '1'
				variants = append(variants, b)
			}
		}
		for _, name := range schemas.Names() {
			if _, ok := f.roots[name]; !ok {
				continue
			}
			for _, b := range variants {
				for _, array := range []bool{false, true} {
					n++
					p, u := walkBoth(f, name, array, b)
					if !reflect.DeepEqual(p, u) {
						t.Fatalf("schema %s array=%v: planned %+v, unplanned %+v\nbody: %q", name, array, p, u, b)
					}
				}
			}
		}
	}
	t.Logf("%d walks alike", n)
}

func FuzzPlansMatchUnplanned(f *testing.F) {
	names := schemas.Names()
	for _, s := range corpus(f) {
		for i, n := range names {
			if n == s.schema {
				f.Add(uint16(i), s.array, s.body)
			}
		}
	}
	fast := loadFast()
	f.Fuzz(func(t *testing.T, i uint16, array bool, body []byte) {
		name := names[int(i)%len(names)]
		if p, u := walkBoth(fast, name, array, body); !reflect.DeepEqual(p, u) {
			t.Fatalf("schema %s array=%v: planned %+v, unplanned %+v\nbody: %q", name, array, p, u, body)
		}
	})
}
