package store

import (
	"testing"
	"time"
)

// TestIssueDueDate: the due_date filter's words against a fixed today, as
// the platform's IssuesFinder reads them (a Wednesday, so that the week runs
// from the Monday before to the Sunday after).
func TestIssueDueDate(t *testing.T) {
	today := time.Date(2026, 3, 18, 15, 4, 0, 0, time.UTC) // Wednesday
	day := func(y int, m time.Month, d int) *time.Time {
		t := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		return &t
	}
	for _, c := range []struct {
		due  *time.Time
		want string
		ok   bool
	}{
		{nil, "0", true}, {day(2026, 3, 18), "0", false},
		{nil, "any", false}, {day(2020, 1, 1), "any", true},
		{day(2026, 3, 18), "today", true}, {day(2026, 3, 19), "today", false},
		{day(2026, 3, 19), "tomorrow", true}, {day(2026, 3, 18), "tomorrow", false},
		{day(2026, 3, 17), "overdue", true}, {day(2026, 3, 18), "overdue", false}, {nil, "overdue", false},
		{day(2026, 3, 16), "week", true}, {day(2026, 3, 22), "week", true},
		{day(2026, 3, 15), "week", false}, {day(2026, 3, 23), "week", false},
		{day(2026, 3, 1), "month", true}, {day(2026, 3, 31), "month", true}, {day(2026, 4, 1), "month", false},
		{day(2026, 3, 4), "next_month_and_previous_two_weeks", true}, {day(2026, 3, 3), "next_month_and_previous_two_weeks", false},
		{day(2026, 4, 30), "next_month_and_previous_two_weeks", true}, {day(2026, 5, 1), "next_month_and_previous_two_weeks", false},
		{nil, "", true}, {day(2026, 3, 18), "", true},
	} {
		if got := dueDateMatch(c.due, c.want, today); got != c.ok {
			t.Errorf("due %v, due_date=%q: got %v, want %v", c.due, c.want, got, c.ok)
		}
	}
}

// TestIssueOrderNullsLast: orders on an attribute some issues lack put those
// last in both directions; ties go by id in the order's direction.
func TestIssueOrderNullsLast(t *testing.T) {
	d := &Data{}
	mk := func(id int, due *time.Time) *Issue {
		return &Issue{ID: id, IID: id, CreatedAt: time.Unix(int64(id), 0), DueDate: due}
	}
	t1, t2 := time.Unix(100, 0), time.Unix(200, 0)
	ids := func(is []*Issue) []int {
		var out []int
		for _, i := range is {
			out = append(out, i.ID)
		}
		return out
	}
	for _, c := range []struct {
		sort string
		want []int
	}{{"asc", []int{2, 4, 1, 3}}, {"desc", []int{4, 2, 3, 1}}} {
		is := []*Issue{mk(1, nil), mk(2, &t1), mk(3, nil), mk(4, &t2)}
		d.sortIssues(is, "due_date", c.sort)
		if got := ids(is); !equalInts(got, c.want) {
			t.Errorf("due_date %s: got %v, want %v", c.sort, got, c.want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
