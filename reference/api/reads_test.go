package api_test

import (
	"net/http"
	"testing"

	"github.com/v4cert/v4cert/specs"
)

// writingReads are the GET endpoints that may write, with the reason; each
// writes only in the case named, never on the reads this test makes.
var writingReads = map[string]string{
	"registry.repositories.list":       "completes a scheduled delete it shows (registry.repositories.delete.1)",
	"registry.repositories.group-list": "completes a scheduled delete it shows",
	"registry.repositories.get":        "completes a scheduled delete it shows",
}

// TestReadsDoNotWrite: a GET takes the store's shared lock only (STYLE: a GET
// never writes), on every GET endpoint of the rulebook over a world where
// each has something to show. The one write a request of any method may make
// is the caller's daily last_activity_on, which the world's building made already.
func TestReadsDoNotWrite(t *testing.T) {
	w, root, inst := worldServer(t)
	st := inst.Server.Store()
	reads := 0
	for _, e := range specs.Default().Endpoints {
		if e.Method != http.MethodGet || !e.UnderAPI() {
			continue
		}
		reads++
		before := st.Writes()
		r, err := root.Do("GET", w.Target(e), nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status >= 500 {
			t.Errorf("%s: %s", e.ID, r)
		}
		if n := st.Writes() - before; n != 0 {
			if why, ok := writingReads[e.ID]; ok {
				t.Errorf("%s wrote %d times on a read that shows no scheduled delete (it may write only when it %s)", e.ID, n, why)
			} else {
				t.Errorf("%s (GET %s) wrote %d times", e.ID, w.Target(e), n)
			}
		}
	}
	if reads < 60 {
		t.Fatalf("only %d GET endpoints in the rulebook: is the walk broken?", reads)
	}
}
