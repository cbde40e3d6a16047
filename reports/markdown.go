package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// maxMarkdownViolations bounds the proxy section of summary.md; report.json
// and report.html carry them all.
const maxMarkdownViolations = 50

// WriteMarkdown writes summary.md, for terminals and pull requests: the
// verdict, the areas, then what went wrong with the traffic that showed it.
func WriteMarkdown(w io.Writer, r Report) error {
	var b strings.Builder
	mark := "✅"
	if !r.Conformant {
		mark = "❌"
	}
	fmt.Fprintf(&b, "# %s %s\n\n", mark, r.Verdict)
	fmt.Fprintf(&b, "**%s**", r.Counts)
	if r.Conformant && !r.Complete {
		b.WriteString(" — conformant on the rules checked; skipped and not-covered rules were not judged")
	}
	b.WriteString("\n\n")
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| Target | %s |\n", cell(r.Target))
	fmt.Fprintf(&b, "| Rulebook | `%s` (%d rules, %d endpoints) |\n", r.Rulebook.Digest, r.Rulebook.Rules, r.Rulebook.Endpoints)
	fmt.Fprintf(&b, "| v4cert | %s |\n", cell(r.Version))
	fmt.Fprintf(&b, "| Seed | %d |\n", r.Seed)
	fmt.Fprintf(&b, "| Label filter | %s |\n", orNone(r.LabelFilter, "(none: every rule)"))
	if r.RerunOf != "" {
		fmt.Fprintf(&b, "| Rerun of | %s |\n", cell(r.RerunOf))
	}
	fmt.Fprintf(&b, "| Through the proxy | %v |\n", r.ViaProxy)
	fmt.Fprintf(&b, "| Started | %s (%.1f s) |\n\n", r.Started.Format("2006-01-02 15:04:05 MST"), r.DurationSec)

	b.WriteString("## Areas\n\n| area | pass | fail | error | skipped | not covered |\n|---|---:|---:|---:|---:|---:|\n")
	for _, a := range r.Areas {
		c := a.Counts
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %d | %d |\n", a.Name, c.Pass, bold(c.Fail), bold(c.Error), c.Skipped, c.NotCovered)
	}
	b.WriteString("\n")

	if len(r.SuiteErrors) > 0 {
		fmt.Fprintf(&b, "## Suite errors (%d)\n\nThe harness broke outside any one rule.\n\n", len(r.SuiteErrors))
		for _, f := range r.SuiteErrors {
			fmt.Fprintf(&b, "- **%s** (%s)\n\n%s\n", f.Spec, f.Kind, indent(fence(f.Message, "")))
		}
		b.WriteString("\n")
	}
	for _, st := range []Status{StatusFail, StatusError} {
		rules := rulesWith(r, st)
		if len(rules) == 0 {
			continue
		}
		title := "Failures: the target broke these rules"
		if st == StatusError {
			title = "Errors: the harness could not judge these rules"
		}
		fmt.Fprintf(&b, "## %s (%d)\n\n", title, len(rules))
		for _, rule := range rules {
			fmt.Fprintf(&b, "### `%s` — %s\n\n", rule.ID, rule.Says)
			fmt.Fprintf(&b, "Spec section: %s  \nEndpoint: %s\n\n", rule.Source, orNone(rule.Endpoint, "—"))
			for _, f := range rule.Failures {
				fmt.Fprintf(&b, "**%s** (%s", f.Spec, f.Kind)
				if f.Location != "" {
					fmt.Fprintf(&b, ", %s", f.Location)
				}
				b.WriteString(")\n\n")
				b.WriteString(fence(f.Message, ""))
				// The last exchange is the one that showed it; the page has the rest.
				if n := len(f.Exchanges); n > 0 {
					x := f.Exchanges[n-1]
					more := ""
					if n > 1 {
						more = fmt.Sprintf(" (and %d earlier exchanges in report.html)", n-1)
					}
					fmt.Fprintf(&b, "<details><summary>%s %s → %d%s</summary>\n\n%s</details>\n\n", x.Method, htmlEscape(x.URL), x.Status, more, fence(x.String(), "http"))
				}
			}
			if len(rule.Failures) == 0 && rule.Reason != "" {
				fmt.Fprintf(&b, "%s\n\n", rule.Reason)
			}
		}
	}
	if rules := rulesWith(r, StatusSkipped); len(rules) > 0 {
		fmt.Fprintf(&b, "## Skipped (%d)\n\n", len(rules))
		byReason := map[string][]string{}
		var reasons []string
		for _, rule := range rules {
			if _, ok := byReason[rule.Reason]; !ok {
				reasons = append(reasons, rule.Reason)
			}
			byReason[rule.Reason] = append(byReason[rule.Reason], "`"+rule.ID+"`")
		}
		for _, reason := range reasons {
			ids := byReason[reason]
			if len(ids) > 20 {
				ids = append(ids[:20], fmt.Sprintf("and %d more", len(ids)-20))
			}
			fmt.Fprintf(&b, "- %s: %s\n", reason, strings.Join(ids, ", "))
		}
		b.WriteString("\n")
	}
	if rules := rulesWith(r, StatusNotCovered); len(rules) > 0 {
		fmt.Fprintf(&b, "## Not covered (%d)\n\nNo spec checks these rules; they count neither as passed nor as failed.\n\n", len(rules))
		for _, rule := range rules {
			fmt.Fprintf(&b, "- `%s` — %s\n", rule.ID, rule.Says)
		}
		b.WriteString("\n")
	}
	if len(r.UnknownRules) > 0 {
		fmt.Fprintf(&b, "## Specs naming rules the rulebook lacks (%d)\n\n%s\n\n", len(r.UnknownRules), "`"+strings.Join(r.UnknownRules, "`, `")+"`")
	}

	cov := r.Coverage
	fmt.Fprintf(&b, "## Endpoint coverage\n\nThe run reached **%d of %d** certified endpoints", cov.Touched, cov.Endpoints)
	if cov.Unmatched > 0 {
		fmt.Fprintf(&b, " (and sent %d requests no endpoint of the rulebook matches)", cov.Unmatched)
	}
	b.WriteString(".\n\n")
	var untouched []string
	for _, e := range cov.Entries {
		if !e.Provisioning && e.Requests == 0 {
			untouched = append(untouched, fmt.Sprintf("`%s %s` (%s)", e.Method, e.Path, e.ID))
		}
	}
	if len(untouched) > 0 {
		fmt.Fprintf(&b, "Not reached: %s\n\n", strings.Join(untouched, ", "))
	}
	b.WriteString("<details><summary>Statuses seen per endpoint</summary>\n\n| endpoint | method | path | requests | statuses |\n|---|---|---|---:|---|\n")
	for _, e := range cov.Entries {
		id := e.ID
		if e.Provisioning {
			id += " (provisioning)"
		}
		fmt.Fprintf(&b, "| %s | %s | `%s` | %d | %s |\n", id, e.Method, e.Path, e.Requests, statusList(e.Statuses))
	}
	b.WriteString("\n</details>\n\n")

	if p := r.Proxy; p != nil {
		fmt.Fprintf(&b, "## Proxy violations (%d)\n\n", len(p.Violations))
		if s := p.Summary; s != nil {
			fmt.Fprintf(&b, "%d exchanges: %d errors, %d warnings, %d to endpoints the rulebook does not know.\n\n", s.Exchanges, s.Errors, s.Warnings, s.Unknown)
		}
		if groups := p.GroupViolations(); len(groups) > 0 {
			b.WriteString("| severity | count | endpoint | rule / schema | expected | seen | first seen in |\n|---|---:|---|---|---|---|---|\n")
			for i, g := range groups {
				if i == maxMarkdownViolations {
					fmt.Fprintf(&b, "\n… and %d more kinds in report.json.\n", len(groups)-i)
					break
				}
				x := g.Example
				fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s |\n", g.Severity, g.Count, g.Endpoint, cell(g.Where),
					cell(g.Expected), cell(g.Seen), cell(fmt.Sprintf("#%d %s %s → %d %s", x.Index, x.Method, x.URL, x.Status, x.Spec)))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rulesWith(r Report, s Status) []Rule {
	var out []Rule
	for _, rule := range r.Rules {
		if rule.Status == s {
			out = append(out, rule)
		}
	}
	return out
}

// fence wraps text in a code fence longer than any run of backticks inside it.
func fence(text, lang string) string {
	longest, run := 0, 0
	for _, c := range text {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n\n"
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

func bold(n int) string {
	if n == 0 {
		return "0"
	}
	return fmt.Sprintf("**%d**", n)
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return "`" + s + "`"
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func statusList(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", k, m[k]))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, " ")
}
