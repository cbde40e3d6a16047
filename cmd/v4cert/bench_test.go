package main

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reports"
)

// BenchmarkCertifyLatency runs a full `v4cert certify` of the reference, as
// a user runs it (its own process, its workers processes of their own),
// behind a link that adds 25 ms each way (a 50 ms round trip, a target in
// another region), once per worker count in $V4CERT_BENCH_PROCS (default
// "4 8 16"; "1" alone takes about half an hour), and, as the yardstick, the
// same run straight over loopback with 8 workers. Each run must end
// CONFORMANT. The figure is seconds per full certify.
func BenchmarkCertifyLatency(b *testing.B) {
	procs := strings.Fields(os.Getenv("V4CERT_BENCH_PROCS"))
	if len(procs) == 0 {
		procs = []string{"4", "8", "16"}
	}
	const token = "glpat-bench-admin"
	inst, err := reference.New(reference.Config{RootToken: token, Seed: "none", FixedClock: true})
	if err != nil {
		b.Fatal(err)
	}
	defer inst.Close()
	srv := httptest.NewServer(inst.Server)
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	link, err := startLatencyProxy(u.Host, 25*time.Millisecond)
	if err != nil {
		b.Fatal(err)
	}
	defer link.Close()

	certify := func(b *testing.B, target, n string) {
		for range b.N {
			dir := b.TempDir()
			start := time.Now()
			status, out := runCertify(b, "certify", "--target", target, "--token", token, "--out", dir, "--quiet", "--procs", n)
			took := time.Since(start)
			r, err := reports.Load(filepath.Join(dir, "report.json"))
			if status != 0 || err != nil || r.Verdict != reports.VerdictConformant {
				b.Fatalf("exit %d, %v\n%s", status, err, out)
			}
			b.ReportMetric(took.Seconds(), "s/certify")
			b.ReportMetric(float64(r.Counts.Pass), "rules-passed")
		}
	}
	b.Run("loopback/procs=8", func(b *testing.B) { certify(b, srv.URL, "8") })
	for _, n := range procs {
		b.Run(fmt.Sprintf("rtt=50ms/procs=%s", n), func(b *testing.B) { certify(b, "http://"+link.Addr(), n) })
	}
}

// runCertify is runV4cert for a benchmark.
func runCertify(b *testing.B, args ...string) (int, string) {
	cmd, out := startMain(args...)
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		b.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), out.String()
}
