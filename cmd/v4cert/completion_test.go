package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompletionBash sources the generated script in a real bash and asks it
// to complete, as the shell would on Tab: commands, a command's flags, a
// subcommand, and files after a flag that takes a value.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "v4cert.bash")
	if err := os.WriteFile(script, []byte(bashCompletion(completionCommands())), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "seed.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	complete := func(line string) []string {
		t.Helper()
		words := strings.Fields(line)
		if strings.HasSuffix(line, " ") {
			words = append(words, "")
		}
		prog := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _v4cert; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, append([]string{"-c", prog, "bash", script}, words...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", line, err, out)
		}
		return strings.Fields(string(out))
	}
	for _, c := range []struct {
		line string
		want []string
	}{
		{"v4cert ce", []string{"certify"}},
		{"v4cert serve --data", []string{"--data-dir"}},
		{"v4cert certify --pro", []string{"--procs", "--profile"}},
		{"v4cert report ", []string{"merge", "verify"}},
		{"v4cert completion z", []string{"zsh"}},
		{"v4cert serve --seed-file se", []string{"seed.yaml"}},
		{"v4cert serve -seed-file se", []string{"seed.yaml"}},
	} {
		if got := complete(c.line); strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("%q completes to %q, want %q", c.line, got, c.want)
		}
	}
}

// TestCompletionScriptsNameEveryFlag holds the zsh and fish scripts (no zsh
// or fish on the test machine) to the same source: every command and every
// current flag name appears, no deprecated alias does, and quoting survives
// the flags' help texts.
func TestCompletionScriptsNameEveryFlag(t *testing.T) {
	cmds := completionCommands()
	zsh, fish := zshCompletion(cmds), fishCompletion(cmds)
	for _, c := range cmds {
		if !strings.Contains(zsh, "'"+c.name+":") || !strings.Contains(fish, "-a "+c.name+" ") {
			t.Errorf("command %s missing from a script", c.name)
		}
		for _, f := range c.flags {
			if !strings.Contains(zsh, "'--"+f.name+"[") {
				t.Errorf("zsh: %s --%s missing", c.name, f.name)
			}
			if !strings.Contains(fish, "__fish_seen_subcommand_from "+c.name+"\" -l "+f.name+" ") {
				t.Errorf("fish: %s --%s missing", c.name, f.name)
			}
		}
	}
	for _, old := range []string{"--listen", "--timeout"} {
		if strings.Contains(zsh, "'"+old+"[") {
			t.Errorf("zsh offers the deprecated %s", old)
		}
	}
	if n := strings.Count(zsh, "'") - strings.Count(zsh, `'\''`)*3; n%2 != 0 {
		t.Errorf("zsh script has unbalanced single quotes")
	}
}
