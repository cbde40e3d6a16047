package api

import (
	"net/http"

	"v4cert/reference/access"
	"v4cert/reference/store"
)

func init() {
	addHandlers(map[string]handler{
		"groups.create":                (*Server).createGroup,
		"groups.delete":                (*Server).deleteGroup,
		"groups.share":                 (*Server).shareGroup,
		"groups.custom-attributes.set": (*Server).setGroupCustomAttribute,
	})
}

// createGroup implements the platform's POST /groups (provisioning): any user
// allowed to create groups may, and becomes the group's Owner.
func (s *Server) createGroup(c *Ctx) error {
	in := c.In().Require("name", "path")
	n := store.NewGroup{
		Name: in.StringOr("name", ""), Path: in.StringOr("path", ""), Description: in.StringOr("description", ""),
		Visibility: deref(in.Enum("visibility", "public", "internal", "private"), ""),
		ParentID:   in.IntOr("parent_id", 0), RequestAccessEnabled: in.Bool("request_access_enabled"),
		CreatorID: c.Caller.ID,
	}
	if err := in.Err(); err != nil {
		return err
	}
	return s.store.Write(func(d *store.Data) error {
		if n.ParentID != 0 {
			parent := d.Group(n.ParentID)
			if parent == nil || !d.CanSeeGroup(c.Caller, parent) {
				return notFound("Parent Group")
			}
			if err := c.requireGroupRole(d, parent, access.Maintainer); err != nil {
				return err
			}
		} else if !c.Admin() && !c.Caller.CanCreateGroup {
			return forbidden()
		}
		g, err := d.CreateGroup(n)
		if err != nil {
			return asError(err, "Parent Group")
		}
		return c.JSON(http.StatusCreated, c.view(d).group(g, true))
	})
}

// deleteGroup implements the platform's DELETE /groups/:id: 202, removed at once here.
func (s *Server) deleteGroup(c *Ctx) error {
	return s.store.Write(func(d *store.Data) error {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireGroupRole(d, g, access.Owner); err != nil {
			return err
		}
		d.DeleteGroup(g)
		return c.JSON(http.StatusAccepted, map[string]string{"message": "202 Accepted"})
	})
}

// shareGroup implements the platform's POST /groups/:id/share (provisioning):
// invites group_id into :id with access capped at group_access.
func (s *Server) shareGroup(c *Ctx) error {
	c.In().Require("group_id", "group_access")
	groupID := c.In().IntOr("group_id", 0)
	lv, err := c.accessLevel("group_access")
	if err != nil {
		return err
	}
	expires := c.In().Date("expires_at")
	if err := c.In().Err(); err != nil {
		return err
	}
	return s.store.Write(func(d *store.Data) error {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireGroupRole(d, g, access.Owner); err != nil {
			return err
		}
		invited := d.Group(groupID)
		if invited == nil || !d.CanSeeGroup(c.Caller, invited) {
			return notFound("Group")
		}
		if invited.ID == g.ID {
			return validation(map[string][]string{"group_id": {"cannot be shared with itself"}})
		}
		if _, err := d.ShareWithGroup(store.SourceGroup, g.ID, invited, *lv, expires); err != nil {
			return conflict("Group already shared with this group")
		}
		return c.JSON(http.StatusCreated, c.view(d).group(g, true))
	})
}

// setGroupCustomAttribute implements the platform's PUT
// /groups/:id/custom_attributes/:key (provisioning for custom_attributes filters).
func (s *Server) setGroupCustomAttribute(c *Ctx) error {
	value := c.In().Require("value").StringOr("value", "")
	if err := c.In().Err(); err != nil {
		return err
	}
	key := c.R.PathValue("key")
	return s.store.Write(func(d *store.Data) error {
		g, err := c.groupOf(d, "id")
		if err != nil {
			return err
		}
		g.CustomAttributes[key] = value
		return c.JSON(http.StatusOK, map[string]string{"key": key, "value": value})
	})
}
