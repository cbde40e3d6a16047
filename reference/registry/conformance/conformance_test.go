// Package conformance runs the OCI distribution-spec's own conformance test
// (github.com/opencontainers/distribution-spec/conformance, pinned as a tool
// of this module so its dependencies stay out of v4cert's) against the
// reference's registry host, logged in as a user, and holds the registry to
// at least what distribution v3.1.2 passes on its own without
// authentication.
package conformance

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/v4cert/v4cert/reference"
)

// distributionAlonePassed is what the same test (852 tests in its default
// configuration) passes against distribution v3.1.2 with no authentication:
// it fails 94 (sha512 content, the referrers API and OCI-Subject,
// non-distributable layers, the tag list after an index push) and skips 16.
// The reference passes 774 of 862 (the referrers API and layer URLs on top).
const distributionAlonePassed = 742

// knownFailures are the tests the reference may still fail, and why.
var knownFailures = []struct{ contains, why string }{
	{"/sha512", "distribution v3.1.2 stores sha256 content only"},
	{"index/tag-list", "distribution v3.1.2's tag list right after an index push"},
	{"index-with-subject/tag-list", "distribution v3.1.2's tag list right after an index push"},
}

type junitCase struct {
	Name   string `xml:"name,attr"`
	Status string `xml:"status,attr"`
}

type junitSuites struct {
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testsuite>testcase"`
}

func TestOCIConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the OCI conformance test takes half a minute")
	}
	const token = "conformance-root-token"
	inst, err := reference.New(reference.Config{RootToken: token, Seed: "none"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(inst.Server)
	t.Cleanup(func() { srv.Close(); inst.Close() })
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v4/projects?name=conformance", nil)
	req.Header.Set("PRIVATE-TOKEN", token)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusCreated {
		t.Fatalf("creating the project: %v %v", res, err)
	}
	res.Body.Close()
	u, _ := url.Parse(srv.URL)
	results := t.TempDir()
	cmd := exec.Command("go", "tool", "conformance")
	cmd.Env = append(os.Environ(), "OCI_REGISTRY="+u.Host, "OCI_TLS=disabled",
		"OCI_REPO1=root/conformance/repo1", "OCI_REPO2=root/conformance/repo2",
		"OCI_USERNAME=root", "OCI_PASSWORD="+token, "OCI_RESULTS_DIR="+results, "OCI_LOG=error")
	out, _ := cmd.CombinedOutput() // exits 1 when any test fails; the report says which
	b, err := os.ReadFile(filepath.Join(results, "junit.xml"))
	if err != nil {
		t.Fatalf("no report from the conformance test: %v\n%s", err, out)
	}
	var r junitSuites
	if err := xml.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	passed := r.Tests - r.Failures - r.Skipped
	t.Logf("OCI conformance: %d tests, %d passed, %d failed, %d skipped (distribution alone: %d passed)",
		r.Tests, passed, r.Failures, r.Skipped, distributionAlonePassed)
	if passed < distributionAlonePassed {
		t.Errorf("%d tests passed, fewer than distribution v3.1.2 alone (%d)", passed, distributionAlonePassed)
	}
	var unexpected []string
	for _, c := range r.Cases {
		if c.Status != "failure" {
			continue
		}
		known := false
		for _, k := range knownFailures {
			if strings.Contains(c.Name, k.contains) {
				known = true
				if k.contains != "/sha512" {
					t.Logf("known failure (%s): %s", k.why, c.Name)
				}
				break
			}
		}
		if !known {
			unexpected = append(unexpected, c.Name)
		}
	}
	if len(unexpected) > 0 {
		t.Errorf("%d failures beyond the known ones:\n%s\n%s", len(unexpected), strings.Join(unexpected, "\n"), tail(out))
	}
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return fmt.Sprintf("--- conformance output (tail) ---\n%s", b)
}
