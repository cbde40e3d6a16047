package main

import (
	"crypto/ed25519"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/v4cert/v4cert/reports"
	"github.com/v4cert/v4cert/specs"
	"github.com/v4cert/v4cert/suites"
)

const certifyHelp = `Usage: v4cert certify --target URL --token TOKEN [flags]

Runs the conformance suites compiled into this binary against an
implementation of the API and writes junit.xml, report.json, summary.md and
report.html to --out. The specs run in --procs worker processes of this
binary; --shard K/N runs a deterministic Kth of N parts of them, so N jobs of
a CI matrix certify in parallel (merge their reports with v4cert report merge).

Before any spec runs, certify checks that the target answers GET /api/v4/user
for the token and that it is an administrator's.

When several specs in a row cannot reach the target and a probe of
GET /api/v4/version gets no answer either, certify stops the run there
(INCOMPLETE, with the cause and the time the target stopped answering)
rather than error every spec left.

Profiles: --profile spec (the default) holds the target to the spec's text;
a rule the rulebook marks as a known platform divergence (the spec says X,
the platform the spec describes does Y, docs/rulebook.md) that fails is
still a failure, labelled "known platform divergence: the platform does
this: ... (source)". --profile platform passes such a rule when the target
does either X or Y, where its spec declares Y, and the reports say it
passed as the platform does. The verdict names the profile:
"CONFORMANT (profile spec)".

A target with a rate limit: --rate-limit N declares it (errors.ratelimit.1
runs only then) and lets the workers wait out 429 answers (--retry-429).

Exit status (the verdict in every report):
  0    CONFORMANT      every rule judged passed
  1    NOT CONFORMANT  a rule failed or errored
  2    NOT RUN         the run could not start (the cause is the reports' first line), or a usage error
  3    NOT RUN         every rule the run selected was skipped: nothing was judged (the reasons are the cause)
  4    INCOMPLETE      the target stopped answering during the run; the reports hold what ran
  130  INCOMPLETE      interrupted (SIGINT, SIGTERM) or out of --run-timeout; the reports hold what ran

Flags:
`

// multiFlag is a flag that may be given several times.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// certify runs `v4cert certify` and returns the exit status of its verdict.
func certify(args []string) int {
	fs := newFlagSet("certify")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), certifyHelp)
		printDefaults(fs)
	}
	target := fs.String("target", os.Getenv("V4CERT_TARGET"), "base URL of the implementation to certify (default $V4CERT_TARGET)")
	token := fs.String("token", "", "personal access token of an administrator (default $V4CERT_TOKEN); never written to a report")
	out := fs.String("out", "out/certify", "directory for junit.xml, report.json, summary.md and report.html")
	filter := fs.String("label-filter", "", `Ginkgo label filter selecting the specs, e.g. "area:users && !paid"`)
	var focus, skip multiFlag
	fs.Var(&focus, "focus", "run only the specs of rules matching this rule ID pattern (* and ? wildcards, e.g. 'users.*'); repeatable, or comma-separated")
	fs.Var(&skip, "skip", "run no spec of a rule matching this rule ID pattern; repeatable, or comma-separated")
	shard := fs.String("shard", "", "K/N: run the Kth of N parts of the specs (the partition is the same on every machine); merge with v4cert report merge")
	procs := fs.Int("procs", 0, fmt.Sprintf("worker processes (default: 1 per core, 2 to 8, for a loopback target, here %d; 4 per core, 8 to 16, for any other, here %d)",
		suites.DefaultProcs("http://127.0.0.1"), suites.DefaultProcs("https://example.com")))
	list := fs.Bool("list", false, "print the rules and specs the filter and shard select, and run nothing (needs no target)")
	failFast := fs.Bool("fail-fast", false, "stop at the first rule that fails or errors")
	viaProxy := fs.Bool("via-proxy", false, "send the suites' traffic through the validating proxy and report its violations")
	rerun := fs.String("rerun-failed", "", "a previous report.json: run only the rules that failed or errored in it")
	seed := fs.Int64("random-seed", suites.DefaultSeed, "seed of the random spec order, Ginkgo's \"Random Seed\" (recorded in the report)")
	timeout := fs.Duration("run-timeout", 30*time.Minute, "limit for the whole run, past which it ends INCOMPLETE")
	deprecatedAlias(fs, "seed", "random-seed", "serve's --seed is the starting world")
	deprecatedAlias(fs, "timeout", "run-timeout", "a limit for the run, not the proxy's wait for its upstream")
	rateLimit := fs.Int("rate-limit", 0, "the target's rate limit, requests per second per client (default $V4CERT_RATE_LIMIT): errors.ratelimit.1 checks it, and 429 answers are waited out (--retry-429)")
	retry429 := fs.Int("retry-429", 0, fmt.Sprintf("send a request the target answered 429 again up to N times, after the wait its Retry-After asks (at most 1m each); a 429 left is an error of the harness, not a failure (%d when not given and the target's limit is declared)", defaultRetry429))
	profile := fs.String("profile", reports.ProfileSpec, "what the rules judge by: spec (the spec's text) or platform (a rule the rulebook marks as a known platform divergence also passes when the target does what the platform does, and the report says which)")
	quiet := fs.Bool("quiet", false, "no progress lines")
	verbose := fs.Bool("v", false, "progress lines carry whole failure messages")
	certified := fs.Bool("certified", false, "a certified run: every rule, no --label-filter, --focus, --skip, --shard, --rerun-failed or --fail-fast, profile spec; --out becomes a bundle signed with --signing-key (v4cert report verify checks it)")
	signingKey := fs.String("signing-key", "", "with --certified: an ed25519 private key in PEM (openssl genpkey -algorithm ed25519 -out FILE) that signs the bundle's manifest")
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "v4cert certify: unexpected arguments %q\n", fs.Args())
		return 2
	}
	if *token == "" {
		*token = os.Getenv("V4CERT_TOKEN")
	}
	var key ed25519.PrivateKey
	if *certified {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if refused := certifiedRefusals(set, *profile); len(refused) > 0 {
			fmt.Fprintf(os.Stderr, "v4cert certify: --certified runs every rule as the spec says; it refuses %s\n", strings.Join(refused, ", "))
			return 2
		}
		var err error
		if key, err = loadSigningKey(*signingKey); err == nil {
			err = emptyOut(*out)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "v4cert certify:", err)
			return 2
		}
	} else if *signingKey != "" {
		fmt.Fprintln(os.Stderr, "v4cert certify: --signing-key signs a --certified run's bundle; give --certified")
		return 2
	}
	cfg := suites.CertifyConfig{Target: *target, Token: *token, LabelFilter: *filter, Focus: focus, Skip: skip,
		Procs: *procs, Seed: *seed, Timeout: *timeout, FailFast: *failFast, ViaProxy: *viaProxy, Version: version,
		Progress: os.Stderr, Verbose: *verbose, Profile: *profile}
	if *profile != reports.ProfileSpec && *profile != reports.ProfilePlatform {
		fmt.Fprintf(os.Stderr, "v4cert certify: --profile %q: spec or platform\n", *profile)
		return 2
	}
	if *quiet {
		cfg.Progress = nil
	}
	if *rateLimit < 0 {
		fmt.Fprintln(os.Stderr, "v4cert certify: --rate-limit must be a positive number of requests per second")
		return 2
	}
	if *retry429 < 0 {
		fmt.Fprintln(os.Stderr, "v4cert certify: --retry-429 must be 0 or more")
		return 2
	}
	cfg.RateLimit, cfg.Retry429 = *rateLimit, *retry429
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["retry-429"] && (cfg.RateLimit > 0 || os.Getenv("V4CERT_RATE_LIMIT") != "") {
		cfg.Retry429 = defaultRetry429 // a target known to limit: wait its limit out
	}
	if *procs < 0 {
		fmt.Fprintln(os.Stderr, "v4cert certify: --procs must be at least 1")
		return 2
	}
	if *shard != "" {
		sh, err := reports.ParseShard(*shard)
		if err != nil {
			fmt.Fprintln(os.Stderr, "v4cert certify: --shard:", err)
			return 2
		}
		cfg.Shard = sh
	}
	if _, err := cfg.Filter(); err != nil {
		fmt.Fprintln(os.Stderr, "v4cert certify:", err)
		return 2
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
		if !set["random-seed"] {
			cfg.Seed = prev.Seed
		}
		if cfg.Target == "" {
			cfg.Target = prev.Target
		}
		fmt.Fprintf(os.Stderr, "v4cert certify: rerunning %d rules that failed or errored in %s\n", len(ids), *rerun)
	}
	if *list {
		return listPlan(os.Stdout, cfg)
	}

	stop := make(chan os.Signal, 2)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(stop)
	cfg.Stop = stop

	var impl reports.Implementation
	if *certified {
		var err error
		if impl, err = implementationOf(cfg.Target, cfg.Token); err != nil {
			fmt.Fprintln(os.Stderr, "v4cert certify: --certified:", err)
			return 2
		}
	}
	rep := suites.Certify(cfg)
	if err := reports.WriteAll(*out, rep); err != nil {
		fmt.Fprintln(os.Stderr, "v4cert certify: writing the reports:", err)
		return 2
	}
	if *certified {
		if err := reports.WriteBundle(*out, certification(rep, impl, cfg), key); err != nil {
			fmt.Fprintln(os.Stderr, "v4cert certify: writing the bundle:", err)
			return 2
		}
		fmt.Fprintf(os.Stderr, "v4cert certify: certified bundle of %s %s written to %s (v4cert report verify %s)\n", impl.Name, impl.Version, *out, *out)
	}
	printVerdict(os.Stderr, rep, filepath.Join(*out, "report.html"))
	return verdictExit(rep)
}

// defaultRetry429 is --retry-429 against a target with a declared rate
// limit: enough for a limit of a few seconds' window to lift.
const defaultRetry429 = 5

// Exit statuses of certify and report merge (certifyHelp, README).
const (
	exitConformant    = 0
	exitNotConformant = 1
	exitNotRun        = 2 // the run could not start; usage errors too
	exitNothingJudged = 3 // NOT RUN: every selected rule was skipped
	exitTargetDown    = 4 // INCOMPLETE: the target stopped answering
	exitInterrupted   = 130
)

// verdictExit is the exit status a report's verdict stands for.
func verdictExit(rep reports.Report) int {
	switch rep.Verdict {
	case reports.VerdictConformant:
		return exitConformant
	case reports.VerdictNotRun:
		if rep.AllSkipped {
			return exitNothingJudged
		}
		return exitNotRun
	case reports.VerdictIncomplete:
		if rep.TargetDown != nil {
			return exitTargetDown
		}
		return exitInterrupted
	}
	return exitNotConformant
}

// printVerdict ends a run on the terminal: the headline first, then what
// went wrong, then where the report is.
func printVerdict(w io.Writer, rep reports.Report, html string) {
	switch rep.Verdict {
	case reports.VerdictNotRun:
		fmt.Fprintf(w, "v4cert certify: %s\nReport: %s\n", rep.Headline(), html)
		return
	}
	fmt.Fprintf(w, "\n%s — %s\n", rep.Headline(), rep.Counts)
	for _, f := range rep.SuiteErrors {
		lines := strings.Split(strings.TrimSpace(f.Message), "\n")
		if len(lines) > 6 {
			lines = append(lines[:6], "…")
		}
		fmt.Fprintf(w, "suite error (%s):\n    %s\n", f.Spec, strings.Join(lines, "\n    "))
	}
	var failed []string
	for _, r := range rep.Rules {
		if r.Status == reports.StatusFail {
			failed = append(failed, r.ID)
		}
	}
	if len(failed) > 0 {
		fmt.Fprintf(w, "%d rules failed:\n", len(failed))
	}
	for i, id := range failed {
		if i == 20 {
			fmt.Fprintf(w, "  … and %d more (see summary.md)\n", len(failed)-i)
			break
		}
		r := rep.Rule(id)
		fmt.Fprintf(w, "  %-5s %s — %s\n", r.Status, r.ID, r.Says)
		if note := r.Note(); note != "" {
			fmt.Fprintf(w, "        %s\n", note)
		}
	}
	// Errored rules by cause: one line for a cause that struck hundreds.
	if line := rep.ErrorSummary(); line != "" {
		fmt.Fprintln(w, line)
		for i, g := range rep.ErrorCauses() {
			if i == 8 {
				fmt.Fprintf(w, "  … and %d more causes (see summary.md)\n", len(rep.ErrorCauses())-i)
				break
			}
			ids := g.Rules[:min(len(g.Rules), 6)]
			more := ""
			if n := len(g.Rules) - len(ids); n > 0 {
				more = fmt.Sprintf(" and %d more", n)
			}
			fmt.Fprintf(w, "  %s (%d): %s%s\n", g.Cause, len(g.Rules), strings.Join(ids, ", "), more)
		}
	}
	fmt.Fprintf(w, "Report: %s\n", html)
}

// listPlan prints what a run would run, rule by rule, and runs nothing.
func listPlan(w io.Writer, cfg suites.CertifyConfig) int {
	plan, err := suites.PlanRun(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "v4cert certify:", err)
		return 2
	}
	specsOf := map[string][]string{}
	selected := plan.Selected()
	for _, s := range selected {
		for _, l := range s.Labels() {
			if id, ok := strings.CutPrefix(l, "rule:"); ok {
				specsOf[id] = append(specsOf[id], s.FullText())
			}
		}
	}
	rules := plan.Rules()
	for _, id := range rules {
		fmt.Fprintf(w, "%s\n", id)
		for _, text := range specsOf[id] {
			fmt.Fprintf(w, "    %s\n", text)
		}
	}
	what := "every spec"
	if plan.Filter != "" {
		what = "label filter " + reports.ReadableFilter(plan.Filter)
	}
	if plan.Shard.Total > 1 {
		what += ", shard " + plan.Shard.String()
	}
	fmt.Fprintf(w, "%d of %d rules, %d of %d specs (%s)\n", len(rules), len(specs.Default().Rules), len(selected), len(plan.Specs), what)
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
