package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
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
			args := []string{"certify", "--target", target, "--token", token, "--out", dir, "--procs", n}
			trace := os.Getenv("V4CERT_BENCH_TRACE")
			if trace == "" {
				args = append(args, "--quiet")
			}
			status, out := runCertify(b, args...)
			took := time.Since(start)
			if trace != "" {
				writeTrace(b, trace+"."+strings.NewReplacer("/", "_", "=", "").Replace(b.Name()), out)
			}
			r, err := reports.Load(filepath.Join(dir, "report.json"))
			if status != 0 || err != nil || r.Verdict != reports.VerdictConformant {
				b.Fatalf("exit %d, %v\n%s", status, err, joinLines(out))
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

// runCertify is runV4cert for a benchmark; each line of the output carries
// the seconds since the start at which it came.
func runCertify(b *testing.B, args ...string) (int, []stampedLine) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), mainEnv+"="+strings.Join(args, "\x1f"))
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	var lines []stampedLine
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines = append(lines, stampedLine{time.Since(start), sc.Text()})
		}
		io.Copy(io.Discard, pr)
	}()
	err := cmd.Run()
	pw.Close()
	<-read
	if err != nil && cmd.ProcessState == nil {
		b.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), lines
}

func joinLines(lines []stampedLine) string {
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString(l.text + "\n")
	}
	return sb.String()
}

type stampedLine struct {
	at   time.Duration
	text string
}

func (l stampedLine) String() string { return fmt.Sprintf("%7.1f %s", l.at.Seconds(), l.text) }

// writeTrace keeps a run's progress lines, each stamped with when it came
// (the end of its spec; the spec's own time is in parentheses): with
// V4CERT_BENCH_TRACE=FILE a run's critical path can be read afterwards, which
// specs ended last and how long each took.
func writeTrace(b *testing.B, file string, lines []stampedLine) {
	var sb strings.Builder
	for _, l := range lines {
		sb.WriteString(l.String() + "\n")
	}
	if err := os.WriteFile(file, []byte(sb.String()), 0o644); err != nil {
		b.Fatal(err)
	}
}
