package suites

import (
	"net/http"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("GET /version", Label("area:version", "endpoint:version.get"), func() {
	It("answers a signed-in caller the version and revision of the release", Label("rule:version.get.1"), func(ctx SpecContext) {
		u := NewUser(ctx)
		r := u.Client.Get(ctx, "/version")
		Expect(r).To(HaveStatus(http.StatusOK))
		Expect(r).To(MatchSchema("version", false))
		Expect(r.Get("version").String()).To(MatchRegexp(`^\d+\.\d+\.\d+`))
		Expect(r.Get("revision").String()).NotTo(BeEmpty())
	})

	It("answers 401 without credentials", Label("rule:version.get.2"), func(ctx SpecContext) {
		Expect(api.Anonymous().Get(ctx, "/version")).To(HaveStatus(http.StatusUnauthorized))
	})
})
