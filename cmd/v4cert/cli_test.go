package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
