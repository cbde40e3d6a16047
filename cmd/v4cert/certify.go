package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"v4cert/reports"
	"v4cert/suites"
)

// certify runs `v4cert certify` and returns the exit status: 0 conformant,
// 1 not conformant (a rule failed or errored), 2 the run could not start.
func certify(args []string) int {
	fs := flag.NewFlagSet("certify", flag.ContinueOnError)
	target := fs.String("target", os.Getenv("V4CERT_TARGET"), "base URL of the implementation to certify (default $V4CERT_TARGET)")
	token := fs.String("token", "", "personal access token of an administrator (default $V4CERT_TOKEN)")
	out := fs.String("out", "out/certify", "directory for junit.xml, report.json, summary.md and report.html")
	filter := fs.String("label-filter", "", `Ginkgo label filter selecting the rules to run, e.g. "area:users && !paid"`)
	viaProxy := fs.Bool("via-proxy", false, "send the suites' traffic through the validating proxy and report its violations")
	rerun := fs.String("rerun-failed", "", "a previous report.json: run only the rules that failed or errored in it")
	seed := fs.Int64("seed", suites.DefaultSeed, "seed of the spec order (recorded in the report)")
	timeout := fs.Duration("timeout", 30*time.Minute, "limit for the whole run")
	quiet := fs.Bool("quiet", false, "no progress lines")
	verbose := fs.Bool("v", false, "also Ginkgo's own report on stderr")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "Usage: v4cert certify --target URL --token TOKEN --out DIR [--label-filter EXPR] [--via-proxy] [--rerun-failed DIR/report.json] [--seed N]\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "v4cert certify: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *token == "" {
		*token = os.Getenv("V4CERT_TOKEN")
	}

	cfg := suites.CertifyConfig{Target: *target, Token: *token, LabelFilter: *filter, Seed: *seed, Timeout: *timeout,
		ViaProxy: *viaProxy, Version: version, Progress: os.Stderr, Verbose: *verbose}
	if *quiet {
		cfg.Progress = nil
	}
	if *rerun != "" {
		prev, err := reports.Load(*rerun)
		if err != nil {
			fmt.Fprintln(os.Stderr, "v4cert certify:", err)
			return 2
		}
		ids := prev.FailedRuleIDs()
		if len(ids) == 0 {
			fmt.Fprintf(os.Stderr, "v4cert certify: %s has no failed or errored rule; nothing to rerun\n", *rerun)
			return 0
		}
		cfg.LabelFilter = rerunFilter(*filter, ids)
		cfg.RerunOf = *rerun
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["seed"] {
			cfg.Seed = prev.Seed
		}
		if cfg.Target == "" {
			cfg.Target = prev.Target
		}
		fmt.Fprintf(os.Stderr, "v4cert certify: rerunning %d rules that failed or errored in %s\n", len(ids), *rerun)
	}

	rep, err := suites.Certify(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "v4cert certify:", err)
		return 2
	}
	if err := reports.WriteAll(*out, rep); err != nil {
		fmt.Fprintln(os.Stderr, "v4cert certify: writing the report:", err)
		return 2
	}
	fmt.Fprintf(os.Stderr, "\n%s — %s\n", rep.Verdict, rep.Counts)
	for _, f := range rep.SuiteErrors {
		lines := strings.Split(strings.TrimSpace(f.Message), "\n")
		if len(lines) > 6 {
			lines = append(lines[:6], "…")
		}
		fmt.Fprintf(os.Stderr, "suite error (%s):\n    %s\n", f.Spec, strings.Join(lines, "\n    "))
	}
	if len(rep.SuiteErrors) == 0 {
		shown, bad := 0, rep.FailedRuleIDs()
		for _, id := range bad {
			if shown == 20 {
				fmt.Fprintf(os.Stderr, "  … and %d more (see summary.md)\n", len(bad)-shown)
				break
			}
			r := rep.Rule(id)
			fmt.Fprintf(os.Stderr, "  %-5s %s — %s\n", r.Status, r.ID, r.Says)
			shown++
		}
	}
	fmt.Fprintf(os.Stderr, "Report: %s\n", filepath.Join(*out, "report.html"))
	if !rep.Conformant {
		return 1
	}
	return 0
}

// rerunFilter selects the given rules, within the user's own filter if any.
func rerunFilter(user string, ids []string) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = "rule:" + id
	}
	f := strings.Join(parts, " || ")
	if user != "" {
		f = "(" + user + ") && (" + f + ")"
	}
	return f
}
