package suites

import (
	"net/http"
	"strconv"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/v4cert/v4cert/specs"
)

// Boolean parameters: Endpoints convention 7 ("Boolean parameters take only
// true or false") and the rules that repeat it per endpoint. The sentence
// tells clients what to send and says nothing of what a server makes of
// other words, so it admits the platform's behaviour (class 2 of the rule of
// precedence, docs/rulebook.md). The platform reads the other words of its
// coercion (specs.BoolWord: 1/0, yes/no, on/off, t/f, y/n in their exact
// cases) and refuses every other word with 400. A boolean rule therefore
// holds a target to this:
//   - a word that is no boolean to either answers 400;
//   - a word the platform reads answers 400 (the spec's strict reading), or
//     succeeds meaning what the platform reads, as the same request with
//     true or false shows it.

// boolWords sample the platform's other spellings: every family, both values.
var boolWords = []string{"yes", "0", "on", "F", "TRUE", "n"}

// notBoolWords are no booleans to the spec or to the platform: a word, a
// number, a misspelling and a case the platform's coercion does not take.
var notBoolWords = []string{"maybe", "2", "truee", "tRuE"}

// boolProbe is one boolean parameter of one endpoint, as a spec sends it.
type boolProbe struct {
	// send sends the parameter with one value.
	send func(word string) *Response
	// meaning is what a successful answer shows of the value read: the IDs
	// a filter keeps, the field a write set.
	meaning func(r *Response) any
	// alike: true and false show no difference the suite can see (a
	// recalculation the answer does not reveal); only the success and the
	// answer's sameness are judged.
	alike bool
}

// expectBooleanWords judges the words of boolWords and notBoolWords on p.
func expectBooleanWords(p boolProbe) {
	GinkgoHelper()
	want := map[bool]any{}
	for _, v := range []bool{true, false} {
		r := p.send(strconv.FormatBool(v))
		Expect(r).To(HaveStatus(http.StatusOK, http.StatusCreated), "%v is a boolean", v)
		want[v] = p.meaning(r)
	}
	if !p.alike {
		Expect(want[true]).NotTo(Equal(want[false]), "true and false must show apart for the other words to be judged")
	}
	for _, w := range boolWords {
		r := p.send(w)
		if r.Status == http.StatusBadRequest {
			continue // the spec's strict reading
		}
		v, _ := specs.BoolWord(w)
		Expect(r).To(HaveStatus(http.StatusOK, http.StatusCreated), "%q: 400, or read as %v as the platform reads it", w, v)
		Expect(p.meaning(r)).To(Equal(want[v]), "the platform reads %q as %v", w, v)
	}
	for _, w := range notBoolWords {
		Expect(p.send(w)).To(HaveStatus(http.StatusBadRequest), "%q is no boolean", w)
	}
}

// containsEach reports, for each id, whether the list answer holds it.
func containsEach(r *Response, ids ...int) []bool {
	got := map[int]bool{}
	for _, id := range r.IDs() {
		got[id] = true
	}
	out := make([]bool, len(ids))
	for i, id := range ids {
		out[i] = got[id]
	}
	return out
}
