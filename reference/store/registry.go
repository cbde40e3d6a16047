package store

import (
	"errors"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/v4cert/v4cert/reference/access"
)

// RegistryRepository is the project API's record of one container image
// repository of a project: its id, its name and its state. It comes to exist
// when the registry host accepts the first manifest pushed to its name; its
// tags, digests and sizes live in the registry itself (reference/registry).
type RegistryRepository struct {
	ID        int
	ProjectID int
	Name      string // empty for the project's root repository
	CreatedAt time.Time
	// Status is empty (null) or delete_scheduled (States: registry repository).
	Status string
	// LastBulkDeleteAt is when the last bulk tag delete ran; zero when never (Limits).
	LastBulkDeleteAt time.Time
}

// BulkDeleteInterval is how often bulk tag deletion may run per repository (Limits).
const BulkDeleteInterval = time.Hour

// ErrBulkDeleteTooSoon is a second bulk delete of one repository within the hour.
var ErrBulkDeleteTooSoon = &BulkDeleteTooSoon{}

// BulkDeleteTooSoon is the error of ErrBulkDeleteTooSoon.
type BulkDeleteTooSoon struct{}

func (*BulkDeleteTooSoon) Error() string {
	return "This request has already been made. You can run this at most once an hour for a given container repository"
}

// RegistryRepositories lists a project's repositories by ascending id.
func (d *Data) RegistryRepositories(projectID int) []*RegistryRepository {
	var out []*RegistryRepository
	for _, r := range d.registryRepos {
		if r.ProjectID == projectID {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// RegistryRepository returns the repository with that id, or nil.
func (d *Data) RegistryRepository(id int) *RegistryRepository { return d.registryRepos[id] }

// RegistryRepositoryByName finds a project's repository by its name.
func (d *Data) RegistryRepositoryByName(projectID int, name string) *RegistryRepository {
	for _, r := range d.registryRepos {
		if r.ProjectID == projectID && r.Name == name {
			return r
		}
	}
	return nil
}

// RegistryRepositoryPath is the image path: the project's full path in lower
// case (image names are lower case), then the name.
func (d *Data) RegistryRepositoryPath(r *RegistryRepository) string {
	p := d.Project(r.ProjectID)
	if p == nil {
		return r.Name
	}
	full := strings.ToLower(d.ProjectFullPath(p))
	if r.Name == "" {
		return full
	}
	return full + "/" + r.Name
}

// ImageProject splits an image path into the project it belongs to and the
// repository name inside it; the longest project path wins. Project paths
// match case-insensitively, since image names are lower case.
func (d *Data) ImageProject(image string) (*Project, string) {
	segs := strings.Split(image, "/")
	for n := len(segs); n >= 1; n-- {
		if p := d.ProjectByPath(strings.Join(segs[:n], "/")); p != nil {
			return p, strings.Join(segs[n:], "/")
		}
	}
	return nil, ""
}

// RecordRegistryRepository notes that the registry host holds a manifest
// under image name of project p, creating the repository record on the first
// push to that name (or after a scheduled delete removed the earlier one).
func (d *Data) RecordRegistryRepository(p *Project, name string) *RegistryRepository {
	if d.registryRepos == nil {
		d.registryRepos = map[int]*RegistryRepository{}
	}
	r := d.RegistryRepositoryByName(p.ID, name)
	if r != nil && r.Status == "" {
		return r
	}
	if r != nil {
		d.Touch(r)
		delete(d.registryRepos, r.ID)
	}
	r = &RegistryRepository{ID: d.next("registry_repository"), ProjectID: p.ID, Name: name, CreatedAt: d.Now()}
	d.registryRepos[r.ID] = r
	d.Touch(r)
	return r
}

// ScheduleRegistryRepositoryDelete marks a repository delete_scheduled; the
// next read that shows it completes the removal (ReapRegistryRepositories),
// so the asynchronous delete is deterministic.
func (d *Data) ScheduleRegistryRepositoryDelete(r *RegistryRepository) {
	d.Touch(r)
	r.Status = "delete_scheduled"
}

// ReapRegistryRepositories removes the scheduled repositories among rs, once a
// read has shown them in their scheduled state, and returns the image paths
// whose content the caller removes from the registry.
func (d *Data) ReapRegistryRepositories(rs ...*RegistryRepository) []string {
	var images []string
	for _, r := range rs {
		if r.Status == "delete_scheduled" {
			images = append(images, d.RegistryRepositoryPath(r))
			d.Touch(r)
			delete(d.registryRepos, r.ID)
		}
	}
	return images
}

// dropRegistry forgets a deleted project's repositories; the API removes their
// content from the registry host.
func (d *Data) dropRegistry(projectID int) {
	for id, r := range d.registryRepos {
		if r.ProjectID == projectID {
			d.Touch(r)
			delete(d.registryRepos, id)
		}
	}
}

// StartBulkDelete takes the hourly lease of a repository's bulk tag delete
// (Limits: at most once per hour per container repository).
func (d *Data) StartBulkDelete(r *RegistryRepository) error {
	now := d.Now()
	if !r.LastBulkDeleteAt.IsZero() && now.Sub(r.LastBulkDeleteAt) < BulkDeleteInterval {
		return ErrBulkDeleteTooSoon
	}
	d.Touch(r)
	r.LastBulkDeleteAt = now
	return nil
}

// BulkDeleteTags are the criteria of a bulk tag delete; nil regexes are absent.
type BulkDeleteTags struct {
	Delete, Keep *regexp.Regexp // anchored to the whole name
	KeepN        *int
	OlderThan    *time.Duration
}

// TagAge is a tag's name and its image's creation time.
type TagAge struct {
	Name      string
	CreatedAt time.Time
}

// Select applies bulk delete rules 2 to 6 to tags and returns the names to
// remove, sorted: whole-name matches of the delete regex that the keep regex
// spares, never latest, less the KeepN newest by image creation time, and
// only those created before now less OlderThan.
func (c BulkDeleteTags) Select(tags []TagAge, now time.Time) []string {
	var cands []TagAge
	for _, t := range tags {
		if t.Name == "latest" || !c.Delete.MatchString(t.Name) || (c.Keep != nil && c.Keep.MatchString(t.Name)) {
			continue
		}
		cands = append(cands, t)
	}
	// Newest first by image creation time; the name breaks ties so equal
	// times give the same answer every run.
	sort.Slice(cands, func(i, j int) bool {
		if !cands[i].CreatedAt.Equal(cands[j].CreatedAt) {
			return cands[i].CreatedAt.After(cands[j].CreatedAt)
		}
		return cands[i].Name > cands[j].Name
	})
	if c.KeepN != nil {
		cands = cands[min(max(*c.KeepN, 0), len(cands)):]
	}
	var out []string
	for _, t := range cands {
		if c.OlderThan != nil && !t.CreatedAt.Before(now.Add(-*c.OlderThan)) {
			continue
		}
		out = append(out, t.Name)
	}
	sort.Strings(out)
	return out
}

// What a caller does with a project's registry, with the platform's
// permission names: read_container_image, create_container_image and
// destroy_container_image (Developer), admin_container_image (Maintainer).
const (
	RegistryRead   = access.None
	RegistryPush   = access.Developer
	RegistryDelete = access.Developer
	RegistryAdmin  = access.Maintainer
)

// Sentinel errors of RegistryAccess; the HTTP layers map them.
var (
	// ErrRegistryHidden: the caller may not see the project (404), or a job
	// token reached past its own project.
	ErrRegistryHidden = errors.New("registry: project not found")
	// ErrRegistryDenied: the caller sees the project but not this use of
	// its registry (401 anonymous, 403 signed in).
	ErrRegistryDenied = errors.New("registry: access denied")
)

// RegistryAccess applies the registry's visibility values and roles to u
// (nil: anonymous) needing need in p: disabled turns the registry off for
// everyone, private needs Reporter to read, enabled lets everyone who sees
// the project read; pushing and deleting need Developer and a project that
// is not archived, administration Maintainer. Administrators rank above
// every role. A CI job token (jobProject, 0 for none) reaches only the
// registry of its own project (Authentication 2).
func (d *Data) RegistryAccess(u *User, jobProject int, p *Project, need Level) error {
	if jobProject != 0 && jobProject != p.ID {
		return ErrRegistryHidden
	}
	if !d.CanSeeProject(u, p) {
		return ErrRegistryHidden
	}
	if p.ContainerRegistryAccessLevel == "disabled" {
		return ErrRegistryDenied
	}
	if need == RegistryRead && p.ContainerRegistryAccessLevel == "private" {
		need = access.Reporter
	}
	role := access.None
	switch {
	case u == nil:
	case u.Admin:
		role = access.Admin
	default:
		role = d.ProjectAccess(u, p)
	}
	if need > RegistryRead && role < need {
		return ErrRegistryDenied
	}
	if need >= RegistryPush && p.Archived {
		return ErrRegistryDenied
	}
	return nil
}
