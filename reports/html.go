package reports

import (
	_ "embed"
	"html/template"
	"io"
	"strings"
)

//go:embed report.html.tmpl
var htmlSource string

// The page is one file: styles inline, no scripts, no fonts or images to
// fetch, so it can be archived as a CI artifact and opened anywhere.
var htmlTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"label":    func(s Status) string { return s.Label() },
	"statuses": statusList,
	"anchor":   func(id string) string { return strings.NewReplacer(".", "-", "_", "-").Replace(id) },
	"first":    firstLine,
	"last":     func(i int, xs []Exchange) bool { return i == len(xs)-1 },
	"pct": func(a, b int) int {
		if b == 0 {
			return 0
		}
		return a * 100 / b
	},
}).Parse(htmlSource))

type htmlArea struct {
	Name   string
	Counts Counts
	Rules  []Rule
	Open   bool // the area has something other than passes to look at
}

type htmlView struct {
	Report
	AreaRows  []htmlArea
	Problems  []Rule
	Skipped   []Rule
	Untouched []EndpointCoverage
}

// WriteHTML writes report.html.
func WriteHTML(w io.Writer, r Report) error {
	v := htmlView{Report: r}
	idx := map[string]int{}
	for _, a := range r.Areas {
		idx[a.Name] = len(v.AreaRows)
		v.AreaRows = append(v.AreaRows, htmlArea{Name: a.Name, Counts: a.Counts})
	}
	for _, rule := range r.Rules {
		a := &v.AreaRows[idx[rule.Area]]
		a.Rules = append(a.Rules, rule)
		if rule.Status != StatusPass {
			a.Open = true
		}
		switch rule.Status {
		case StatusFail, StatusError:
			v.Problems = append(v.Problems, rule)
		case StatusSkipped:
			v.Skipped = append(v.Skipped, rule)
		}
	}
	for _, e := range r.Coverage.Entries {
		if !e.Provisioning && e.Requests == 0 {
			v.Untouched = append(v.Untouched, e)
		}
	}
	return htmlTemplate.Execute(w, v)
}
