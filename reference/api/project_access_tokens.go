package api

import (
	"net/http"

	"v4cert/reference/access"
	"v4cert/reference/store"
)

func init() {
	addHandlers(map[string]handler{
		"projects.access-tokens.create": (*Server).createProjectAccessToken,
	})
}

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
	in := c.In().Require("name", "scopes")
	name := in.StringOr("name", "")
	scopes := in.Strings("scopes")
	expires := in.Date("expires_at")
	level, err := c.accessLevel("access_level")
	if err != nil {
		return err
	}
	if err := in.Err(); err != nil {
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
		bot, err := d.CreateProjectBot(p, name, lv, c.Caller.ID)
		if err != nil {
			return err
		}
		t, err := d.CreateToken(bot, name, scopes, expires, "")
		if err != nil {
			return err
		}
		out = ProjectAccessToken{PersonalAccessToken: PersonalAccessToken{ID: t.ID, Name: t.Name, CreatedAt: ts(t.CreatedAt),
			Scopes: t.Scopes, UserID: bot.ID, Active: true, ExpiresAt: datePtr(t.ExpiresAt), Token: t.Secret}, AccessLevel: int(lv)}
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}
