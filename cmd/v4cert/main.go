// Command v4cert is the reference server, conformance suites, recording proxy
// and validator for the Development Platform REST API v4.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/v4cert/v4cert/reference"
	"github.com/v4cert/v4cert/reference/suitehost"
	"github.com/v4cert/v4cert/suites"
)

// command is one subcommand of v4cert.
type command struct {
	name     string
	synopsis string // the arguments, as the usage shows them
	about    string // one line
	run      func(args []string) int
}

// commands is filled in init: the usage they print refers back to it.
var commands []command

func init() {
	commands = []command{
		{"serve", "[flags]", "start the reference server", func(a []string) int { return exitStatus("serve", serve(a)) }},
		{"certify", "--target URL --token TOKEN [flags]", "run the conformance suites against an implementation and write the reports", certify},
		{"report", "merge|verify ...", "merge the reports of certify --shard runs into one set of reports (merge OUT SHARD/report.json...), or check a certified bundle (verify BUNDLE)", report},
		{"proxy", "--upstream URL [flags]", "validate, record or replay the traffic between a client and an implementation", runProxy},
		{"validate", "[flags] CASSETTE", "check a recorded cassette against the rulebook and the schemas", validate},
		{"spec", "[--openapi | --rules]", "print the rulebook: areas, rules, or as OpenAPI 3.1", func(a []string) int { return exitStatus("spec", spec(a)) }},
		{"completion", "bash|zsh|fish", "print a shell completion script", completion},
		{"version", "", "print the version", func([]string) int { fmt.Println(versionLine()); return 0 }},
		{"help", "", "print this help", func([]string) int { fmt.Print(usage()); return 0 }},
	}
}

// environment lists the variables v4cert reads, for the usage.
var environment = [][2]string{
	{"V4CERT_TARGET", "certify, the suites: base URL of the implementation (--target)"},
	{"V4CERT_TOKEN", "certify, the suites: an administrator's personal access token (--token)"},
	{"V4CERT_SALT", "certify, the suites: suffix of fixture names (default: random against a remote target)"},
	{"V4CERT_RATE_LIMIT", "certify, the suites: the target's rate limit, requests per second per client (--rate-limit; runs errors.ratelimit.1)"},
	{"V4CERT_RATE_LIMITED", "deprecated name of V4CERT_RATE_LIMIT, still read when it is unset (1: reachable, number unknown)"},
	{"V4CERT_PROXY", "the suites under go test: validate, record:FILE or replay:FILE through an in-process proxy"},
	{"V4CERT_PROXY_VIOLATIONS", "the suites under go test: also append the proxy's findings to this file"},
	{"V4CERT_CLOCK", "the suites under go test: fixed starts the in-process reference with a clock that stands still"},
}

func init() {
	for _, name := range sortedKeys(serveEnv) {
		environment = append(environment, [2]string{serveEnv[name], "serve: --" + name + " where the command line does not give it (for a container run as a CI service)"})
	}
}

// serveEnv names the variables serve reads for flags not given on the
// command line: CI services (GitHub Actions services:, GitLab CI services:)
// set a container's environment, not its arguments. The rate limit is left
// out: V4CERT_RATE_LIMIT tells certify the target's limit.
var serveEnv = map[string]string{
	"addr": "V4CERT_ADDR", "root-token": "V4CERT_ROOT_TOKEN", "seed": "V4CERT_SEED", "seed-file": "V4CERT_SEED_FILE",
	"data-dir": "V4CERT_DATA_DIR", "external-url": "V4CERT_EXTERNAL_URL", "log": "V4CERT_LOG",
}

// flagsFromEnv sets each flag of names that the command line left unset
// from its variable, when that is set; a bad value names the variable.
func flagsFromEnv(fs *flag.FlagSet, names map[string]string) error {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	for _, name := range sortedKeys(names) {
		v, ok := os.LookupEnv(names[name])
		if !ok || v == "" || given[name] {
			continue
		}
		if err := fs.Set(name, v); err != nil {
			return fmt.Errorf("%s=%q (for --%s): %v", names[name], v, name, err)
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// usage is the top-level help: every command with its flags, read from the
// commands' own flag sets so it cannot drift from them.
func usage() string {
	var b strings.Builder
	b.WriteString("v4cert — reference server and conformance kit for the REST API v4\n\nUsage: v4cert COMMAND [flags]\n")
	for _, c := range commands {
		fmt.Fprintf(&b, "\nv4cert %s %s\n    %s\n", c.name, c.synopsis, c.about)
		if fs := flagsOf(c); fs != nil {
			var flags strings.Builder
			fs.SetOutput(&flags)
			printDefaults(fs)
			if flags.Len() > 0 {
				b.WriteString(indent(flags.String(), "  "))
			}
		}
	}
	b.WriteString("\nEnvironment:\n")
	for _, e := range environment {
		fmt.Fprintf(&b, "  %-24s %s\n", e[0], e[1])
	}
	b.WriteString("\n\"v4cert COMMAND -h\" prints one command's help.\n")
	return b.String()
}

// describing collects the flag set a command builds when flagsOf runs it.
var describing *flag.FlagSet

// flagsOf runs c with -h to get its flag set; commands parse their flags
// before doing anything, so nothing else happens.
func flagsOf(c command) *flag.FlagSet {
	if c.name == "help" || c.name == "version" || c.name == "completion" {
		return nil
	}
	if c.name == "report" {
		// Two subcommands: the union of their flags (each has its own
		// usage when run with -h).
		all := newFlagSet("report")
		for _, sub := range []string{"merge", "verify"} {
			if fs := describe(c, sub, "-h"); fs != nil {
				fs.VisitAll(func(f *flag.Flag) {
					if all.Lookup(f.Name) == nil {
						all.Var(f.Value, f.Name, f.Usage)
					}
				})
			}
		}
		return all
	}
	return describe(c, "-h")
}

// describe runs c with args in describe mode and returns the flag set it
// built.
func describe(c command, args ...string) *flag.FlagSet {
	describing = nil
	defer func() { describing = nil }()
	describeMode = true
	defer func() { describeMode = false }()
	c.run(args)
	return describing
}

var describeMode bool

// newFlagSet is the flag set of one command: errors are returned, not
// fatal, so -h can exit 0 (flagExit) and usage errors exit 2.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage of v4cert %s:\n", name)
		printDefaults(fs)
	}
	if describeMode {
		describing = fs
		fs.SetOutput(io.Discard)
	}
	return fs
}

// flagExit is the exit status of a command whose flags did not parse: 0 for
// -h (the help was asked for and printed), 2 for a usage error.
func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

// usageError is a command's flags not parsing (the flag package has said why).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }

// exitStatus turns a command's error into its exit status.
func exitStatus(name string, err error) int {
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		return flagExit(ue.err)
	}
	fmt.Fprintf(os.Stderr, "v4cert %s: %v\n", name, err)
	return 1
}

func indent(s, pad string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = pad + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func main() {
	// A certify run without a target starts the reference in-process; the
	// suites link none of it themselves.
	suites.StartReference = suitehost.Start
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage())
		os.Exit(2)
	}
	if !colorWanted(os.Stderr, os.Getenv) {
		suites.NoColor()
	}
	name := os.Args[1]
	switch name {
	case suites.WorkerCommand:
		os.Exit(suites.RunWorker())
	case "-h", "--help", "-help":
		name = "help"
	case "--version":
		name = "version"
	}
	for _, c := range commands {
		if c.name == name {
			os.Exit(c.run(os.Args[2:]))
		}
	}
	fmt.Fprintf(os.Stderr, "v4cert: unknown command %q\n\n%s", os.Args[1], usage())
	os.Exit(2)
}

func serve(args []string) error {
	fs := newFlagSet("serve")
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	token := fs.String("root-token", "", "personal access token of the administrator root (random when empty; with --data-dir, the stored one)")
	clock := fs.String("clock", "real", "real, or fixed: time stands still so answers are byte-identical across runs")
	seed := fs.String("seed", "demo", "demo (users of every role, groups, projects, topics) or none (root alone)")
	seedFile := fs.String("seed-file", "", "start from the world a YAML file declares (users with tokens, groups, projects with files and branches, members); replaces --seed")
	dataDir := fs.String("data-dir", "", "keep the world, the repositories and the registry in DIR across restarts (default: in memory)")
	logKinds := fs.String("log", "", "requests: one line per request on stderr (method, escaped path, status, duration, caller; secrets redacted)")
	rate := fs.Int("rate-limit", 0, "requests per second per client before 429 (0: off)")
	maxQuery := fs.Int("max-query-bytes", 0, "longest query string accepted before 414 (0: 8192)")
	external := fs.String("external-url", "", "base URL used in web_url and Link headers (default: from each request)")
	importAny := fs.Bool("import-from-any", false, "let direct-transfer imports (POST /bulk_imports) reach sources beyond loopback")
	faultsFile := fs.String("faults", "", "declare the faults of FILE (a YAML or JSON list: method, path or endpoint, latency, status, drop, nth, probability, seed); none by default")
	journalSize := fs.Int("journal-size", reference.DefaultJournalSize, "requests GET /-/requests keeps, newest last (0: none)")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if err := flagsFromEnv(fs, serveEnv); err != nil {
		return usageError{err}
	}
	if *journalSize == 0 {
		*journalSize = -1 // Config's zero is the default
	} else if *journalSize < 0 {
		return fmt.Errorf("--journal-size must be 0 or more, not %d", *journalSize)
	}
	if *clock != "real" && *clock != "fixed" {
		return fmt.Errorf("--clock must be real or fixed, not %q", *clock)
	}
	seedGiven := false
	fs.Visit(func(f *flag.Flag) { seedGiven = seedGiven || f.Name == "seed" })
	if seedGiven && *seedFile != "" {
		return fmt.Errorf("--seed and --seed-file exclude each other: the file is the whole starting world")
	}
	var requestLog io.Writer
	switch *logKinds {
	case "":
	case "requests":
		requestLog = os.Stderr
	default:
		return fmt.Errorf("--log must be requests, not %q", *logKinds)
	}
	// Listen first: a port in use is said at once, before a world is built
	// (or a data directory opened) for nothing.
	ln, err := listenFlag("addr", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	inst, err := reference.New(reference.Config{
		RootToken: *token, FixedClock: *clock == "fixed", Seed: *seed, SeedFile: *seedFile, DataDir: *dataDir,
		RateLimit: *rate, MaxQueryBytes: *maxQuery, ExternalURL: *external, ImportFromAny: *importAny,
		Log: log.New(os.Stderr, "v4cert: ", log.LstdFlags), RequestLog: requestLog, Version: version,
		JournalSize: *journalSize,
	})
	if err != nil {
		return err
	}
	defer inst.Close() // the repositories' temporary directory, the data dir's database
	if *faultsFile != "" {
		if err := inst.LoadFaults(*faultsFile); err != nil {
			return err
		}
	}
	base := "http://" + ln.Addr().String()
	fmt.Printf("v4cert reference server listening on %s\n", base)
	fmt.Printf("  API base:            %s/api/v4\n", base)
	if inst.Restored {
		fmt.Printf("  world:               restored from %s (POST /-/reset goes back to the seed)\n", *dataDir)
	}
	fmt.Printf("  administrator root:  %s\n", inst.Root.Token)
	for _, a := range inst.Accounts {
		fmt.Printf("  %-20s %-7s %s\n", a.Role+":", a.Username, a.Token)
	}
	fmt.Printf("Try: curl -H 'PRIVATE-TOKEN: %s' %s/api/v4/user\n", inst.Root.Token, base)
	srv := inst.HTTPServer()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
