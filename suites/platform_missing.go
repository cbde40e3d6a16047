package suites

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// expectMissingAttribute checks Errors rule 2 on r for attr in a spec
// labelled with ruleID, a rule whose rulebook entry records the platform's
// divergence there (Grape's {"error":"<attr> is missing"}): under profile
// platform the platform's body passes too (SpecOrPlatform), under the
// default profile only the spec's.
func expectMissingAttribute(ruleID string, r *Response, attr string) {
	GinkgoHelper()
	SpecOrPlatform(ruleID, func() {
		Expect(r).To(BeMissingAttribute(attr))
	}, func() {
		Expect(r).To(BeMissingAttributeAsPlatform(attr))
	})
}
