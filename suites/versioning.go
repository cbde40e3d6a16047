package suites

import (
	"net/http"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/v4cert/v4cert/specs"
)

// versionedEntries are the rulebook's GET endpoints without placeholders: each
// can be called as it stands, under /api/v4 and under other versions.
func versionedEntries() []TableEntry {
	var out []TableEntry
	for _, e := range book.Endpoints {
		if e.Method != http.MethodGet || strings.Contains(e.Path, ":") || !e.UnderAPI() {
			continue
		}
		out = append(out, Entry(e.Path, Label("endpoint:"+e.ID), e))
	}
	return out
}

var _ = Describe("Versioning", Label("area:versioning"), func() {
	DescribeTable("serves the endpoint under /api/v4 and under no other version", Label("rule:versioning.prefix.1"),
		func(ctx SpecContext, e *specs.Endpoint) {
			path := e.Path
			r := api.Get(ctx, path)
			// Served: a status the endpoint documents, and neither a routing
			// miss nor a server error. A 404 is a miss when it is the answer
			// the target gives a path that names no endpoint; an endpoint's
			// own 404 (GET /job with a personal token: "404 Job Not Found",
			// jobs.current.2) is not.
			miss := api.Get(ctx, "/v4cert-no-such-endpoint", Unchecked())
			Expect(miss).To(HaveStatus(http.StatusNotFound))
			Expect(r.Status).NotTo(Equal(http.StatusMethodNotAllowed), "GET /api/v4%s is routed:\n%s", path, r)
			if r.Status == http.StatusNotFound {
				Expect(string(r.Body)).NotTo(Equal(string(miss.Body)), "GET /api/v4%s is routed (it answers what a path of no endpoint answers):\n%s", path, r)
			}
			Expect(r.Status).To(BeNumerically("<", 500), "GET /api/v4%s:\n%s", path, r)
			Expect(e.Allows(r.Status)).To(BeTrue(), "GET /api/v4%s answers a status of %s:\n%s", path, e.ID, r)
			Expect(r.Header.Get("Content-Type")).To(HavePrefix("application/json"))
			for _, other := range []string{"/api/v5", "/api"} {
				Expect(api.Get(ctx, "!"+other+path, Unchecked())).To(HaveStatus(http.StatusNotFound), "GET %s%s", other, path)
			}
			// The platform answers 410 Gone under the removed version 3
			// (rulebook, errors.paths.3); either says it is not served.
			Expect(api.Get(ctx, "!/api/v3"+path, Unchecked())).To(HaveStatus(http.StatusNotFound, http.StatusGone), "GET /api/v3%s", path)
		},
		versionedEntries(),
	)
})
