package suites

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"v4cert/reports"
)

// ExpectFixture is Expect for what a spec needs before it can judge anything:
// a fixture the harness builds (a user, a group, a pipeline). When it fails,
// the report marks the spec's rules as errors of the harness, not failures
// of the target: the failure carries a reports.Harness entry saying so.
func ExpectFixture(actual any, extra ...any) Assertion {
	GinkgoHelper()
	return harness(reports.KindFixture).Expect(actual, extra...)
}

// expectReached is Expect for the harness reaching the target at all: a
// transport error judges no rule.
func expectReached(actual any, extra ...any) Assertion {
	GinkgoHelper()
	return harness(reports.KindTransport).Expect(actual, extra...)
}

// harness is a Gomega whose failures mark the spec's failure as the
// harness's own (reports.EntryHarness) before failing it as usual.
func harness(kind string) Gomega {
	return NewGomega(func(message string, callerSkip ...int) {
		GinkgoHelper()
		skip := 0
		if len(callerSkip) > 0 {
			skip = callerSkip[0]
		}
		AddReportEntry(reports.EntryHarness, ReportEntryVisibilityNever, reports.Harness{Kind: kind, Detail: firstLine(message)})
		Fail(message, skip+1)
	})
}
