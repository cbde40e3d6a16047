package api

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"v4cert/reference/access"
	"v4cert/reference/store"
)

// What a caller does with a project's registry, with the platform's permission
// names: read_container_image, create/destroy_container_image (Developer) and
// admin_container_image (Maintainer).
const (
	registryRead    = access.None
	registryDestroy = access.Developer
	registryAdmin   = access.Maintainer
)

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

func (c *Ctx) registryRepository(d *store.Data, r *store.RegistryRepository, v repoView) RegistryRepositoryJSON {
	path := d.RegistryRepositoryPath(r)
	out := RegistryRepositoryJSON{ID: r.ID, Name: r.Name, Path: path, ProjectID: r.ProjectID,
		Location: c.registryHost() + "/" + path, CreatedAt: ts(r.CreatedAt)}
	if r.Status != "" {
		s := r.Status
		out.Status = &s
	}
	if v.tags {
		out.Tags = []RegistryTagJSON{}
		for _, t := range r.RegistryTagsByName() {
			out.Tags = append(out.Tags, c.registryTag(path, t))
		}
	}
	if v.count {
		n := len(r.Tags)
		out.TagsCount = &n
	}
	if v.size {
		n := d.RegistryRepositorySize(r)
		out.Size = &n
	}
	return out
}

func (c *Ctx) registryTag(repoPath string, t *store.RegistryTag) RegistryTagJSON {
	p := repoPath + ":" + t.Name
	return RegistryTagJSON{Name: t.Name, Path: p, Location: c.registryHost() + "/" + p}
}

func (c *Ctx) registryTagDetail(repoPath string, t *store.RegistryTag) RegistryTagDetailJSON {
	rev := strings.TrimPrefix(t.ConfigDigest, "sha256:")
	return RegistryTagDetailJSON{RegistryTagJSON: c.registryTag(repoPath, t), Revision: rev,
		ShortRevision: rev[:min(9, len(rev))], Digest: t.Digest, CreatedAt: ts(t.CreatedAt), TotalSize: t.TotalSize}
}

// denied is 401 for an anonymous caller and 403 for a signed-in one (Authentication 8).
func (c *Ctx) denied() error {
	if c.Caller == nil {
		return unauthorized()
	}
	return forbidden()
}

// registryAllows applies the visibility values: disabled turns the registry
// off for everyone, private needs Reporter to read, and enabled lets everyone
// who sees the project read. A job token reaches only its own project's
// registry (Authentication 2).
func (c *Ctx) registryAllows(d *store.Data, p *store.Project, need access.Level) error {
	if c.JobToken != nil && c.JobToken.ProjectID != p.ID {
		return notFound("Project")
	}
	if p.ContainerRegistryAccessLevel == "disabled" {
		return c.denied()
	}
	if need == registryRead && p.ContainerRegistryAccessLevel == "private" {
		need = access.Reporter
	}
	if need > access.None && c.projectRole(d, p) < need {
		return c.denied()
	}
	return nil
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
	return s.store.Write(func(d *store.Data) error {
		p, err := c.registryProject(d, registryRead)
		if err != nil {
			return err
		}
		rs := d.RegistryRepositories(p.ID)
		err = Paginate(c, rs, nil, func(r *store.RegistryRepository) RegistryRepositoryJSON {
			return c.registryRepository(d, r, v)
		})
		d.ReapRegistryRepositories(rs...)
		return err
	})
}

// listGroupRegistryRepositories implements GET /groups/:id/registry/repositories
// (rules registry.repositories.group-list.*): no tags, no tags_count.
func (s *Server) listGroupRegistryRepositories(c *Ctx) error {
	return s.store.Write(func(d *store.Data) error {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return err
		}
		var rs []*store.RegistryRepository
		for _, p := range d.GroupProjects(g, true) {
			if !d.CanSeeProject(c.Caller, p) || c.registryAllows(d, p, registryRead) != nil {
				continue
			}
			rs = append(rs, d.RegistryRepositories(p.ID)...)
		}
		err = Paginate(c, rs, nil, func(r *store.RegistryRepository) RegistryRepositoryJSON {
			return c.registryRepository(d, r, repoView{})
		})
		d.ReapRegistryRepositories(rs...)
		return err
	})
}

// getRegistryRepository implements GET /registry/repositories/:id (rules
// registry.repositories.get.*).
func (s *Server) getRegistryRepository(c *Ctx) error {
	in := c.In()
	v := repoView{tags: in.BoolOr("tags", false), count: in.BoolOr("tags_count", false), size: in.BoolOr("size", false)}
	if err := in.Err(); err != nil {
		return err
	}
	return s.store.Write(func(d *store.Data) error {
		id, err := strconv.Atoi(c.R.PathValue("id"))
		if err != nil {
			return notFound("Repository")
		}
		r := d.RegistryRepository(id)
		if r == nil {
			return notFound("Repository")
		}
		p := d.Project(r.ProjectID)
		if p == nil || !d.CanSeeProject(c.Caller, p) {
			return notFound("Repository")
		}
		if err := c.registryAllows(d, p, registryRead); err != nil {
			return err
		}
		err = c.JSON(http.StatusOK, c.registryRepository(d, r, v))
		d.ReapRegistryRepositories(r)
		return err
	})
}

// deleteRegistryRepository implements DELETE /projects/:id/registry/repositories/:repository_id
// (rules registry.repositories.delete.*): 202, status delete_scheduled until
// the next read shows it, then gone.
func (s *Server) deleteRegistryRepository(c *Ctx) error {
	return s.store.Write(func(d *store.Data) error {
		p, err := c.registryProject(d, registryAdmin)
		if err != nil {
			return err
		}
		r, err := c.registryRepositoryOf(d, p)
		if err != nil {
			return err
		}
		d.ScheduleRegistryRepositoryDelete(r)
		return c.JSON(http.StatusAccepted, map[string]string{"message": "202 Accepted"})
	})
}

// listRegistryTags implements GET .../registry/repositories/:repository_id/tags
// (rules registry.tags.list.*): by name, offset or keyset on name.
func (s *Server) listRegistryTags(c *Ctx) error {
	return s.store.Read(func(d *store.Data) error {
		p, err := c.registryProject(d, registryRead)
		if err != nil {
			return err
		}
		r, err := c.registryRepositoryOf(d, p)
		if err != nil {
			return err
		}
		tags := r.RegistryTagsByName()
		path := d.RegistryRepositoryPath(r)
		ks := &Keyset[*store.RegistryTag]{
			Orders: map[string]KeysetOrder[*store.RegistryTag]{"name": {
				Sorted: func() []*store.RegistryTag { return tags },
				Key:    func(t *store.RegistryTag) Cursor { return Cursor{V: t.Name} },
			}},
			Sorts: []string{"asc", "desc"}, DefaultOrder: "name", DefaultSort: "asc",
		}
		return Paginate(c, tags, ks, func(t *store.RegistryTag) RegistryTagJSON { return c.registryTag(path, t) })
	})
}

// registryTagOf resolves :tag_name of the repository (404 when unknown).
func (c *Ctx) registryTagOf(r *store.RegistryRepository) (*store.RegistryTag, error) {
	t := r.Tags[c.R.PathValue("tag_name")]
	if t == nil {
		return nil, notFound("Tag")
	}
	return t, nil
}

// registryTagIn resolves :id, :repository_id and :tag_name for an action
// needing perm, each step answering 404 or 403 as the spec says.
func (c *Ctx) registryTagIn(d *store.Data, perm access.Level) (*store.RegistryRepository, *store.RegistryTag, error) {
	p, err := c.registryProject(d, perm)
	if err != nil {
		return nil, nil, err
	}
	r, err := c.registryRepositoryOf(d, p)
	if err != nil {
		return nil, nil, err
	}
	t, err := c.registryTagOf(r)
	if err != nil {
		return nil, nil, err
	}
	return r, t, nil
}

// getRegistryTag implements GET .../tags/:tag_name (rules registry.tags.get.*).
func (s *Server) getRegistryTag(c *Ctx) error {
	return s.store.Read(func(d *store.Data) error {
		r, t, err := c.registryTagIn(d, registryRead)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, c.registryTagDetail(d.RegistryRepositoryPath(r), t))
	})
}

// deleteRegistryTag implements DELETE .../tags/:tag_name (rules
// registry.tags.delete.*): the tag goes, its blobs stay.
func (s *Server) deleteRegistryTag(c *Ctx) error {
	return s.store.Write(func(d *store.Data) error {
		r, t, err := c.registryTagIn(d, registryDestroy)
		if err != nil {
			return err
		}
		d.DeleteRegistryTag(r, t.Name)
		return c.JSON(http.StatusOK, map[string]string{"message": "200 OK"})
	})
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
	return s.store.Write(func(d *store.Data) error {
		p, err := c.registryProject(d, registryAdmin)
		if err != nil {
			return err
		}
		r, err := c.registryRepositoryOf(d, p)
		if err != nil {
			return err
		}
		if _, err := d.BulkDeleteRegistryTags(r, crit); err != nil {
			return errorf(http.StatusBadRequest, "%s", err.Error())
		}
		return c.JSON(http.StatusAccepted, map[string]string{"message": "202 Accepted"})
	})
}
