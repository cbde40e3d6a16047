package api

import (
	"net/http"
	"strings"

	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// BranchJSON is the platform's branch resource.
type BranchJSON struct {
	Name               string     `json:"name"`
	Merged             bool       `json:"merged"`
	Protected          bool       `json:"protected"`
	Default            bool       `json:"default"`
	DevelopersCanPush  bool       `json:"developers_can_push"`
	DevelopersCanMerge bool       `json:"developers_can_merge"`
	CanPush            bool       `json:"can_push"`
	WebURL             string     `json:"web_url"`
	Commit             CommitJSON `json:"commit"`
}

// TagJSON is the platform's tag resource.
type TagJSON struct {
	Name      string     `json:"name"`
	Message   string     `json:"message"`
	Target    string     `json:"target"`
	Commit    CommitJSON `json:"commit"`
	Release   any        `json:"release"`
	Protected bool       `json:"protected"`
	CreatedAt *string    `json:"created_at"`
}

func (s *Server) branchJSON(c *Ctx, rc *repoCtx, ref repository.Ref, canPush bool) (BranchJSON, error) {
	cm, err := rc.Repo.Commit(c.R.Context(), ref.Commit)
	if err != nil {
		return BranchJSON{}, gitError(err, "Branch")
	}
	// The reference protects no branch, so Developers may push everywhere.
	return BranchJSON{Name: ref.Name, Default: ref.Name == rc.DefaultBranch, DevelopersCanPush: true,
		DevelopersCanMerge: true, CanPush: canPush, WebURL: rc.webBase + "/-/tree/" + ref.Name,
		Commit: rc.commitJSON(cm, true)}, nil
}

func (s *Server) tagJSON(c *Ctx, rc *repoCtx, ref repository.Ref) (TagJSON, error) {
	cm, err := rc.Repo.Commit(c.R.Context(), ref.Commit)
	if err != nil {
		return TagJSON{}, gitError(err, "Tag")
	}
	t := TagJSON{Name: ref.Name, Message: strings.TrimRight(ref.Message, "\n"), Target: string(ref.Target),
		Commit: rc.commitJSON(cm, true)}
	if ref.Tagger != nil {
		at := gitTime(ref.Tagger.When)
		t.CreatedAt = &at
	}
	return t, nil
}

// canPush reports whether the caller may write to the repository.
func (s *Server) canPush(c *Ctx) bool {
	_, err := s.repoOf(c, true)
	return err == nil
}

// createBranch implements the platform's POST /projects/:id/repository/branches (provisioning).
func (s *Server) createBranch(c *Ctx) error {
	in := c.In()
	name, ref := in.StringOr("branch", ""), in.StringOr("ref", "")
	if err := in.Err(); err != nil {
		return err
	}
	rc, err := s.repoOf(c, true)
	if err != nil {
		return err
	}
	target, err := s.repos.CreateBranch(c.R.Context(), &rc.Target, name, ref)
	if err != nil {
		return workflowError(err)
	}
	b, err := s.branchJSON(c, rc, repository.Ref{Name: name, Target: target, Commit: target}, true)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, b)
}

// listBranches implements the platform's GET /projects/:id/repository/branches (provisioning).
func (s *Server) listBranches(c *Ctx) error {
	search := c.In().StringOr("search", "")
	if err := c.In().Err(); err != nil {
		return err
	}
	rc, err := s.repoOf(c, false)
	if err != nil {
		return err
	}
	refs, err := rc.Repo.Branches(c.R.Context())
	if err != nil {
		return gitError(err, "Branch")
	}
	push := s.canPush(c)
	var out []BranchJSON
	for _, ref := range refs {
		if search != "" && !strings.Contains(strings.ToLower(ref.Name), strings.ToLower(search)) {
			continue
		}
		b, err := s.branchJSON(c, rc, ref, push)
		if err != nil {
			return err
		}
		out = append(out, b)
	}
	page, err := Paginate(c, out, nil, func(b BranchJSON) BranchJSON { return b })
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// getBranch implements the platform's GET /projects/:id/repository/branches/:branch (provisioning).
func (s *Server) getBranch(c *Ctx) error {
	rc, err := s.repoOf(c, false)
	if err != nil {
		return err
	}
	name := c.R.PathValue("branch")
	oid, err := rc.Repo.Branch(c.R.Context(), name)
	if err != nil {
		return gitError(err, "Branch")
	}
	b, err := s.branchJSON(c, rc, repository.Ref{Name: name, Target: oid, Commit: oid}, s.canPush(c))
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, b)
}

// createTag implements the platform's POST /projects/:id/repository/tags
// (provisioning): lightweight, or annotated with message.
func (s *Server) createTag(c *Ctx) error {
	in := c.In()
	name, ref, msg := in.StringOr("tag_name", ""), in.StringOr("ref", ""), in.StringOr("message", "")
	if err := in.Err(); err != nil {
		return err
	}
	rc, err := s.repoOf(c, true)
	if err != nil {
		return err
	}
	if err := s.repos.CreateTag(c.R.Context(), &rc.Target, name, ref, msg); err != nil {
		return workflowError(err)
	}
	return s.answerTag(c, rc, name, http.StatusCreated)
}

func (s *Server) answerTag(c *Ctx, rc *repoCtx, name string, status int) error {
	refs, err := rc.Repo.Tags(c.R.Context())
	if err != nil {
		return gitError(err, "Tag")
	}
	for _, ref := range refs {
		if ref.Name == name {
			t, err := s.tagJSON(c, rc, ref)
			if err != nil {
				return err
			}
			return c.JSON(status, t)
		}
	}
	return notFound("Tag")
}

// listTags implements the platform's GET /projects/:id/repository/tags (provisioning).
func (s *Server) listTags(c *Ctx) error {
	rc, err := s.repoOf(c, false)
	if err != nil {
		return err
	}
	refs, err := rc.Repo.Tags(c.R.Context())
	if err != nil {
		return gitError(err, "Tag")
	}
	out := []TagJSON{}
	for _, ref := range refs {
		t, err := s.tagJSON(c, rc, ref)
		if err != nil {
			return err
		}
		out = append(out, t)
	}
	page, err := Paginate(c, out, nil, func(t TagJSON) TagJSON { return t })
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// getTag implements the platform's GET /projects/:id/repository/tags/:tag_name (provisioning).
func (s *Server) getTag(c *Ctx) error {
	rc, err := s.repoOf(c, false)
	if err != nil {
		return err
	}
	return s.answerTag(c, rc, c.R.PathValue("tag_name"), http.StatusOK)
}

// LFSObjectJSON describes a stored large-file object and the pointer to commit for it.
type LFSObjectJSON struct {
	Oid     string `json:"oid"`
	Size    int64  `json:"size"`
	Pointer string `json:"pointer"`
}

// createLFSObject implements POST /projects/:id/repository/lfs_objects, the
// reference's own provisioning route for large-file objects (the platform
// receives them through the git LFS batch API, outside /api/v4): content
// (text, or base64 with encoding=base64) is stored and the pointer file to
// commit in its place is returned.
func (s *Server) createLFSObject(c *Ctx) error {
	in := c.In()
	content := in.StringOr("content", "")
	encoding := in.String("encoding")
	if err := in.Err(); err != nil {
		return err
	}
	rc, err := s.repoOf(c, true)
	if err != nil {
		return err
	}
	b, ok := decodeContent(content, encoding)
	if !ok {
		return invalidParam("content")
	}
	p, err := rc.Repo.StoreLFS(b)
	if err != nil {
		return gitError(err, "Project")
	}
	return c.JSON(http.StatusCreated, LFSObjectJSON{Oid: p.Oid, Size: p.Size, Pointer: string(p.Pointer())})
}
