package proxy_test

import (
	"encoding/json"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// TestSuiteVerdictsMatch compares two Ginkgo JSON reports spec by spec. make
// test runs it on the suites recorded through the proxy and the same suites
// replayed from that cassette with no server: every spec must end the same way.
// V4CERT_VERDICTS=RECORDED.json,REPLAYED.json turns it on.
func TestSuiteVerdictsMatch(t *testing.T) {
	files := strings.Split(os.Getenv("V4CERT_VERDICTS"), ",")
	if len(files) != 2 {
		t.Skip("V4CERT_VERDICTS=recorded.json,replayed.json not set")
	}
	read := func(path string) map[string]string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var reports []types.Report
		if err := json.Unmarshal(data, &reports); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out := map[string]string{}
		for _, r := range reports {
			for _, s := range r.SpecReports {
				if s.LeafNodeType != types.NodeTypeIt {
					continue
				}
				out[s.FullText()+" @ "+s.LeafNodeLocation.String()] = s.State.String()
			}
		}
		return out
	}
	rec, rep := read(files[0]), read(files[1])
	if len(rec) == 0 {
		t.Fatal("the recorded run reports no specs")
	}
	var diffs []string
	for spec, state := range rec {
		if rep[spec] != state {
			diffs = append(diffs, spec+": recorded "+state+", replayed "+rep[spec])
		}
	}
	for spec, state := range rep {
		if _, ok := rec[spec]; !ok {
			diffs = append(diffs, spec+": only replayed ("+state+")")
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		t.Fatalf("%d specs ended differently:\n%s", len(diffs), strings.Join(diffs, "\n"))
	}
	t.Logf("%d specs, same verdicts", len(rec))
}
