package suites

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/specs"
)

// profileEnv selects what the suites judge by: reports.ProfileSpec (unset)
// or reports.ProfilePlatform. certify --profile sets it in its workers; the
// ginkgo CLI reads it from the environment.
const profileEnv = "V4CERT_PROFILE"

// Profile is the profile this process judges by.
func Profile() string {
	if os.Getenv(profileEnv) == reports.ProfilePlatform {
		return reports.ProfilePlatform
	}
	return reports.ProfileSpec
}

// SpecOrPlatform checks a class-3 rule (docs/rulebook.md): spec asserts what
// the spec's text says, platform what the platform does instead, as the
// rulebook's `platform.does` records it for ruleID. Both are assertions
// about answers already in hand, so running either changes nothing.
//
// spec runs first; when it holds, the rule passes as the spec says, under
// every profile. When it fails and platform holds, the spec carries a
// reports.EntryPlatform entry (the target did what the platform does) and,
// under profile platform, passes; under profile spec it fails with the
// spec's own failure, which the reports then label as the divergence. When
// both fail, the spec fails with the spec's failure under every profile:
// a target that does neither is broken whatever the profile.
//
// Only a rule the rulebook marks `diverges: true` may declare a platform
// behaviour, and only in a spec labelled with that rule: nothing else can
// be let through this way.
func SpecOrPlatform(ruleID string, spec, platform func()) {
	GinkgoHelper()
	if specs.Default().Rule(ruleID).Divergence() == "" {
		Fail(fmt.Sprintf("SpecOrPlatform(%q): the rulebook records no known platform divergence (platform.diverges) for this rule", ruleID))
	}
	labels := CurrentSpecReport().Labels()
	if !slices.Contains(labels, "rule:"+ruleID) {
		Fail(fmt.Sprintf("SpecOrPlatform(%q) in a spec not labelled rule:%s", ruleID, ruleID))
	}
	// A spec passed as the platform passes every rule it is labelled with:
	// it may check no other rule, or that rule would pass unchecked.
	for _, l := range labels {
		if id, ok := strings.CutPrefix(l, "rule:"); ok && id != ruleID {
			Fail(fmt.Sprintf("SpecOrPlatform(%q) in a spec that also checks %s, which the platform's behaviour would pass unchecked", ruleID, id))
		}
	}
	if InterceptGomegaFailure(spec) == nil {
		return
	}
	if InterceptGomegaFailure(platform) == nil {
		AddReportEntry(reports.EntryPlatform, ReportEntryVisibilityNever, reports.PlatformEntry{Rule: ruleID})
		if Profile() == reports.ProfilePlatform {
			return
		}
	}
	spec() // fails again, as the spec's text says, this time for real
}

// expectUnpaginated is the platform's behaviour for the lists it does not
// paginate (integrations.list.3, package_protection_rules.list.2,
// runners.managers.2: `present ...` without paginate): whatever page and
// per_page ask, the answer is the whole list, got equal to want in any
// order, and carries no pagination header.
func expectUnpaginated(r *Response, got, want any) {
	GinkgoHelper()
	Expect(r).To(HaveStatus(http.StatusOK))
	Expect(got).To(ConsistOf(want), "the whole list, whatever page and per_page ask")
	for _, h := range specs.PaginationHeaders {
		Expect(r.Header).NotTo(HaveKey(h), "an unpaginated list sends no pagination header")
	}
}

// missingAnswer is an answer to a request that left out attr.
type missingAnswer struct {
	attr string
	r    *Response
}

// expectMissingAttributes checks a rule that asks Errors rule 2's body of
// every answer (each left out its attr), a known platform divergence
// (errors.missing.1's platform.does): on the platform, Grape's presence
// validator answers 400 {"error":"<attr> is missing"} instead. Under
// SpecOrPlatform, so profile platform passes a target that answers as
// the platform does, and every profile fails one that does neither.
func expectMissingAttributes(ruleID string, answers ...missingAnswer) {
	GinkgoHelper()
	SpecOrPlatform(ruleID, func() {
		for _, a := range answers {
			Expect(a.r).To(BeMissingAttribute(a.attr))
		}
	}, func() {
		for _, a := range answers {
			Expect(a.r).To(BeMissingAttributeAsPlatform(a.attr))
		}
	})
}

// expectMissingAttribute is expectMissingAttributes for one answer.
func expectMissingAttribute(ruleID string, r *Response, attr string) {
	GinkgoHelper()
	expectMissingAttributes(ruleID, missingAnswer{r: r, attr: attr})
}
