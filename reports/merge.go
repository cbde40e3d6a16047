package reports

import (
	"fmt"
	"sort"
	"strings"
)

// Merge puts the reports of the N shards of one run (`certify --shard K/N`
// on N machines) back together into the report a whole run would have
// written: every rule judged from the specs of every shard.
//
// It refuses reports that are not of one run (another rulebook, target,
// v4cert version, seed, label filter or proxy setting: their specs were not
// partitioned alike, or not judged alike) and a set with a shard missing or
// given twice. names label the reports in its errors (their paths).
func Merge(parts []*Report, names []string) (Report, error) {
	if len(parts) == 0 {
		return Report{}, fmt.Errorf("no report to merge")
	}
	name := func(i int) string {
		if i < len(names) {
			return names[i]
		}
		return fmt.Sprintf("report %d", i+1)
	}
	first := parts[0]
	for i, p := range parts {
		if p.Shard == nil || p.Shard.Total < 2 {
			return Report{}, fmt.Errorf("%s is not the report of a shard (certify --shard K/N)", name(i))
		}
		for _, d := range []struct{ what, a, b string }{
			{"rulebook", first.Rulebook.Digest, p.Rulebook.Digest},
			{"target", first.Target, p.Target},
			{"v4cert version", first.Version, p.Version},
			{"seed", fmt.Sprint(first.Seed), fmt.Sprint(p.Seed)},
			{"label filter", first.LabelFilter, p.LabelFilter},
			{"profile", first.Profile, p.Profile},
			{"--via-proxy", fmt.Sprint(first.ViaProxy), fmt.Sprint(p.ViaProxy)},
			{"number of shards", fmt.Sprint(first.Shard.Total), fmt.Sprint(p.Shard.Total)},
		} {
			if d.a != d.b {
				return Report{}, fmt.Errorf("%s and %s are not shards of one run: %s %q ≠ %q", name(0), name(i), d.what, d.a, d.b)
			}
		}
	}
	total := first.Shard.Total
	byIndex := make([]int, total+1) // shard index → position in parts, +1
	for i, p := range parts {
		if j := byIndex[p.Shard.Index]; j != 0 {
			return Report{}, fmt.Errorf("shard %s given twice: %s and %s", p.Shard, name(j-1), name(i))
		}
		byIndex[p.Shard.Index] = i + 1
	}
	var missing []string
	for k := 1; k <= total; k++ {
		if byIndex[k] == 0 {
			missing = append(missing, fmt.Sprintf("%d/%d", k, total))
		}
	}
	if len(missing) > 0 {
		return Report{}, fmt.Errorf("shard %s missing: merge needs the reports of all %d shards", strings.Join(missing, ", "), total)
	}
	// Shard order, so the result does not depend on the order of the arguments.
	ordered := make([]*Report, total)
	for k := 1; k <= total; k++ {
		ordered[k-1] = parts[byIndex[k]-1]
	}
	for _, p := range ordered {
		if len(p.Rules) != len(first.Rules) {
			return Report{}, fmt.Errorf("shard %s has %d rules, shard %s %d", p.Shard, len(p.Rules), first.Shard, len(first.Rules))
		}
		for _, r := range p.Rules {
			for _, s := range r.Specs {
				if s.Status == StatusFail && strings.HasPrefix(s.Reason, KindProxy+":") && s.Text == outsideAnySpec {
					continue
				}
				if k := p.Shard.Of(s.Text); k != p.Shard.Index {
					return Report{}, fmt.Errorf("shard %s's report has spec %q, which shard %d/%d runs: were they made by one v4cert?", p.Shard, s.Text, k, total)
				}
			}
		}
	}

	out := Report{Format: Format, Target: first.Target, Version: first.Version, Rulebook: first.Rulebook,
		Seed: first.Seed, LabelFilter: first.LabelFilter, Profile: first.Profile, MergedShards: total, ViaProxy: first.ViaProxy,
		RerunOf: first.RerunOf, Started: first.Started, Rules: []Rule{}, SuiteErrors: []Failure{}, UnknownRules: []string{}}
	unknown := map[string]bool{}
	for _, p := range ordered {
		if p.Started.Before(out.Started) {
			out.Started = p.Started
		}
		out.DurationSec = max(out.DurationSec, p.DurationSec) // the shards run side by side
		for _, f := range p.SuiteErrors {
			f.Spec = "shard " + p.Shard.String() + ": " + f.Spec
			out.SuiteErrors = append(out.SuiteErrors, f)
		}
		for _, id := range p.UnknownRules {
			unknown[id] = true
		}
	}
	for id := range unknown {
		out.UnknownRules = append(out.UnknownRules, id)
	}
	sort.Strings(out.UnknownRules)

	areaIndex := map[string]int{}
	for i, r0 := range first.Rules {
		r := Rule{ID: r0.ID, Area: r0.Area, Endpoint: r0.Endpoint, Says: r0.Says, Source: r0.Source, Paid: r0.Paid,
			Specs: []Spec{}, Failures: []Failure{}}
		notCovered := false
		for _, p := range ordered {
			pr := p.Rules[i]
			r.Specs = append(r.Specs, pr.Specs...)
			r.Failures = append(r.Failures, pr.Failures...)
			notCovered = notCovered || pr.Status == StatusNotCovered
		}
		r.sortSpecs()
		switch {
		case len(r.Specs) > 0:
			r.Status, r.Reason = aggregateSpecs(r.Specs)
		case notCovered:
			r.Status, r.Reason = StatusNotCovered, "no spec checks this rule"
		default:
			r.Status, r.Filtered, r.Reason = StatusSkipped, true, "filtered out by the label filter"
		}
		r.judgeDivergence(r0.Divergence)
		out.Rules = append(out.Rules, r)
		out.Counts.add(r)
		j, ok := areaIndex[r.Area]
		if !ok {
			j = len(out.Areas)
			areaIndex[r.Area] = j
			out.Areas = append(out.Areas, Area{Name: r.Area})
		}
		out.Areas[j].Counts.add(r)
	}

	out.Coverage = mergeCoverageReports(ordered)
	if first.ViaProxy {
		out.Proxy = &ProxyRun{Violations: []Violation{}, Summary: &ProxySummary{Coverage: map[string]map[string]int{}}}
		for _, p := range ordered {
			if p.Proxy == nil {
				continue
			}
			out.Proxy.Violations = append(out.Proxy.Violations, p.Proxy.Violations...)
			if s := p.Proxy.Summary; s != nil {
				m := out.Proxy.Summary
				m.Exchanges += s.Exchanges
				m.Errors += s.Errors
				m.Warnings += s.Warnings
				m.Unknown += s.Unknown
				m.Endpoints = s.Endpoints
				for id, st := range s.Coverage {
					if m.Coverage[id] == nil {
						m.Coverage[id] = map[string]int{}
					}
					for code, n := range st {
						m.Coverage[id][code] += n
					}
				}
			}
		}
		out.Proxy.Summary.CoveredEPs = len(out.Proxy.Summary.Coverage)
	}

	// A shard that did not finish leaves the whole run unfinished. A shard
	// whose selected rules were all skipped did finish: the merged rules
	// decide.
	var notRun, incomplete []string
	for _, p := range ordered {
		switch {
		case p.Verdict == VerdictNotRun && !p.AllSkipped:
			notRun = append(notRun, "shard "+p.Shard.String()+": "+p.Cause)
		case p.Verdict == VerdictIncomplete:
			incomplete = append(incomplete, "shard "+p.Shard.String()+": "+p.Cause)
			if out.TargetDown == nil {
				out.TargetDown = p.TargetDown
			}
		}
	}
	if len(incomplete) == 0 || len(notRun) > 0 {
		out.TargetDown = nil
	}
	switch {
	case len(notRun) == total:
		out.decide(VerdictNotRun, notRun[0])
	case len(notRun) > 0:
		out.decide(VerdictIncomplete, strings.Join(notRun, "; "))
	case len(incomplete) > 0:
		out.decide(VerdictIncomplete, strings.Join(incomplete, "; "))
	default:
		out.decide("", "")
	}
	return out, nil
}

// outsideAnySpec names proxy findings in traffic no spec sent.
const outsideAnySpec = "(traffic outside any spec)"

func mergeCoverageReports(parts []*Report) Coverage {
	c := Coverage{Entries: []EndpointCoverage{}}
	for i, e := range parts[0].Coverage.Entries {
		m := EndpointCoverage{ID: e.ID, Area: e.Area, Method: e.Method, Path: e.Path, Provisioning: e.Provisioning, Statuses: map[string]int{}}
		for _, p := range parts {
			if i >= len(p.Coverage.Entries) || p.Coverage.Entries[i].ID != e.ID {
				continue
			}
			for st, n := range p.Coverage.Entries[i].Statuses {
				m.Statuses[st] += n
				m.Requests += n
			}
		}
		c.add(m)
	}
	for _, p := range parts {
		c.Unmatched += p.Coverage.Unmatched
	}
	return c
}
