package reports

import (
	_ "embed"
	"html/template"
	"io"
	"sort"
)

//go:embed report.html.tmpl
var htmlSource string

// The page is one file: styles inline, no scripts, no fonts or images to
// fetch, so it can be archived as a CI artifact and opened anywhere.
var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"label":    func(s Status) string { return s.Label() },
	"statuses": statusList,
	"anchor":   anchor,
	"first":    firstLine,
	// A rule the run did not select shows as such, not as skipped.
	"class": func(r Rule) string {
		if r.Filtered {
			return "filtered"
		}
		return string(r.Status)
	},
	"ruleLabel": func(r Rule) string {
		switch {
		case r.Filtered:
			return "not selected"
		case r.Divergence != nil && r.Status == StatusFail:
			return "fail: known platform divergence"
		case r.Divergence != nil && r.Divergence.AsPlatform && r.Status == StatusPass:
			return "pass as the platform"
		}
		return r.Status.Label()
	},
	"skippedOnly": func(c Counts) int { return c.Skipped - c.Filtered },
	"readable":    ReadableFilter,
	"verdictClass": func(v string) string {
		return map[string]string{VerdictConformant: "ok", VerdictNotConformant: "ko", VerdictNotRun: "notrun", VerdictIncomplete: "incomplete"}[v]
	},
	"minus": func(a, b int) int { return a - b },
	"pct": func(a, b int) int {
		if b == 0 {
			return 0
		}
		return a * 100 / b
	},
}).Parse(htmlSource))

type htmlArea struct {
	Name     string
	Counts   Counts
	Rules    []Rule
	Open     bool // the area has something other than passes to look at
	Selected bool // the run selected at least one of its rules
}

type htmlView struct {
	Report
	AreaRows []htmlArea
	Problems []Rule
	Failed   []string // IDs, for the list under the banner
	// The errored rules by cause, under the banner: one line per cause.
	ErrorGroups []CauseGroup
	ErrorLine   string
	Skipped     []Rule
	Untouched   []EndpointCoverage
	Unselected  []string // areas none of whose rules the run selected
}

// WriteHTML writes report.html.
func WriteHTML(w io.Writer, r Report) error {
	v := htmlView{Report: r}
	idx := map[string]int{}
	for _, a := range r.Areas {
		idx[a.Name] = len(v.AreaRows)
		v.AreaRows = append(v.AreaRows, htmlArea{Name: a.Name, Counts: a.Counts, Selected: a.Counts.Filtered < a.Counts.Total})
		if a.Counts.Filtered == a.Counts.Total {
			v.Unselected = append(v.Unselected, a.Name)
		}
	}
	for _, rule := range r.Rules {
		a := &v.AreaRows[idx[rule.Area]]
		a.Rules = append(a.Rules, rule)
		if rule.Status != StatusPass && !rule.Filtered {
			a.Open = true
		}
		switch rule.Status {
		case StatusFail:
			v.Problems = append(v.Problems, rule)
			v.Failed = append(v.Failed, rule.ID)
		case StatusError:
			v.Problems = append(v.Problems, rule)
		case StatusSkipped:
			v.Skipped = append(v.Skipped, rule)
		}
	}
	v.ErrorGroups, v.ErrorLine = r.ErrorCauses(), r.ErrorSummary()
	// Failures before errors: what the target broke comes first.
	sort.SliceStable(v.Problems, func(i, j int) bool {
		return v.Problems[i].Status == StatusFail && v.Problems[j].Status != StatusFail
	})
	for _, e := range r.Coverage.Entries {
		if !e.Provisioning && e.Requests == 0 {
			v.Untouched = append(v.Untouched, e)
		}
	}
	return htmlTemplate.Execute(w, v)
}
