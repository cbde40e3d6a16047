package reports

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// JUnit XML as CI systems read it (the Jenkins/Surefire dialect): one
// testsuite per area, one testcase per rule.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Package    string          `xml:"package,attr,omitempty"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// WriteJUnit writes junit.xml.
func WriteJUnit(w io.Writer, r Report) error {
	props := []junitProperty{
		{"verdict", r.Verdict}, {"target", r.Target}, {"rulebook_digest", r.Rulebook.Digest},
		{"v4cert_version", r.Version}, {"seed", fmt.Sprint(r.Seed)}, {"label_filter", r.LabelFilter},
	}
	if r.Cause != "" {
		props = append(props, junitProperty{"cause", r.Cause})
	}
	if r.Shard != nil {
		props = append(props, junitProperty{"shard", r.Shard.String()})
	}
	out := junitSuites{Name: "v4cert certify " + r.Target, Time: secs(r.DurationSec)}
	stamp := r.Started.Format(time.RFC3339)
	// A run that did not finish says so as an error CI shows first: NOT RUN
	// has nothing else to say, INCOMPLETE adds what did run.
	if r.Verdict == VerdictNotRun || r.Verdict == VerdictIncomplete {
		out.Suites = append(out.Suites, junitSuite{Name: "certify", Package: "v4cert.certify", Timestamp: stamp, Properties: props,
			Time: secs(r.DurationSec), Tests: 1, Errors: 1, Cases: []junitCase{{Name: "the run", Classname: "v4cert.certify",
				Time: secs(r.DurationSec), Error: &junitProblem{Message: r.Headline(), Type: strings.ToLower(strings.ReplaceAll(r.Verdict, " ", "_")), Text: xmlSafe(r.Cause)}}}})
	}
	byArea := map[string]int{}
	times := map[string]float64{}
	for _, a := range r.Areas {
		if r.Verdict == VerdictNotRun && !r.AllSkipped {
			break
		}
		byArea[a.Name] = len(out.Suites)
		out.Suites = append(out.Suites, junitSuite{Name: a.Name, Package: "v4cert." + a.Name, Timestamp: stamp, Properties: props, Time: secs(0)})
	}
	for _, rule := range r.Rules {
		i, ok := byArea[rule.Area]
		if !ok || rule.Filtered {
			continue // rules the run did not select are no test of it
		}
		s := &out.Suites[i]
		var t float64
		for _, sp := range rule.Specs {
			t += sp.DurationSec
		}
		c := junitCase{Name: rule.ID + ": " + rule.Says, Classname: "v4cert." + rule.Area, Time: secs(t)}
		switch rule.Status {
		case StatusFail:
			c.Failure = &junitProblem{Message: problemMessage(rule), Type: problemType(rule), Text: failuresText(rule)}
			if note := rule.Note(); note != "" {
				// Still a failure of the spec's text, told apart from a
				// plain one wherever CI shows it: type and first line.
				c.Failure.Type = "known_platform_divergence"
				c.Failure.Message = xmlSafe(note) + " — " + c.Failure.Message
			}
			s.Failures++
		case StatusError:
			c.Error = &junitProblem{Message: problemMessage(rule), Type: problemType(rule), Text: failuresText(rule)}
			s.Errors++
		case StatusSkipped:
			c.Skipped = &junitSkipped{Message: rule.Reason}
			s.Skipped++
		case StatusNotCovered:
			c.Skipped = &junitSkipped{Message: "not covered: " + rule.Reason}
			s.Skipped++
		}
		c.SystemOut = "source: " + rule.Source
		if note := rule.Note(); note != "" && rule.Status == StatusPass {
			c.SystemOut += "\n" + xmlSafe(note)
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
		times[rule.Area] += t
		s.Time = secs(times[rule.Area])
	}
	if len(r.SuiteErrors) > 0 {
		s := junitSuite{Name: "suite", Package: "v4cert.suite", Timestamp: stamp, Properties: props, Time: secs(0)}
		for _, f := range r.SuiteErrors {
			s.Cases = append(s.Cases, junitCase{Name: f.Spec, Classname: "v4cert.suite", Time: secs(0),
				Error: &junitProblem{Message: firstLine(f.Message), Type: f.Kind, Text: f.Message}})
			s.Tests++
			s.Errors++
		}
		out.Suites = append(out.Suites, s)
	}
	if r.Proxy != nil {
		s := junitSuite{Name: "proxy", Package: "v4cert.proxy", Timestamp: stamp, Properties: props, Time: secs(0)}
		c := junitCase{Name: "traffic matches the rulebook and the schemas", Classname: "v4cert.proxy", Time: secs(0)}
		if n := r.Proxy.errors(); n > 0 {
			var b strings.Builder
			for _, v := range r.Proxy.Violations {
				fmt.Fprintf(&b, "%s\n", violationLine(v))
			}
			c.Failure = &junitProblem{Message: fmt.Sprintf("%d violations", n), Type: "proxy", Text: b.String()}
			s.Failures++
		}
		s.Cases, s.Tests = append(s.Cases, c), 1
		out.Suites = append(out.Suites, s)
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// problemMessage is the one line CI shows for a failed rule: the first line
// of the first failing assertion (for an error, of the harness's failure).
func problemMessage(rule Rule) string {
	for _, f := range rule.Failures {
		if f.Status == rule.Status {
			if line := firstLine(f.Message); line != "" {
				return xmlSafe(line)
			}
		}
	}
	return xmlSafe(rule.Reason)
}

// problemType is the kind of the first failure of the rule's status.
func problemType(rule Rule) string {
	for _, f := range rule.Failures {
		if f.Status == rule.Status {
			return f.Kind
		}
	}
	return string(rule.Status)
}

// failuresText is the body of a failure or error element: the rule, then
// each failing spec with its message and traffic.
func failuresText(rule Rule) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n%s\nsource: %s\n", rule.ID, rule.Says, rule.Source)
	if note := rule.Note(); note != "" {
		fmt.Fprintf(&b, "%s\n", note)
	}
	for _, f := range rule.Failures {
		fmt.Fprintf(&b, "\n[%s/%s] %s\n", f.Status, f.Kind, f.Spec)
		if f.Location != "" {
			fmt.Fprintf(&b, "at %s\n", f.Location)
		}
		fmt.Fprintf(&b, "%s\n", f.Message)
		for _, x := range f.Exchanges {
			fmt.Fprintf(&b, "\n%s\n", x.String())
		}
		if f.Curl != "" {
			fmt.Fprintf(&b, "\nreproduce (the token from $%s):\n%s\n", TokenVar, f.Curl)
		}
	}
	return xmlSafe(b.String())
}

func violationLine(v Violation) string {
	where := v.Rule
	if where == "" {
		where = v.Schema
	}
	line := fmt.Sprintf("#%d %s %s %s → %d [%s] %s: expected %s, seen %s", v.Index, v.Severity, v.Method, v.URL, v.Status,
		v.Endpoint, where, v.Expected, v.Seen)
	if v.Divergence != "" {
		line += " (" + v.Divergence + ")"
	}
	return line
}

// xmlSafe drops characters XML 1.0 cannot carry (bodies may hold any byte).
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' || (r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || r >= 0x10000 && r <= 0x10FFFF {
			return r
		}
		return -1
	}, s)
}

func secs(f float64) string { return fmt.Sprintf("%.3f", f) }
