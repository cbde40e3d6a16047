package main

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
	makeTarget = regexp.MustCompile(`(?m)^([a-z][a-z0-9-]*):`)
	flagWord   = regexp.MustCompile(`^--?([a-z][a-z0-9-]*)(=.*)?$`)
)

// TestDocsCommandsExist keeps what the README and docs/ show runnable: every
// `v4cert COMMAND --flag` names a command and flags it has, every `make
// TARGET` a target of the Makefile, every relative link a file that exists,
// and every #anchor a heading of the file it points into.
func TestDocsCommandsExist(t *testing.T) {
	root, _ := filepath.Abs("../..")
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range makeTarget.FindAllStringSubmatch(string(mk), -1) {
		targets[m[1]] = true
	}
	flags := map[string]map[string]bool{}
	for _, c := range completionCommands() {
		flags[c.name] = map[string]bool{"h": true, "help": true}
		for _, f := range c.flags {
			flags[c.name][f.name] = true
		}
	}
	// Deprecated aliases are still accepted, so docs may show them.
	for _, c := range commands {
		if fs := flagsOf(c); fs != nil {
			fs.VisitAll(func(f *flag.Flag) { flags[c.name][f.Name] = true })
		}
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		b, _ := os.ReadFile(path)
		inCode := false
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "```") {
				inCode = !inCode
			}
			if !inCode && strings.HasPrefix(l, "#") {
				a[slug(l)] = true
			}
		}
		anchors[path] = a
		return a
	}
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		var lines []string
		inCode, shell := false, false
		for n, l := range strings.Split(string(b), "\n") {
			at := func(format string, args ...any) { t.Errorf(rel+":"+strconv.Itoa(n+1)+": "+format, args...) }
			if lang, fence := strings.CutPrefix(l, "```"); fence {
				inCode = !inCode
				// Shell lines only: YAML examples run the user's own make targets.
				shell = inCode && (lang == "" || lang == "sh" || lang == "console" || lang == "bash" || lang == "shell")
				continue
			}
			if inCode && !shell {
				continue
			}
			if inCode {
				lines = append(lines[:0], strings.TrimPrefix(strings.TrimSpace(l), "$ "))
			} else {
				lines = lines[:0]
				for _, m := range inlineCode.FindAllStringSubmatch(l, -1) {
					lines = append(lines, m[1])
				}
				for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
					target := m[1]
					if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
						continue
					}
					path, anchor, _ := strings.Cut(target, "#")
					full := file
					if path != "" {
						full = filepath.Join(filepath.Dir(file), path)
						if _, err := os.Stat(full); err != nil {
							at("link to %s: no such file", target)
							continue
						}
					}
					if anchor != "" && strings.HasSuffix(full, ".md") && !anchorsOf(full)[anchor] {
						at("link to %s: no heading with that anchor", target)
					}
					checked++
				}
			}
			for _, cmd := range lines {
				checked += checkCommand(cmd, flags, targets, at)
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d commands and links checked: the scan is broken", checked)
	}
}

// usersOwnTargets are make targets of a user's project that the CI recipes
// (docs/ci.md) show running the user's tests.
var usersOwnTargets = map[string]bool{"test-integration": true}

// checkCommand checks one shell line: each v4cert or make invocation in it
// (after pipes, && and ;). It returns how many it checked.
func checkCommand(line string, flags map[string]map[string]bool, targets map[string]bool, at func(string, ...any)) int {
	n := 0
	for _, part := range regexp.MustCompile(`\|\||&&|[|;]|\$\(`).Split(line, -1) {
		words := strings.Fields(strings.TrimSpace(part))
		for len(words) > 0 && strings.Contains(words[0], "=") && !strings.HasPrefix(words[0], "-") {
			words = words[1:] // VAR=value before the command
		}
		if len(words) == 0 {
			continue
		}
		name := words[0]
		if strings.HasSuffix(name, "/v4cert") { // bin/v4cert, ./bin/v4cert
			name = "v4cert"
		}
		switch name {
		case "v4cert":
			// Internal commands (__certify-worker) and prose ("serve:") are not invocations.
			if len(words) < 2 || strings.HasPrefix(words[1], "-") || strings.HasPrefix(words[1], "_") || strings.ContainsAny(words[1], "<>[|.:") {
				continue
			}
			fl, ok := flags[words[1]]
			if !ok {
				at("v4cert %s: no such command", words[1])
				continue
			}
			for _, w := range words[2:] {
				if w == "#" || strings.HasPrefix(w, "#") {
					break
				}
				if m := flagWord.FindStringSubmatch(w); m != nil && !fl[m[1]] {
					at("v4cert %s: no flag --%s", words[1], m[1])
				}
			}
			n++
		case "make":
			for _, w := range words[1:] {
				if strings.HasPrefix(w, "#") {
					break
				}
				if strings.Contains(w, "=") || strings.HasPrefix(w, "-") || strings.ContainsAny(w, "<>.$") {
					continue
				}
				if !targets[w] && !usersOwnTargets[w] {
					at("make %s: no such target", w)
				}
				n++
			}
		}
	}
	return n
}

// slug is GitHub's anchor for a heading.
func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(strings.TrimLeft(h, "#")))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
