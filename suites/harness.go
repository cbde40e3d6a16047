package suites

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/v4cert/v4cert/reports"
)

// ExpectFixture is Expect for what a spec needs before it can judge anything:
// a fixture the harness builds (a user, a group, a pipeline). When it fails,
// the report marks the spec's rules as errors of the harness, not failures
// of the target: the failure carries a reports.Harness entry saying so.
func ExpectFixture(actual any, extra ...any) Assertion {
	GinkgoHelper()
	return harness(reports.KindFixture, "").Expect(actual, extra...)
}

// expectReached is Expect for the harness reaching the target at all: a
// transport error judges no rule. The entry names the error's cause in
// words shared by every spec it struck, so the reports group them.
func expectReached(err error, extra ...any) Assertion {
	GinkgoHelper()
	return harness(reports.KindTransport, transportCause(err)).Expect(err, extra...)
}

// harness is a Gomega whose failures mark the spec's failure as the
// harness's own (reports.EntryHarness) before failing it as usual.
func harness(kind, cause string) Gomega {
	return NewGomega(func(message string, callerSkip ...int) {
		GinkgoHelper()
		skip := 0
		if len(callerSkip) > 0 {
			skip = callerSkip[0]
		}
		AddReportEntry(reports.EntryHarness, ReportEntryVisibilityNever, reports.Harness{Kind: kind, Detail: firstLine(message), Cause: cause})
		Fail(message, skip+1)
	})
}

// transportCause names what kept a request from an answer without the
// request's particulars (addresses, ports, URLs), so that every spec a dead
// target struck shares one cause: "connection refused", not 545 lines that
// differ in their port and path.
func transportCause(err error) string {
	var dns *net.DNSError
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var certInvalid x509.CertificateInvalidError
	var recordHeader tls.RecordHeaderError
	var netErr net.Error
	switch {
	case err == nil:
		return ""
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by peer"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "no route to host"
	case errors.Is(err, syscall.EPIPE):
		return "connection closed by the target (broken pipe)"
	case errors.As(err, &dns):
		return "host not found: " + dns.Name
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &certInvalid):
		return "TLS certificate not trusted"
	case errors.As(err, &recordHeader):
		return "TLS handshake failed (is the target http, not https?)"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		// net/http's name for the same hang-up when it comes before the
		// request is counted as sent (its unexported errServerClosedIdle,
		// net/http/transport.go readLoopPeekFailLocked): a fresh connection
		// the target accepts and closes gets either, by timing.
		strings.Contains(err.Error(), "server closed idle connection"):
		return "connection closed before an answer (EOF)"
	case errors.Is(err, context.Canceled):
		return "request cancelled (the run was stopping)"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "no answer in time (timeout)"
	}
	// The innermost error, without the method and URL url.Error adds.
	var uerr *url.Error
	if errors.As(err, &uerr) {
		err = uerr.Err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		err = op.Err
	}
	return firstLine(err.Error())
}
