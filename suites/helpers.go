package suites

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

func upper(s string) string { return strings.ToUpper(s) }

// commonPrefix returns the longest common prefix of names, for a search that
// finds exactly this spec's fixtures.
func commonPrefix(names ...string) string {
	if len(names) == 0 {
		return ""
	}
	p := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

func sortedDesc(ids []int) []int {
	out := append([]int(nil), ids...)
	sort.Sort(sort.Reverse(sort.IntSlice(out)))
	return out
}

func sortedAsc(ids []int) []int {
	out := append([]int(nil), ids...)
	sort.Ints(out)
	return out
}

func sortedStrings(vals []string, desc bool) []string {
	out := append([]string(nil), vals...)
	if desc {
		sort.Sort(sort.Reverse(sort.StringSlice(out)))
	} else {
		sort.Strings(out)
	}
	return out
}

var linkRe = regexp.MustCompile(`<([^>]+)>;\s*rel="([a-z]+)"`)

// linkRel returns the URL of one rel of the Link header, or "".
func linkRel(r *Response, rel string) string {
	for _, m := range linkRe.FindAllStringSubmatch(r.Header.Get("Link"), -1) {
		if m[2] == rel {
			return m[1]
		}
	}
	return ""
}

// linkRels lists the rels present in the Link header.
func linkRels(r *Response) []string {
	var out []string
	for _, m := range linkRe.FindAllStringSubmatch(r.Header.Get("Link"), -1) {
		out = append(out, m[2])
	}
	return out
}

// stripBase turns a link of the target into a path for Client.Do's "!" form.
func stripBase(link string) string {
	return strings.TrimPrefix(link, api.Base)
}

func userNames(ctx context.Context, ids []int) []string {
	var out []string
	for _, id := range ids {
		out = append(out, api.Get(ctx, fmt.Sprintf("/users/%d", id)).Get("username").String())
	}
	return out
}
