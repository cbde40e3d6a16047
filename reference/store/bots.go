package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"
)

// The platform's users that are not people: the internal ghost user that
// adopts a deleted user's contributions, and the bot user behind each
// project access token. The suites need both to tell the user list's
// humans, exclude_internal and without_project_bots filters apart.

// Ghost returns the internal ghost user, creating it on first use as the
// platform does when a deleted user's contributions must move to it.
func (d *Data) Ghost() *User {
	for _, u := range d.users {
		if u.Type == "internal" && u.Name == "Ghost User" {
			return u
		}
	}
	username := "ghost"
	for i := 1; d.userByName[username] != nil || d.namespacePathTaken(username, 0); i++ {
		username = "ghost" + strconv.Itoa(i)
	}
	u, err := d.CreateUser(NewUser{Username: username, Name: "Ghost User", Email: username + "@example.com",
		Type: "internal", SkipConfirmation: true,
		Bio: "This is a \"Ghost User\", created to hold all issues authored by users that have since been deleted. This user cannot be removed."})
	if err != nil {
		panic(fmt.Sprintf("creating the ghost user: %v", err)) // the name was chosen free
	}
	return u
}

// CreateProjectAccessToken creates a project access token: a bot user that
// is a member of p at level, named as the token, with the platform's bot
// username, and its token. A token that would be refused creates no bot.
func (d *Data) CreateProjectAccessToken(p *Project, name string, scopes []string, expires *time.Time, level Level, by int) (*User, *Token, error) {
	if v := tokenErrors(name, scopes); len(v.Fields) > 0 {
		return nil, nil, v
	}
	seq := d.next("project_bot")
	sum := sha256.Sum256([]byte(fmt.Sprintf("%d/%d", p.ID, seq)))
	suffix := hex.EncodeToString(sum[:])[:32]
	u, err := d.CreateUser(NewUser{Username: fmt.Sprintf("project_%d_bot_%s", p.ID, suffix), Name: name,
		Email: fmt.Sprintf("project%d_bot%d@noreply.example.com", p.ID, seq), Type: "project_bot",
		SkipConfirmation: true, CreatedByID: by})
	if err != nil {
		return nil, nil, err
	}
	d.putMember(SourceProject, p.ID, u.ID, level, nil, by)
	t, err := d.CreateToken(u, name, scopes, expires, "")
	return u, t, err
}

// SAMLProviderID returns the id of the SAML provider of g's top-level group.
// The reference has no single sign-on to configure, so every top-level group
// stands for one that has it, its provider numbered as the group: the id is
// derived, and nothing beyond the identity that names it is stored.
func (d *Data) SAMLProviderID(g *Group) int { return d.Root(g).ID }
