package suites

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Traceability over the whole spec tree, whatever a run selects: every rule
// has a spec labelled rule:<id>, and every rule:, endpoint: and area: label
// names something in the rulebook, so a label filter or a focus cannot hide a
// mistyped label; and the suites' tables keyed by endpoint cover the rulebook. The tree is walked with Ginkgo's PreviewSpecs in a child
// process of the test binary: a preview before RunSpecs would drop the
// top-level AfterEach nodes from the real run.
const (
	treeEnv    = "V4CERT_SPEC_TREE"
	treeMarker = "v4cert-traceability: "
)

// treeChecked is set once a run has checked the tree before its specs.
var treeChecked bool

// Every go test and ginkgo run checks the tree on its first process before
// any spec, so the verdict shows in Ginkgo's report even in parallel runs.
var _ = ReportBeforeSuite(func(r Report) {
	if os.Getenv(treeEnv) != "" || r.SuiteConfig.DryRun {
		return
	}
	problems, err := specTreeProblems()
	Expect(err).NotTo(HaveOccurred())
	treeChecked = true
	Expect(problems).To(BeEmpty(), "traceability between the rulebook, the spec tree and the suites' tables")
})

// TestTraceability is the same check on its own (go test ./suites -run
// TestTraceability needs no target), and the child that previews the tree.
func TestTraceability(t *testing.T) {
	if os.Getenv(treeEnv) != "" {
		b, err := json.Marshal(append(Traceability(PreviewSpecs("v4cert conformance")), tableProblems()...))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("\n%s%s\n", treeMarker, b)
		return
	}
	if treeChecked {
		t.Skip("checked before the specs of this run")
	}
	problems, err := specTreeProblems()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// specTreeProblems previews the spec tree in a child process and returns what
// Traceability finds in it.
func specTreeProblems() ([]string, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestTraceability$", "-test.count=1")
	cmd.Env = append(os.Environ(), treeEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("previewing the spec tree: %v\n%s%s", err, out, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), treeMarker); ok {
			var problems []string
			if err := json.Unmarshal([]byte(line), &problems); err != nil {
				return nil, fmt.Errorf("reading the preview: %v", err)
			}
			return problems, nil
		}
	}
	return nil, fmt.Errorf("the preview printed no verdict:\n%s%s", out, stderr.String())
}
