package specs

import (
	"regexp"
	"testing"
)

// platformFile is a path into the platform's own tree (its Rails app, its
// API, its paid tier, its schema) as the rulebook cites it.
var platformFile = regexp.MustCompile(`(?:^|[\s(;,])(?:ee/)?(?:lib|app|db)/[\w./-]+\.(?:rb|sql|yml)`)

// platformRepo names the platform's repository or one of its mirrors.
var platformRepo = regexp.MustCompile(`gitlabhq/gitlabhq|gitlab-org/gitlab\b|skratsch-solutions/gitlabhq|pavankalisetti009/gitlab|shaik1002/biggitlabbomb|diffblue/gitlab`)

var pinnedCommit = regexp.MustCompile(`@[0-9a-f]{7,40}\b`)

// TestRulebookPlatformCitationsPinned: a rule's platform.source that cites
// a file of the platform names the commit it was read at (docs/rulebook.md,
// "source"), so a reader can open the same text. A branch name or "the 2025
// version" does not say which text was read; the platform's files move and
// change under the same path.
func TestRulebookPlatformCitationsPinned(t *testing.T) {
	for _, r := range Default().Rules {
		p := r.Platform
		if p == nil || !platformRepo.MatchString(p.Source) || !platformFile.MatchString(p.Source) {
			continue
		}
		if !pinnedCommit.MatchString(p.Source) {
			t.Errorf("%s: platform.source cites the platform's source without a commit: %s", r.ID, p.Source)
		}
	}
}
