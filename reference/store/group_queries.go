package store

import (
	"slices"
	"strings"
	"time"
	"unicode"
)

// GroupProjects returns the projects that live in g, and with subgroups also
// those of every group below it, in id order: read from the projects kept by
// namespace, never from every project (issue 21). The slice is the caller's.
func (d *Data) GroupProjects(g *Group, subgroups bool) []*Project {
	byNS := d.nsIndex()
	if !subgroups {
		return slices.Clone(byNS[g.ID])
	}
	var out []*Project
	for _, sg := range d.groups {
		if sg.ID == g.ID || d.IsAncestor(g, sg) {
			out = append(out, byNS[sg.ID]...)
		}
	}
	sortByID(out, func(p *Project) int { return p.ID })
	return out
}

// SharedProjects returns the projects shared into g with POST
// /projects/:id/share (live links only), in id order. It reads each link
// once, and the clock once.
func (d *Data) SharedProjects(g *Group) []*Project {
	var out []*Project
	now := d.Now()
	seen := map[int]bool{}
	for _, l := range d.links {
		if l.SourceType != SourceProject || l.GroupID != g.ID || seen[l.SourceID] {
			continue
		}
		if l.ExpiresAt != nil && !now.Before(l.ExpiresAt.Add(24*time.Hour)) {
			continue
		}
		if p := d.projects[l.SourceID]; p != nil {
			seen[p.ID] = true
			out = append(out, p)
		}
	}
	sortByID(out, func(p *Project) int { return p.ID })
	return out
}

// StarProject records that u starred p; it reports false when u already had.
func (d *Data) StarProject(p *Project, u *User) bool {
	if p.Starrers == nil {
		p.Starrers = map[int]bool{}
	}
	if p.Starrers[u.ID] {
		return false
	}
	d.Touch(p)
	p.Starrers[u.ID] = true
	p.StarCount++
	return true
}

// StarredBy reports whether u starred p.
func (p *Project) StarredBy(u *User) bool { return u != nil && p.Starrers[u.ID] }

// GroupStorage is the repository storage every group of the reference lives on.
const GroupStorage = "default"

// Similarity scores how close text is to search the way the platform's
// similarity ordering does (PostgreSQL pg_trgm's similarity): the share of
// trigrams the two have in common, from 0 (nothing) to 1 (the same words).
func Similarity(text, search string) float64 {
	a, b := trigrams(text), trigrams(search)
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	common := 0
	for t := range a {
		if b[t] {
			common++
		}
	}
	return float64(common) / float64(len(a)+len(b)-common)
}

// trigrams splits s into lower-cased words of letters and digits, pads each
// with two spaces in front and one behind, and collects its three-rune windows.
func trigrams(s string) map[string]bool {
	out := map[string]bool{}
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		r := []rune("  " + w + " ")
		for i := 0; i+3 <= len(r); i++ {
			out[string(r[i:i+3])] = true
		}
	}
	return out
}
