package reports

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// maxMarkdownViolations bounds the proxy section of summary.md; report.json
// and report.html carry them all.
const maxMarkdownViolations = 50

// MaxSummary bounds summary.md: a pull-request comment holds 65,536
// characters, and the summary must fit whatever fails. What does not fit is
// in report.html, which the summary links to.
const MaxSummary = 60000

// Bounds of one failure in summary.md, so that many fit.
const (
	maxSummaryMessage = 1500
	maxSummaryBody    = 1500
	maxSummaryIDs     = 120 // failing rule IDs listed under the headline
)

// WriteMarkdown writes summary.md, for terminals and pull requests: the
// verdict and the failing rules first, the run, the areas, then each failure
// with the exchange that showed it, as many as fit in MaxSummary characters.
func WriteMarkdown(w io.Writer, r Report) error {
	_, err := io.WriteString(w, Markdown(r, "report.html"))
	return err
}

// Markdown renders summary.md; html is where report.html is (links to the
// failures that do not fit point there).
func Markdown(r Report, html string) string {
	var sections []mdSection
	sections = append(sections, mdSection{text: mdRun(r)})
	if r.Verdict == VerdictNotRun && !r.AllSkipped {
		return mdHeadline(r, html, nil) + assemble(sections, html, MaxSummary, nil)
	}
	sections = append(sections, mdSection{text: mdAreas(r), more: "Areas: see report.html."})
	if len(r.SuiteErrors) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "## Suite errors (%d)\n\nThe harness broke outside any one rule.\n\n", len(r.SuiteErrors))
		for _, f := range r.SuiteErrors {
			fmt.Fprintf(&b, "- **%s** (%s)\n\n%s\n", f.Spec, f.Kind, indent(fence(ClipText(f.Message, maxSummaryMessage), "")))
		}
		sections = append(sections, mdSection{text: b.String(), more: fmt.Sprintf("%d suite errors: see report.html.", len(r.SuiteErrors))})
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
		parts := []string{fmt.Sprintf("## %s (%d)\n\n", title, len(rules))}
		for _, rule := range rules {
			parts = append(parts, mdFailure(rule))
		}
		sections = append(sections, mdSection{parts: parts, ids: ruleIDsOf(rules)})
	}
	if r.Counts.AsPlatform > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "## Passed as the platform does (%d)\n\nUnder profile %s these known platform divergences passed because the target did what the platform does, not what the spec says.\n\n", r.Counts.AsPlatform, r.Profile)
		for _, rule := range r.Rules {
			if rule.Status == StatusPass && rule.Divergence != nil && rule.Divergence.AsPlatform {
				fmt.Fprintf(&b, "- `%s` — %s\n", rule.ID, htmlEscape(rule.Note()))
			}
		}
		sections = append(sections, mdSection{text: b.String() + "\n", more: "Rules passed as the platform does: see report.html."})
	}
	if rules := rulesWith(r, StatusSkipped); len(rules) > 0 {
		sections = append(sections, mdSection{text: mdSkipped(rules), more: "Skipped rules: see report.html."})
	}
	if rules := rulesWith(r, StatusNotCovered); len(rules) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "## Not covered (%d)\n\nNo spec checks these rules; they count neither as passed nor as failed.\n\n", len(rules))
		for _, rule := range rules {
			fmt.Fprintf(&b, "- `%s` — %s\n", rule.ID, rule.Says)
		}
		sections = append(sections, mdSection{text: b.String() + "\n", more: "Rules not covered: see report.html."})
	}
	if len(r.UnknownRules) > 0 {
		sections = append(sections, mdSection{text: fmt.Sprintf("## Specs naming rules the rulebook lacks (%d)\n\n%s\n\n",
			len(r.UnknownRules), "`"+strings.Join(r.UnknownRules, "`, `")+"`")})
	}
	sections = append(sections, mdSection{text: mdCoverage(r), more: "Endpoint coverage: see report.html."})
	if r.Proxy != nil {
		sections = append(sections, mdSection{text: mdProxy(r.Proxy), more: "Proxy violations: see report.html."})
	}
	// The headline links each failing rule to its details below when they
	// fit, else to report.html: fit the rest first, in the room the longest
	// headline leaves.
	shown := map[string]bool{}
	body := assemble(sections, html, MaxSummary-len(mdHeadline(r, html, nil)), shown)
	return mdHeadline(r, html, shown) + body
}

// mdSection is one part of summary.md: text whole or not at all (then the
// more line), or parts (failures) of which as many as fit.
type mdSection struct {
	text  string
	more  string
	parts []string
	ids   []string // the rule of each part after the first (a title)
}

// assemble joins the sections within limit characters, noting in shown the
// rules whose failures it kept.
func assemble(sections []mdSection, html string, limit int, shown map[string]bool) string {
	var b strings.Builder
	// Room for the closing lines of sections that come after the one being
	// added, so a long failure list never crowds out the pointers.
	const reserve = 2000
	for i, s := range sections {
		room := limit - b.Len() - reserve
		if i == len(sections)-1 {
			room += reserve - 200
		}
		switch {
		case s.parts == nil && len(s.text) <= room:
			b.WriteString(s.text)
		case s.parts == nil:
			if s.more != "" {
				fmt.Fprintf(&b, "%s\n\n", s.more)
			}
		default:
			fitted := 0
			for j, p := range s.parts {
				if b.Len()+len(p) > limit-reserve {
					break
				}
				b.WriteString(p)
				fitted = j
				if j > 0 && shown != nil {
					shown[s.ids[j-1]] = true
				}
			}
			if rest := s.ids[fitted:]; len(rest) > 0 {
				links := make([]string, 0, min(len(rest), maxSummaryIDs))
				for _, id := range rest[:min(len(rest), maxSummaryIDs)] {
					links = append(links, fmt.Sprintf("[`%s`](%s#fail-%s)", id, html, anchor(id)))
				}
				more := ""
				if len(rest) > maxSummaryIDs {
					more = fmt.Sprintf(" and %d more", len(rest)-maxSummaryIDs)
				}
				fmt.Fprintf(&b, "**%d more not shown here** (the summary stays under %d characters), in [report.html](%s): %s%s\n\n",
					len(rest), MaxSummary, html, strings.Join(links, ", "), more)
			}
		}
	}
	out := b.String()
	if len(out) > limit { // a guard; the budget above keeps it from firing
		out = ClipText(out, limit-100) + "\n\n(cut: see " + html + ")\n"
	}
	return out
}

func ruleIDsOf(rules []Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.ID
	}
	return out
}

// mdHeadline is the verdict, the tally and the rules that failed or errored,
// each a link to its failure below when shown has it, else in report.html.
func mdHeadline(r Report, html string, shown map[string]bool) string {
	var b strings.Builder
	mark := map[string]string{VerdictConformant: "✅", VerdictNotConformant: "❌", VerdictNotRun: "⛔", VerdictIncomplete: "⏸️"}[r.Verdict]
	fmt.Fprintf(&b, "# %s %s\n\n", mark, r.Headline())
	switch r.Verdict {
	case VerdictNotRun:
		if !r.AllSkipped {
			b.WriteString("The run could not start, so nothing was judged: this is no verdict on the target. Fix the cause above and run again.\n\n")
			return b.String()
		}
		b.WriteString("The run completed, but every rule it selected was skipped, for the reasons above: nothing was judged, and this is no verdict on the target.\n\n")
	case VerdictIncomplete:
		if d := r.TargetDown; d != nil {
			fmt.Fprintf(&b, "The target stopped answering at %s (%s at %s), and the run stopped there rather than erroring every spec left: what ran is below, and it is no verdict on the whole target. See to the target (its logs, its health) and run again.\n\n",
				d.Since.UTC().Format("2006-01-02 15:04:05 MST"), d.Cause, d.URL)
		} else {
			b.WriteString("The run stopped before the end: what ran is below, and it is no verdict on the whole target.\n\n")
		}
	}
	fmt.Fprintf(&b, "**%s**", r.Counts)
	if r.Conformant && !r.Complete {
		b.WriteString(" — conformant on the rules judged; skipped, unselected and not-covered rules were not judged")
	}
	b.WriteString("\n\n")
	link := func(id string) string {
		where := html
		if shown[id] {
			where = ""
		}
		return fmt.Sprintf("[`%s`](%s#fail-%s)", id, where, anchor(id))
	}
	if rules := rulesWith(r, StatusFail); len(rules) > 0 {
		links := make([]string, 0, min(len(rules), maxSummaryIDs))
		for _, rule := range rules[:min(len(rules), maxSummaryIDs)] {
			links = append(links, link(rule.ID))
		}
		more := ""
		if len(rules) > maxSummaryIDs {
			more = fmt.Sprintf(" and [%d more](%s#failures)", len(rules)-maxSummaryIDs, html)
		}
		fmt.Fprintf(&b, "**Failed (%d):** %s%s\n\n", len(rules), strings.Join(links, " · "), more)
	}
	// Errors by cause: a target that went away errors hundreds of rules for
	// one reason, which is the one thing to read.
	if line := r.ErrorSummary(); line != "" {
		fmt.Fprintf(&b, "**%s** (not judged):\n\n", line)
		for i, g := range r.ErrorCauses() {
			if i == maxCauseGroups {
				fmt.Fprintf(&b, "- … and %d more causes: see [report.html](%s#failures)\n", len(r.ErrorCauses())-i, html)
				break
			}
			links := make([]string, 0, min(len(g.Rules), maxIDsPerCause))
			for _, id := range g.Rules[:min(len(g.Rules), maxIDsPerCause)] {
				links = append(links, link(id))
			}
			more := ""
			if len(g.Rules) > maxIDsPerCause {
				more = fmt.Sprintf(" and %d more", len(g.Rules)-maxIDsPerCause)
			}
			fmt.Fprintf(&b, "- %s (%d): %s%s\n", cell(g.Cause), len(g.Rules), strings.Join(links, " · "), more)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Bounds of the errors by cause under the headline.
const (
	maxCauseGroups = 10
	maxIDsPerCause = 12
)

func mdRun(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| Target | %s |\n", cell(r.Target))
	fmt.Fprintf(&b, "| Rulebook | `%s` (%d rules, %d endpoints) |\n", r.Rulebook.Digest, r.Rulebook.Rules, r.Rulebook.Endpoints)
	fmt.Fprintf(&b, "| v4cert | %s |\n", cell(r.Version))
	fmt.Fprintf(&b, "| Seed | %d |\n", r.Seed)
	fmt.Fprintf(&b, "| Profile | %s |\n", r.Profile)
	fmt.Fprintf(&b, "| Label filter | %s |\n", orNone(ReadableFilter(r.LabelFilter), "(none: every rule)"))
	if r.Shard != nil {
		fmt.Fprintf(&b, "| Shard | %s (merge the shards with `v4cert report merge`) |\n", r.Shard)
	}
	if r.MergedShards > 0 {
		fmt.Fprintf(&b, "| Shards | %d, merged |\n", r.MergedShards)
	}
	if r.RerunOf != "" {
		fmt.Fprintf(&b, "| Rerun of | %s |\n", cell(r.RerunOf))
	}
	fmt.Fprintf(&b, "| Through the proxy | %v |\n", r.ViaProxy)
	fmt.Fprintf(&b, "| Started | %s (%.1f s) |\n\n", r.Started.Format("2006-01-02 15:04:05 MST"), r.DurationSec)
	return b.String()
}

func mdAreas(r Report) string {
	var b strings.Builder
	b.WriteString("## Areas\n\n| area | pass | fail | error | skipped | not covered | not selected |\n|---|---:|---:|---:|---:|---:|---:|\n")
	var unselected []string
	for _, a := range r.Areas {
		c := a.Counts
		if c.Filtered == c.Total {
			unselected = append(unselected, a.Name)
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %s | %d | %d | %d |\n", a.Name, c.Pass, bold(c.Fail), bold(c.Error), c.Skipped-c.Filtered, c.NotCovered, c.Filtered)
	}
	b.WriteString("\n")
	if len(unselected) > 0 {
		fmt.Fprintf(&b, "No rule selected in %d other areas: %s.\n\n", len(unselected), strings.Join(unselected, ", "))
	}
	return b.String()
}

// mdFailure is one failing rule: what it says, then each failing spec with
// its message and the exchange its assertion named, headers and all.
func mdFailure(rule Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<a id=\"fail-%s\"></a>\n### `%s` — %s\n\n", anchor(rule.ID), rule.ID, rule.Says)
	fmt.Fprintf(&b, "Spec section: %s  \nEndpoint: %s\n\n", rule.Source, orNone(rule.Endpoint, "—"))
	if note := rule.Note(); note != "" {
		// A class-3 rule: the spec's text fails, and the platform itself
		// does otherwise; the reader should know before reading the failure.
		fmt.Fprintf(&b, "**%s**\n\n", htmlEscape(note))
	}
	for _, f := range rule.Failures {
		fmt.Fprintf(&b, "**%s** (%s", f.Spec, f.Kind)
		if f.Location != "" {
			fmt.Fprintf(&b, ", %s", f.Location)
		}
		b.WriteString(")\n\n")
		b.WriteString(fence(ClipText(f.Message, maxSummaryMessage), ""))
		if i := f.Shown(); i >= 0 {
			x := f.Exchanges[i]
			what := "the exchange the assertion names"
			if !x.Failed {
				what = "the last exchange before the failure"
			}
			if n := len(f.Exchanges); n > 1 {
				what += fmt.Sprintf("; %d more in report.html", n-1)
			}
			x.RequestBody, x.ResponseBody = ClipText(x.RequestBody, maxSummaryBody), ClipText(x.ResponseBody, maxSummaryBody)
			fmt.Fprintf(&b, "<details open><summary>%s %s → %d (%s)</summary>\n\n%s</details>\n\n",
				x.Method, htmlEscape(x.URL), x.Status, what, fence(x.String(), "http"))
		}
		if f.Curl != "" {
			fmt.Fprintf(&b, "Reproduce (the token from `$%s`):\n\n%s", TokenVar, fence(f.Curl, "sh"))
		}
	}
	if len(rule.Failures) == 0 && rule.Reason != "" {
		fmt.Fprintf(&b, "%s\n\n", rule.Reason)
	}
	return b.String()
}

func mdSkipped(rules []Rule) string {
	var b strings.Builder
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
	return b.String()
}

func mdCoverage(r Report) string {
	var b strings.Builder
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
	return b.String()
}

func mdProxy(p *ProxyRun) string {
	var b strings.Builder
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
				cell(g.Expected), cell(seenWithLabel(g)), cell(fmt.Sprintf("#%d %s %s → %d %s", x.Index, x.Method, x.URL, x.Status, x.Spec)))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ClipText cuts s to at most n bytes on a rune boundary, saying so.
func ClipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d characters in all)", len(s))
}

// anchor is the id of a rule's element in the reports (users.list.14 → users-list-14).
func anchor(id string) string { return strings.NewReplacer(".", "-", "_", "-").Replace(id) }

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

// seenWithLabel is what a group of proxy findings saw, with the label of a
// known platform divergence when the rule is one.
func seenWithLabel(g ViolationGroup) string {
	if g.Example.Divergence != "" {
		return g.Seen + " (" + g.Example.Divergence + ")"
	}
	return g.Seen
}
