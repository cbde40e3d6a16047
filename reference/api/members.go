package api

import (
	"net/http"

	"v4cert/reference/access"
	"v4cert/reference/store"
)

func init() {
	addHandlers(map[string]handler{
		"members.group.create":   (*Server).createGroupMember,
		"members.project.create": (*Server).createProjectMember,
	})
}

// source is a group or project resolved from the path, with the caller's role in it.
type source struct {
	Type  store.SourceType
	ID    int
	Role  access.Level
	Group *store.Group
	Proj  *store.Project
}

func (c *Ctx) sourceOf(d *store.Data, t store.SourceType) (*source, error) {
	if t == store.SourceGroup {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return nil, err
		}
		return &source{Type: t, ID: g.ID, Role: c.groupRole(d, g), Group: g}, nil
	}
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, err
	}
	return &source{Type: t, ID: p.ID, Role: c.projectRole(d, p), Proj: p}, nil
}

func (s *Server) createGroupMember(c *Ctx) error { return s.createMember(c, store.SourceGroup) }

func (s *Server) createProjectMember(c *Ctx) error { return s.createMember(c, store.SourceProject) }

// createMember implements the platform's POST /groups/:id/members and
// /projects/:id/members (provisioning): Maintainers add members up to their
// own role, Owners any role.
func (s *Server) createMember(c *Ctx, t store.SourceType) error {
	c.In().Require("user_id", "access_level")
	userID := c.In().IntOr("user_id", 0)
	lv, err := c.accessLevel("access_level")
	if err != nil {
		return err
	}
	expires := c.In().Date("expires_at")
	if err := c.In().Err(); err != nil {
		return err
	}
	return s.store.Write(func(d *store.Data) error {
		src, err := c.sourceOf(d, t)
		if err != nil {
			return err
		}
		if src.Role < access.Maintainer || (*lv > src.Role && src.Role < access.Owner) {
			return forbidden()
		}
		u := d.User(userID)
		if u == nil {
			return notFound("User")
		}
		m, err := d.AddMember(t, src.ID, u.ID, *lv, expires, c.Caller.ID)
		if err != nil {
			return conflict("Member already exists")
		}
		return c.JSON(http.StatusCreated, c.view(d).member(m, int(m.Access)))
	})
}
