package main

import (
	"bytes"
	"flag"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDeprecatedAliasSetsTheNewName: an old name sets the flag under its
// new name (what fs.Visit sees, as certify's --rerun-failed asks whether the
// seed was given), says it is deprecated once however often it is given,
// works alone for a boolean flag, and the help lists it apart.
func TestDeprecatedAliasSetsTheNewName(t *testing.T) {
	fs := flag.NewFlagSet("certify", flag.ContinueOnError)
	var out bytes.Buffer
	fs.SetOutput(&out)
	seed := fs.Int64("random-seed", 1, "seed of the order")
	quiet := fs.Bool("quiet", false, "no progress")
	deprecatedAlias(fs, "seed", "random-seed", "serve's --seed is the world")
	deprecatedAlias(fs, "silent", "quiet", "one name")
	if err := fs.Parse([]string{"--seed", "7", "-seed=8", "--silent", "rest"}); err != nil {
		t.Fatal(err)
	}
	if *seed != 8 || !*quiet || fs.NArg() != 1 {
		t.Errorf("seed %d, quiet %v, args %q: the old names did not set the new flags", *seed, *quiet, fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["random-seed"] || !set["quiet"] {
		t.Errorf("fs.Visit sees %v, not the new names", set)
	}
	want := "v4cert certify: --seed is deprecated: use --random-seed (serve's --seed is the world)\n" +
		"v4cert certify: --silent is deprecated: use --quiet (one name)\n"
	if out.String() != want {
		t.Errorf("deprecation lines:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	printDefaults(fs)
	help := out.String()
	if regexp.MustCompile(`(?m)^\s*-(seed|silent)\b`).MatchString(help) {
		t.Errorf("the help lists an old name as a flag:\n%s", help)
	}
	if !strings.Contains(help, "-random-seed int") || !strings.Contains(help, "Deprecated names, still accepted: --seed (--random-seed), --silent (--quiet)") {
		t.Errorf("help:\n%s", help)
	}
}

// TestOneNamePerConcept: no flag name means two things across the commands.
// A name two commands share must be one of those known to mean the same in
// both; an old name kept as an alias is no flag of its own.
func TestOneNamePerConcept(t *testing.T) {
	shared := map[string]bool{
		"quiet":      true, // less on stderr (certify: progress lines; proxy: findings)
		"violations": true, // proxy, validate: findings as JSON lines
		"summary":    true, // proxy, validate: the summary as JSON
		"addr":       true, // the address to listen on (serve, proxy)
		"rate-limit": true, // the server's limit in requests a second per client (serve: imposes it; certify: declares the target's)
	}
	usage := map[string]map[string]string{} // name -> command -> help
	for _, c := range commands {
		fs := flagsOf(c)
		if fs == nil {
			continue
		}
		fs.VisitAll(func(f *flag.Flag) {
			if _, alias := f.Value.(*aliasFlag); alias {
				return
			}
			if usage[f.Name] == nil {
				usage[f.Name] = map[string]string{}
			}
			usage[f.Name][c.name] = f.Usage
		})
	}
	for name, by := range usage {
		if len(by) > 1 && !shared[name] {
			t.Errorf("--%s is a flag of several commands, perhaps for different things: %v", name, by)
		}
	}
	// The clashes issue 19 found are gone from certify.
	fs := flagsOf(command{name: "certify", run: certify})
	for _, name := range []string{"seed", "timeout"} {
		if f := fs.Lookup(name); f == nil {
			t.Errorf("certify --%s is gone: old names must keep working", name)
		} else if _, alias := f.Value.(*aliasFlag); !alias {
			t.Errorf("certify --%s is still a flag of its own", name)
		}
	}
}

// TestServeBindErrorsNameTheFlag: a listen address that cannot be used is
// refused with the flag and the address, at once (before a world is built).
func TestServeBindErrorsNameTheFlag(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().String()
	for _, tc := range []struct{ addr, want string }{
		{taken, "v4cert serve: --addr " + taken + ": address already in use"},
		{"127.0.0.1", "v4cert serve: --addr 127.0.0.1: missing port in address"},
		{"127.0.0.1:99999", "v4cert serve: --addr 127.0.0.1:99999: invalid port"},
	} {
		status, out := runV4cert(t, "serve", "--addr", tc.addr, "--seed", "none")
		if status != 1 || !strings.HasPrefix(out, tc.want) {
			t.Errorf("--addr %s: exit %d, want 1 and %q:\n%s", tc.addr, status, tc.want, out)
		}
		if strings.Contains(out, "listen tcp") || strings.Contains(out, "bind:") {
			t.Errorf("--addr %s: the socket call's words reach the user:\n%s", tc.addr, out)
		}
	}
}

// TestServeReportsEverySeedFileMistake: as docs/seed-file.md promises, serve
// refuses a seed file with every mistake, each with the file, the line and
// the entry, and an unknown key with the one meant.
func TestServeReportsEverySeedFileMistake(t *testing.T) {
	path := filepath.Join(t.TempDir(), "world.yaml")
	os.WriteFile(path, []byte("users:\n  - username: alice\n    nmae: Alice\ngroups:\n  - path: acme/tools\n"), 0o644)
	status, out := runV4cert(t, "serve", "--addr", "127.0.0.1:0", "--seed-file", path)
	want := []string{
		"v4cert serve: " + path + `:3: users[0] (alice): unknown key "nmae" (did you mean "name"?)`,
		path + ":5: groups[0] (acme/tools): parent group acme must be defined above it",
	}
	if status != 1 || !strings.HasPrefix(out, strings.Join(want, "\n")+"\n") {
		t.Errorf("exit %d, want 1 and\n%s\ngot:\n%s", status, strings.Join(want, "\n"), out)
	}
}

// TestCertifyWritesNoColourOffATerminal: what certify writes to a pipe (as
// in CI) and to its reports has no ANSI escape codes, Ginkgo's own errors
// included (a label filter that does not parse used to come coloured).
func TestCertifyWritesNoColourOffATerminal(t *testing.T) {
	status, out := runV4cert(t, "certify", "--list", "--label-filter", "((")
	if status != 2 || !strings.Contains(out, "Syntax Error Parsing Label Filter") {
		t.Errorf("a label filter that does not parse: exit %d\n%s", status, out)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape codes on a pipe: %q", out)
	}

	base, token := serveReference(t)
	dir := t.TempDir()
	status, out = runV4cert(t, "certify", "--target", base, "--token", token, "--out", dir, "--procs", "1",
		"--label-filter", "rule:users.get.1 || rule:users.get.4")
	if status != 0 || !strings.Contains(out, "users.get.1") {
		t.Fatalf("exit %d\n%s", status, out)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("escape codes on a pipe: %q", out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		if data, _ := os.ReadFile(f); bytes.Contains(data, []byte("\x1b")) {
			t.Errorf("%s has escape codes", f)
		}
	}
}

// TestColorWanted: colour only on a terminal, and never with NO_COLOR or
// TERM=dumb.
func TestColorWanted(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, out := range []*os.File{w, file} {
		if colorWanted(out, env("TERM", "xterm-256color")) {
			t.Errorf("%s: colour wanted on a pipe or a file", out.Name())
		}
	}
	// A character device stands in for a terminal; the variables still win.
	tty, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	if !colorWanted(tty, env("TERM", "xterm")) {
		t.Error("no colour on a character device")
	}
	for _, kv := range [][]string{{"NO_COLOR", "1"}, {"TERM", "dumb"}} {
		if colorWanted(tty, env(kv...)) {
			t.Errorf("%s=%s: colour wanted", kv[0], kv[1])
		}
	}
}

// TestCertifyOldFlagNamesStillWork: certify --seed and --timeout, as
// scripts written before the renames give them, still set the seed and the
// limit, with one deprecation line each.
func TestCertifyOldFlagNamesStillWork(t *testing.T) {
	base, token := serveReference(t)
	dir := t.TempDir()
	status, out := runV4cert(t, "certify", "--target", base, "--token", token, "--out", dir, "--procs", "1",
		"--label-filter", "rule:users.get.1", "--seed", "7", "--timeout", "10m")
	if status != 0 {
		t.Fatalf("exit %d\n%s", status, out)
	}
	for _, line := range []string{
		"v4cert certify: --seed is deprecated: use --random-seed",
		"v4cert certify: --timeout is deprecated: use --run-timeout",
	} {
		if strings.Count(out, line) != 1 {
			t.Errorf("want %q once:\n%s", line, out)
		}
	}
	if rep := loadReport(t, dir); rep.Seed != 7 {
		t.Errorf("--seed 7 ran with seed %d", rep.Seed)
	}
}
