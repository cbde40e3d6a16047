package main

import (
	"testing"

	"github.com/onsi/ginkgo/v2/types"
)

func TestRerunFilterSelectsExactlyTheFailedRules(t *testing.T) {
	for _, tc := range []struct {
		user   string
		labels []string
		want   bool
	}{
		{"", []string{"area:users", "rule:users.list.14"}, true},
		{"", []string{"area:users", "rule:users.list.1"}, false},
		{"", []string{"area:groups", "rule:groups.get.1"}, true},
		{"!paid", []string{"rule:groups.get.1", "paid"}, false},
		{"!paid", []string{"rule:groups.get.1"}, true},
	} {
		expr := rerunFilter(tc.user, []string{"users.list.14", "groups.get.1"})
		f, err := types.ParseLabelFilter(expr)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if got := f(tc.labels); got != tc.want {
			t.Errorf("%q on %v: %v, want %v", expr, tc.labels, got, tc.want)
		}
	}
}
