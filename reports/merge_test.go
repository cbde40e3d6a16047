package reports

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

// run15 is a run over every rule of the test book: passes, failures, a
// fixture error, a skip, a rule checked by specs that will land in
// different shards, and one rule with no spec.
func run15() []types.SpecReport {
	var out []types.SpecReport
	for i := 1; i <= 14; i++ {
		id := fmt.Sprintf("things.get.%d", i)
		switch i {
		case 2, 9:
			out = append(out, failed("Expected status 404", id))
		case 3:
			out = append(out, fixtureFailed(id))
		case 6:
			out = append(out, skipped("the target has no paid tier", id))
		case 7:
			// not covered
		default:
			out = append(out, spec(types.SpecStatePassed, id))
		}
	}
	for i := 0; i < 6; i++ { // several specs of one rule, spread over the shards
		s := spec(types.SpecStatePassed, "things.get.12")
		s.LeafNodeText = fmt.Sprintf("entry %d", i)
		out = append(out, s)
	}
	return out
}

// shardOf builds shard k of n of the run: the same tree, the others' specs
// left out as certify --shard leaves them.
func shardOf(t *testing.T, all []types.SpecReport, k, n int) *Report {
	t.Helper()
	sh := Shard{Index: k, Total: n}
	var plan []PlannedSpec
	var ran types.SpecReports
	for _, s := range all {
		p := PlannedSpec{Spec: s}
		if !sh.Runs(s.FullText()) {
			p.Excluded = ExcludedByShard
		} else {
			ran = append(ran, s)
		}
		plan = append(plan, p)
	}
	r := Build(book(t), types.Report{SpecReports: ran}, Run{Target: "http://t", Seed: 3, Plan: plan, Shard: &sh,
		Coverage: map[string]map[int]int{"things.get": {200: k}}})
	return roundTrip(t, r)
}

// roundTrip is what report merge reads: report.json.
func roundTrip(t *testing.T, r Report) *Report {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return &back
}

func TestMergedShardsEqualTheWholeRun(t *testing.T) {
	all := run15()
	whole := Build(book(t), types.Report{SpecReports: all}, Run{Target: "http://t", Seed: 3, Plan: planned(all...),
		Coverage: map[string]map[int]int{"things.get": {200: 6}}})
	for _, n := range []int{2, 3, 5} {
		var parts []*Report
		nonEmpty := 0
		for k := n; k >= 1; k-- { // any order of arguments
			p := shardOf(t, all, k, n)
			parts = append(parts, p)
			if p.Counts.Judged() > 0 {
				nonEmpty++
			}
		}
		if nonEmpty < 2 {
			t.Fatalf("%d shards: the partition put everything in one shard", n)
		}
		m, err := Merge(parts, nil)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		if m.MergedShards != n || m.Shard != nil {
			t.Errorf("merged %d, shard %v", m.MergedShards, m.Shard)
		}
		if m.Verdict != whole.Verdict || m.Counts != whole.Counts || m.Complete != whole.Complete {
			t.Errorf("%d shards: %s %+v, whole run %s %+v", n, m.Verdict, m.Counts, whole.Verdict, whole.Counts)
		}
		want, _ := json.Marshal(whole.Rules)
		got, _ := json.Marshal(m.Rules)
		if string(got) != string(want) {
			t.Errorf("%d shards: rules differ from the whole run's\n got %s\nwant %s", n, got, want)
		}
		if e := m.Coverage.Entries[0]; e.Statuses["200"] != n*(n+1)/2 {
			t.Errorf("coverage summed: %+v", e)
		}
	}
}

func TestMergeRefusesWhatIsNotOneRun(t *testing.T) {
	all := run15()
	base := func() []*Report {
		return []*Report{shardOf(t, all, 1, 3), shardOf(t, all, 2, 3), shardOf(t, all, 3, 3)}
	}
	cases := map[string]struct {
		edit func([]*Report) []*Report
		want string
	}{
		"rulebook":  {func(p []*Report) []*Report { p[1].Rulebook.Digest = "sha256:other"; return p }, "rulebook"},
		"target":    {func(p []*Report) []*Report { p[2].Target = "http://other"; return p }, "target"},
		"seed":      {func(p []*Report) []*Report { p[1].Seed = 4; return p }, "seed"},
		"filter":    {func(p []*Report) []*Report { p[1].LabelFilter = "area:users"; return p }, "label filter"},
		"version":   {func(p []*Report) []*Report { p[1].Version = "v9"; return p }, "version"},
		"proxy":     {func(p []*Report) []*Report { p[1].ViaProxy = true; return p }, "via-proxy"},
		"missing":   {func(p []*Report) []*Report { return p[:2] }, "shard 3/3 missing"},
		"twice":     {func(p []*Report) []*Report { return append(p[:2], shardOf(t, all, 2, 3)) }, "shard 2/3 given twice"},
		"total":     {func(p []*Report) []*Report { p[2] = shardOf(t, all, 3, 4); return p }, "number of shards"},
		"not shard": {func(p []*Report) []*Report { p[0].Shard = nil; return p }, "not the report of a shard"},
		"partition": {func(p []*Report) []*Report { p[0].Shard, p[1].Shard = p[1].Shard, p[0].Shard; return p }, "which shard"},
	}
	for name, c := range cases {
		_, err := Merge(c.edit(base()), []string{"a/report.json", "b/report.json", "c/report.json"})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", name, err, c.want)
		}
	}
	if _, err := Merge(base(), nil); err != nil {
		t.Errorf("the unedited shards: %v", err)
	}
}

func TestMergeOfAnUnfinishedShardIsIncomplete(t *testing.T) {
	all := run15()
	parts := []*Report{shardOf(t, all, 1, 2), shardOf(t, all, 2, 2)}
	parts[1].Verdict, parts[1].Cause = VerdictNotRun, "cannot reach the target"
	m, err := Merge(parts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.Verdict != VerdictIncomplete || !strings.Contains(m.Cause, "shard 2/2: cannot reach") || m.Conformant {
		t.Errorf("%s %q", m.Verdict, m.Cause)
	}
	parts[0].Verdict, parts[0].Cause = VerdictNotRun, "cannot reach the target"
	if m, _ := Merge(parts, nil); m.Verdict != VerdictNotRun {
		t.Errorf("no shard ran: %s", m.Verdict)
	}
}

func TestShardPartitionIsStable(t *testing.T) {
	// Fixed values: a change of the hash would move specs between shards
	// of runs already under way on other machines.
	sh := Shard{Index: 1, Total: 4}
	got := []int{sh.Of("GET /users answers an array"), sh.Of("GET /groups/:id shows a group"), sh.Of("")}
	if fmt.Sprint(got) != "[2 1 2]" {
		t.Errorf("partition changed: %v", got)
	}
	for _, bad := range []string{"", "1", "0/3", "4/3", "a/b", "2/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
	if s, err := ParseShard("2/3"); err != nil || s != (Shard{2, 3}) {
		t.Errorf("ParseShard: %v %v", s, err)
	}
}

func TestReadableFilterShowsRulePatterns(t *testing.T) {
	for in, want := range map[string]string{
		`/^rule:users\.list\..*$/ || /^rule:topics\.list\.1.$/`: "rule:users.list.* || rule:topics.list.1?",
		`(!paid) && !(/^rule:auth\.status\.3$/)`:                "(!paid) && !(rule:auth.status.3)",
		`area:users`:                                            "area:users",
	} {
		if got := ReadableFilter(in); got != want {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}
