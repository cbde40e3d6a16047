package api

import (
	"net/http"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// ProjectAccessToken is a project access token as the platform answers its
// creation: a personal access token of the project's bot user, with the
// bot's access level.
type ProjectAccessToken struct {
	PersonalAccessToken
	AccessLevel int `json:"access_level"`
}

// createProjectAccessToken implements the platform's POST
// /projects/:id/access_tokens (provisioning): a Maintainer creates a bot user
// that is a member of the project at access_level (default Maintainer, never
// above the caller's own role) and answers its token.
func (s *Server) createProjectAccessToken(c *Ctx) error {
	in, err := c.tokenInput()
	if err != nil {
		return err
	}
	level, err := c.accessLevel("access_level")
	if err != nil {
		return err
	}
	var out ProjectAccessToken
	err = s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireProjectRole(d, p, access.Maintainer); err != nil {
			return err
		}
		lv := access.Maintainer
		if level != nil {
			lv = *level
		}
		if lv > c.projectRole(d, p) {
			return forbidden()
		}
		_, t, err := d.CreateProjectAccessToken(p, in.name, in.scopes, in.expires, lv, c.Caller.ID)
		if err != nil {
			return err
		}
		out = ProjectAccessToken{PersonalAccessToken: personalAccessToken(t), AccessLevel: int(lv)}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}
