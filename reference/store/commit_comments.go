package store

import "time"

// CommitComment is a note on a commit, optionally on one line of one file.
type CommitComment struct {
	ProjectID int
	SHA       string
	Note      string
	Path      string
	Line      *int
	LineType  string // new or old; empty for a comment on the whole commit
	AuthorID  int
	CreatedAt time.Time
}

// AddCommitComment stores a comment; the caller has checked the commit exists.
func (d *Data) AddCommitComment(c *CommitComment) {
	if d.commitComments == nil {
		d.commitComments = map[int][]*CommitComment{}
	}
	c.CreatedAt = d.Now()
	d.commitComments[c.ProjectID] = append(d.commitComments[c.ProjectID], c)
	d.Touch(c)
}

// CommitComments lists the comments on one commit in the order they were made.
func (d *Data) CommitComments(projectID int, sha string) []*CommitComment {
	var out []*CommitComment
	for _, c := range d.commitComments[projectID] {
		if c.SHA == sha {
			out = append(out, c)
		}
	}
	return out
}

// DropCommitComments forgets a deleted project's comments.
func (d *Data) DropCommitComments(projectID int) {
	d.touchKey(tCommitComments, projectID)
	delete(d.commitComments, projectID)
}
