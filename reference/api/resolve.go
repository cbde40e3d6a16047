package api

import (
	"strconv"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// groupOf resolves the `:id` path parameter of a group (an integer ID or the
// URL-encoded full path); a group the caller may not see is not found
// (Authentication rule 8).
func (c *Ctx) groupOf(d *store.Data, param string) (*store.Group, error) {
	raw := c.R.PathValue(param)
	var g *store.Group
	if id, err := strconv.Atoi(raw); err == nil {
		g = d.Group(id)
	} else {
		g = d.GroupByPath(raw)
	}
	if g == nil || !d.CanSeeGroup(c.Caller, g) {
		return nil, notFound("Group")
	}
	return g, nil
}

// projectOf resolves a project's `:id` the same way.
func (c *Ctx) projectOf(d *store.Data, param string) (*store.Project, error) {
	raw := c.R.PathValue(param)
	var p *store.Project
	if id, err := strconv.Atoi(raw); err == nil {
		p = d.Project(id)
	} else {
		p = d.ProjectByPath(raw)
	}
	if p == nil || !d.CanSeeProject(c.Caller, p) {
		return nil, notFound("Project")
	}
	return p, nil
}

// groupRole is the caller's role in g; administrators rank above every role.
func (c *Ctx) groupRole(d *store.Data, g *store.Group) access.Level {
	if c.Caller == nil {
		return access.None
	}
	if c.Caller.Admin {
		return access.Admin
	}
	return d.GroupAccess(c.Caller, g)
}

// projectRole is the caller's role in p; administrators rank above every role.
func (c *Ctx) projectRole(d *store.Data, p *store.Project) access.Level {
	if c.Caller == nil {
		return access.None
	}
	if c.Caller.Admin {
		return access.Admin
	}
	return d.ProjectAccess(c.Caller, p)
}

// requireGroupRole answers 403 unless the caller holds at least min in g.
func (c *Ctx) requireGroupRole(d *store.Data, g *store.Group, min access.Level) error {
	if c.groupRole(d, g) < min {
		return forbidden()
	}
	return nil
}

// requireProjectRole answers 403 unless the caller holds at least min in p.
func (c *Ctx) requireProjectRole(d *store.Data, p *store.Project, min access.Level) error {
	if c.projectRole(d, p) < min {
		return forbidden()
	}
	return nil
}

// accessLevel reads an access level parameter that must name an assignable role.
func (c *Ctx) accessLevel(name string) (*access.Level, error) {
	n := c.In().Int(name)
	if err := c.In().Err(); err != nil {
		return nil, err
	}
	if n == nil {
		return nil, nil
	}
	l := access.Level(*n)
	if !l.Assignable() {
		e := badRequest(name + " does not have a valid value")
		e.Body["error"] = name + " does not have a valid value"
		return nil, e
	}
	return &l, nil
}

// customAttribute reads PUT .../custom_attributes/:key, the platform's
// provisioning of the custom_attributes filters for users, groups and projects.
func (c *Ctx) customAttribute() (key, value string, err error) {
	value = c.In().StringOr("value", "")
	if err := c.In().Err(); err != nil {
		return "", "", err
	}
	return c.R.PathValue("key"), value, nil
}
