package api

import (
	"errors"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/registry"
	"github.com/v4cert/v4cert/reference/store"
)

// registryAllows turns the store's registry access rules into the API's answers:
// a project the caller may not see (or a job token's foreign project) is not
// found, a registry they may not use is 401 or 403.
func (c *Ctx) registryAllows(d *store.Data, p *store.Project, need access.Level) error {
	jobProject := 0
	if c.JobToken != nil {
		jobProject = c.JobToken.ProjectID
	}
	switch d.RegistryAccess(c.Caller, jobProject, p, need) {
	case store.ErrRegistryHidden:
		return notFound("Project")
	case store.ErrRegistryDenied:
		return c.denied()
	}
	return nil
}

// RegistryRepositoryJSON is the Registry repository resource.
type RegistryRepositoryJSON struct {
	ID                     int               `json:"id"`
	Name                   string            `json:"name"`
	Path                   string            `json:"path"`
	ProjectID              int               `json:"project_id"`
	Location               string            `json:"location"`
	CreatedAt              string            `json:"created_at"`
	CleanupPolicyStartedAt *string           `json:"cleanup_policy_started_at"`
	Status                 *string           `json:"status"`
	Tags                   []RegistryTagJSON `json:"tags,omitempty"`
	TagsCount              *int              `json:"tags_count,omitempty"`
	Size                   *int64            `json:"size,omitempty"`
}

// RegistryTagJSON is the short form of a Registry tag.
type RegistryTagJSON struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Location string `json:"location"`
}

// RegistryTagDetailJSON is the detail form of a Registry tag.
type RegistryTagDetailJSON struct {
	RegistryTagJSON
	Revision      string `json:"revision"`
	ShortRevision string `json:"short_revision"`
	Digest        string `json:"digest"`
	CreatedAt     string `json:"created_at"`
	TotalSize     int64  `json:"total_size"`
}

// registryHost is the registry address of locations: this server's host,
// which also serves the registry-native endpoints.
func (c *Ctx) registryHost() string {
	b := c.base
	if i := strings.Index(b, "://"); i >= 0 {
		b = b[i+3:]
	}
	return strings.TrimSuffix(b, "/")
}

type repoView struct {
	tags, count, size bool
}

// registryRecord is a repository record copied out of the store with its
// image path, so the registry's content is read after the lock is released.
type registryRecord struct {
	store.RegistryRepository
	Image string
}

func registryRecords(d *store.Data, rs []*store.RegistryRepository) []registryRecord {
	out := make([]registryRecord, len(rs))
	for i, r := range rs {
		out[i] = registryRecord{RegistryRepository: *r, Image: d.RegistryRepositoryPath(r)}
	}
	return out
}

// registryRepository renders a record, reading its tags and size from the
// registry host when the view asks for them.
func (s *Server) registryRepository(c *Ctx, r registryRecord, v repoView) (RegistryRepositoryJSON, error) {
	out := RegistryRepositoryJSON{ID: r.ID, Name: r.Name, Path: r.Image, ProjectID: r.ProjectID,
		Location: c.registryHost() + "/" + r.Image, CreatedAt: ts(r.CreatedAt)}
	if r.Status != "" {
		s := r.Status
		out.Status = &s
	}
	if v.tags || v.count {
		names, err := s.registry.TagNames(c.R.Context(), r.Image)
		if err != nil {
			return out, err
		}
		if v.tags {
			out.Tags = []RegistryTagJSON{}
			for _, n := range names {
				out.Tags = append(out.Tags, c.registryTag(r.Image, n))
			}
		}
		if v.count {
			n := len(names)
			out.TagsCount = &n
		}
	}
	if v.size {
		n, err := s.registry.Size(c.R.Context(), r.Image)
		if err != nil {
			return out, err
		}
		out.Size = &n
	}
	return out, nil
}

// registryRepositoriesPage renders a page of records; a registry read failing
// fails the answer (500) rather than showing a partial one.
func (s *Server) registryRepositoriesPage(c *Ctx, rs []registryRecord, v repoView) (*Page, error) {
	return PaginateWindow(c, len(rs), func(start, end int) ([]RegistryRepositoryJSON, error) {
		out := make([]RegistryRepositoryJSON, 0, end-start)
		for _, r := range rs[start:end] {
			j, err := s.registryRepository(c, r, v)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	})
}

func (c *Ctx) registryTag(image, name string) RegistryTagJSON {
	p := image + ":" + name
	return RegistryTagJSON{Name: name, Path: p, Location: c.registryHost() + "/" + p}
}

// registryTagDetail renders a tag; an image that names no creation time
// shows its repository's.
func (c *Ctx) registryTagDetail(r registryRecord, t registry.Tag) RegistryTagDetailJSON {
	rev := strings.TrimPrefix(t.ConfigDigest, "sha256:")
	created := t.CreatedAt
	if created.IsZero() {
		created = r.CreatedAt
	}
	return RegistryTagDetailJSON{RegistryTagJSON: c.registryTag(r.Image, t.Name), Revision: rev,
		ShortRevision: rev[:min(9, len(rev))], Digest: t.Digest, CreatedAt: ts(created), TotalSize: t.TotalSize}
}

// denied is 401 for an anonymous caller and 403 for a signed-in one (Authentication 8).
func (c *Ctx) denied() error {
	if c.Caller == nil {
		return unauthorized()
	}
	return forbidden()
}

// registryProject resolves :id (404 when hidden) and checks the need.
func (c *Ctx) registryProject(d *store.Data, need access.Level) (*store.Project, error) {
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, err
	}
	return p, c.registryAllows(d, p, need)
}

// registryRepositoryOf finds :repository_id in p; another project's repository is not found.
func (c *Ctx) registryRepositoryOf(d *store.Data, p *store.Project) (*store.RegistryRepository, error) {
	id, err := strconv.Atoi(c.R.PathValue("repository_id"))
	if err != nil {
		return nil, notFound("Repository")
	}
	r := d.RegistryRepository(id)
	if r == nil || r.ProjectID != p.ID {
		return nil, notFound("Repository")
	}
	return r, nil
}

// registryRecordIn resolves :id and :repository_id for an action needing
// need, each step answering 404 or 403 as the spec says, and copies the record.
func (s *Server) registryRecordIn(c *Ctx, need access.Level) (registryRecord, error) {
	var rec registryRecord
	err := s.store.Read(func(d *store.Data) error {
		p, err := c.registryProject(d, need)
		if err != nil {
			return err
		}
		r, err := c.registryRepositoryOf(d, p)
		if err != nil {
			return err
		}
		rec = registryRecords(d, []*store.RegistryRepository{r})[0]
		return nil
	})
	return rec, err
}

// reapShown completes the scheduled deletes an answer shows (delete.1): the
// records go under the lock, their content after it. It is the one write a
// read makes, and only when it shows a scheduled repository: "shown once,
// then gone" needs the read to leave a mark, and keeps the asynchronous
// delete deterministic (no timer). A failed commit fails the answer (503).
func (s *Server) reapShown(c *Ctx, recs ...registryRecord) error {
	var ids []int
	for _, r := range recs {
		if r.Status == "delete_scheduled" {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var images []string
	err := s.store.Write(func(d *store.Data) error {
		var rs []*store.RegistryRepository
		for _, id := range ids {
			if r := d.RegistryRepository(id); r != nil {
				rs = append(rs, r)
			}
		}
		images = d.ReapRegistryRepositories(rs...)
		return nil
	})
	// Whatever left the records leaves the registry too, stored or not.
	s.removeRegistryContent(c, images)
	return err
}

// removeRegistryContent removes the registry host's content of images
// (their repositories were deleted, or their project).
func (s *Server) removeRegistryContent(c *Ctx, images []string) {
	for _, image := range images {
		s.registry.RemoveRepository(c.R.Context(), image)
	}
}

// registryImagesOf lists the image paths of projects' repositories, before
// the projects go.
func registryImagesOf(d *store.Data, ps ...*store.Project) []string {
	var images []string
	for _, p := range ps {
		for _, r := range d.RegistryRepositories(p.ID) {
			images = append(images, d.RegistryRepositoryPath(r))
		}
	}
	return images
}

// editProjectRegistry implements PUT /projects/:id/ (rules registry.visibility.1-4).
func (s *Server) editProjectRegistry(c *Ctx) error { return s.editProject(c) }

// listRegistryRepositories implements GET /projects/:id/registry/repositories
// (rules registry.repositories.list.*, registry.visibility.5-7). A scheduled
// repository is shown once with its status, then removed (delete.1).
func (s *Server) listRegistryRepositories(c *Ctx) error {
	in := c.In()
	v := repoView{tags: in.BoolOr("tags", false), count: in.BoolOr("tags_count", false)}
	if err := in.Err(); err != nil {
		return err
	}
	return s.listRegistryRecords(c, v, func(d *store.Data) ([]*store.RegistryRepository, error) {
		p, err := c.registryProject(d, store.RegistryRead)
		if err != nil {
			return nil, err
		}
		return d.RegistryRepositories(p.ID), nil
	})
}

// listGroupRegistryRepositories implements GET /groups/:id/registry/repositories
// (rules registry.repositories.group-list.*): no tags, no tags_count.
func (s *Server) listGroupRegistryRepositories(c *Ctx) error {
	return s.listRegistryRecords(c, repoView{}, func(d *store.Data) ([]*store.RegistryRepository, error) {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return nil, err
		}
		var rs []*store.RegistryRepository
		for _, p := range d.GroupProjects(g, true) {
			if c.registryAllows(d, p, store.RegistryRead) == nil {
				rs = append(rs, d.RegistryRepositories(p.ID)...)
			}
		}
		return rs, nil
	})
}

// listRegistryRecords answers a page of the repositories find returns under
// the store's lock, read from the registry after it; the scheduled deletes
// the answer shows complete (delete.1).
func (s *Server) listRegistryRecords(c *Ctx, v repoView, find func(d *store.Data) ([]*store.RegistryRepository, error)) error {
	var recs []registryRecord
	err := s.store.Read(func(d *store.Data) error {
		rs, err := find(d)
		if err != nil {
			return err
		}
		recs = registryRecords(d, rs)
		return nil
	})
	if err != nil {
		return err
	}
	page, err := s.registryRepositoriesPage(c, recs, v)
	if err != nil {
		return err
	}
	if err := s.reapShown(c, recs...); err != nil {
		return err
	}
	return c.JSONPage(page)
}

// getRegistryRepository implements GET /registry/repositories/:id (rules
// registry.repositories.get.*).
func (s *Server) getRegistryRepository(c *Ctx) error {
	in := c.In()
	v := repoView{tags: in.BoolOr("tags", false), count: in.BoolOr("tags_count", false), size: in.BoolOr("size", false)}
	if err := in.Err(); err != nil {
		return err
	}
	var rec registryRecord
	err := s.store.Read(func(d *store.Data) error {
		id, err := strconv.Atoi(c.R.PathValue("id"))
		if err != nil {
			return notFound("Repository")
		}
		r := d.RegistryRepository(id)
		if r == nil {
			return notFound("Repository")
		}
		p := d.Project(r.ProjectID)
		if p == nil {
			return notFound("Repository")
		}
		// The platform finds the repository by id alone and then runs
		// authorize!(:read_container_image, repository): a caller who may
		// not see the project gets 403, as one below Reporter on a private
		// registry does
		// (gitlabhq/gitlabhq lib/api/container_repositories.rb @7f0fd430). Authentication 8 lets a hidden resource answer 404
		// but does not require it (registry.repositories.get.2, class 2).
		if !d.CanSeeProject(c.Caller, p) {
			return forbidden()
		}
		if err := c.registryAllows(d, p, store.RegistryRead); err != nil {
			return err
		}
		rec = registryRecords(d, []*store.RegistryRepository{r})[0]
		return nil
	})
	if err != nil {
		return err
	}
	out, err := s.registryRepository(c, rec, v)
	if err != nil {
		return err
	}
	if err := s.reapShown(c, rec); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// deleteRegistryRepository implements DELETE /projects/:id/registry/repositories/:repository_id
// (rules registry.repositories.delete.*): 202, status delete_scheduled until
// the next read shows it, then gone with its content.
func (s *Server) deleteRegistryRepository(c *Ctx) error {
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.registryProject(d, store.RegistryAdmin)
		if err != nil {
			return err
		}
		r, err := c.registryRepositoryOf(d, p)
		if err != nil {
			return err
		}
		d.ScheduleRegistryRepositoryDelete(r)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}

// listRegistryTags implements GET .../registry/repositories/:repository_id/tags
// (rules registry.tags.list.*): the registry's tags by name, offset or keyset on name.
func (s *Server) listRegistryTags(c *Ctx) error {
	rec, err := s.registryRecordIn(c, store.RegistryRead)
	if err != nil {
		return err
	}
	names, err := s.registry.TagNames(c.R.Context(), rec.Image)
	if err != nil {
		return err
	}
	ks := &Keyset[string]{
		Orders: map[string]KeysetOrder[string]{"name": {
			Sorted: func() []string { return names },
			Key:    func(n string) Cursor { return Cursor{V: n} },
		}},
		Sorts: []string{"asc", "desc"}, DefaultOrder: "name", DefaultSort: "asc",
	}
	page, err := Paginate(c, names, ks, func(n string) RegistryTagJSON { return c.registryTag(rec.Image, n) })
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// registryTagIn resolves :id, :repository_id and :tag_name in the registry
// for an action needing need (404 when the tag is unknown).
func (s *Server) registryTagIn(c *Ctx, need access.Level) (registryRecord, registry.Tag, error) {
	rec, err := s.registryRecordIn(c, need)
	if err != nil {
		return rec, registry.Tag{}, err
	}
	t, err := s.registry.Tag(c.R.Context(), rec.Image, c.R.PathValue("tag_name"))
	if errors.Is(err, registry.ErrNotFound) {
		return rec, t, notFound("Tag")
	}
	return rec, t, err
}

// getRegistryTag implements GET .../tags/:tag_name (rules registry.tags.get.*).
func (s *Server) getRegistryTag(c *Ctx) error {
	rec, t, err := s.registryTagIn(c, store.RegistryRead)
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, c.registryTagDetail(rec, t))
}

// deleteRegistryTag implements DELETE .../tags/:tag_name (rules
// registry.tags.delete.*): the tag goes, its blobs stay.
func (s *Server) deleteRegistryTag(c *Ctx) error {
	rec, err := s.registryRecordIn(c, store.RegistryDelete)
	if err != nil {
		return err
	}
	switch err := s.registry.Untag(c.R.Context(), rec.Image, c.R.PathValue("tag_name")); {
	case errors.Is(err, registry.ErrNotFound):
		return notFound("Tag")
	case err != nil:
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"message": "200 OK"})
}

// untrustedRegexp reads a regex parameter; the platform validates it as RE2,
// which Go's regexp implements, and matches it against whole tag names.
// Patterns longer than maxUntrustedRegexp are refused before compiling: tag
// names are at most 128 characters, and compiling a megabyte of pattern
// costs seconds of CPU (the fuzz target of every endpoint found it).
func (c *Ctx) untrustedRegexp(name string) (*regexp.Regexp, error) {
	src := c.In().String(name)
	if err := c.In().Err(); err != nil || src == nil {
		return nil, err
	}
	if len(*src) > maxUntrustedRegexp {
		return nil, invalidParam(name)
	}
	re, err := regexp.Compile(`^(?:` + *src + `)$`)
	if err != nil {
		return nil, invalidParam(name)
	}
	return re, nil
}

// maxUntrustedRegexp bounds a tag-name pattern, in bytes.
const maxUntrustedRegexp = 1024

// olderThan reads a human-readable span such as 1h, 1d, 2weeks, 1month.
var olderThanRe = regexp.MustCompile(`^\s*(\d+)\s*([a-z]+)\s*$`)

var olderThanUnits = map[string]time.Duration{
	"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
	"m": time.Minute, "min": time.Minute, "mins": time.Minute, "minute": time.Minute, "minutes": time.Minute,
	"h": time.Hour, "hr": time.Hour, "hrs": time.Hour, "hour": time.Hour, "hours": time.Hour,
	"d": 24 * time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour,
	"w": 7 * 24 * time.Hour, "week": 7 * 24 * time.Hour, "weeks": 7 * 24 * time.Hour,
	"month": 30 * 24 * time.Hour, "months": 30 * 24 * time.Hour, "mo": 30 * 24 * time.Hour,
	"y": 365 * 24 * time.Hour, "year": 365 * 24 * time.Hour, "years": 365 * 24 * time.Hour,
}

func parseOlderThan(s string) (time.Duration, bool) {
	m := olderThanRe.FindStringSubmatch(strings.ToLower(s))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	unit, ok := olderThanUnits[m[2]]
	if err != nil || !ok {
		return 0, false
	}
	return time.Duration(n) * unit, true
}

// bulkDeleteRegistryTags implements DELETE .../registry/repositories/:repository_id/tags
// (rules registry.bulk-delete.*). The deletion completes before the 202, so
// the outcome is deterministic; a second call within the hour answers 400 as
// the platform's lease does.
func (s *Server) bulkDeleteRegistryTags(c *Ctx) error {
	// One of name_regex_delete and its deprecated alias name_regex is given
	// (the rulebook's required_unless).
	var crit store.BulkDeleteTags
	var err error
	name := "name_regex_delete"
	if !c.P.Has(name) {
		name = "name_regex"
	}
	if crit.Delete, err = c.untrustedRegexp(name); err != nil {
		return err
	}
	if name == "name_regex_delete" && c.P.Has("name_regex") {
		if _, err := c.untrustedRegexp("name_regex"); err != nil {
			return err
		}
	}
	if crit.Keep, err = c.untrustedRegexp("name_regex_keep"); err != nil {
		return err
	}
	in := c.In()
	crit.KeepN = in.Int("keep_n")
	older := in.String("older_than")
	if err := in.Err(); err != nil {
		return err
	}
	if older != nil {
		span, ok := parseOlderThan(*older)
		if !ok {
			return invalidParam("older_than")
		}
		crit.OlderThan = &span
	}
	rec, err := s.registryRecordIn(c, store.RegistryAdmin)
	if err != nil {
		return err
	}
	// The tags and their images' ages come from the registry before the
	// lease is taken, so a registry that fails leaves the lease free.
	var tags []store.TagAge
	names, err := s.registry.TagNames(c.R.Context(), rec.Image)
	if err != nil {
		return err
	}
	for _, n := range names {
		t, err := s.registry.Tag(c.R.Context(), rec.Image, n)
		if errors.Is(err, registry.ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return err
		}
		created := t.CreatedAt
		if created.IsZero() {
			created = rec.CreatedAt
		}
		tags = append(tags, store.TagAge{Name: n, CreatedAt: created})
	}
	var now time.Time
	err = s.store.Write(func(d *store.Data) error {
		r := d.RegistryRepository(rec.ID)
		if r == nil {
			return notFound("Repository")
		}
		now = d.Now()
		return d.StartBulkDelete(r)
	})
	if errors.Is(err, store.ErrBulkDeleteTooSoon) {
		return errorf(http.StatusBadRequest, "%s", err.Error())
	}
	if err != nil {
		return err
	}
	for _, n := range crit.Select(tags, now) {
		if err := s.registry.Untag(c.R.Context(), rec.Image, n); err != nil && !errors.Is(err, registry.ErrNotFound) {
			return err
		}
	}
	return c.JSON(http.StatusAccepted, map[string]string{"message": "202 Accepted"})
}
