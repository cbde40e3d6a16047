package reference

import (
	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// seedDemo builds the demo world of `make run`: one user per role in a public
// group with a subgroup, a private group, public and private projects with
// topics, an external and a blocked user. Tokens are fixed so the README can
// show them; this world is for trying the API, not for anything exposed.
func seedDemo(d *store.Data, root *store.User) ([]Account, error) {
	var accounts []Account
	mk := func(role, username, name string, level access.Level) (*store.User, error) {
		u, err := d.CreateUser(store.NewUser{Username: username, Name: name, Email: username + "@example.com",
			SkipConfirmation: true, CreatedByID: root.ID, PublicEmail: username + "@example.com"})
		if err != nil {
			return nil, err
		}
		t, err := d.CreateToken(u, "demo", []string{"api"}, nil, "glpat-demo-"+username)
		if err != nil {
			return nil, err
		}
		accounts = append(accounts, Account{Role: role, Username: username, Token: t.Secret})
		return u, nil
	}
	owner, err := mk("owner", "olivia", "Olivia Owner", access.Owner)
	if err != nil {
		return nil, err
	}
	grp, err := d.CreateGroup(store.NewGroup{Name: "Demo", Path: "demo", Visibility: "public", CreatorID: owner.ID,
		Description: "A public group with one member of every role"})
	if err != nil {
		return nil, err
	}
	roles := []struct {
		role, user, name string
		level            access.Level
	}{
		{"maintainer", "max", "Max Maintainer", access.Maintainer},
		{"developer", "dana", "Dana Developer", access.Developer},
		{"reporter", "remi", "Remi Reporter", access.Reporter},
		{"guest", "gus", "Gus Guest", access.Guest},
		{"minimal", "mia", "Mia Minimal", access.Minimal},
	}
	for _, r := range roles {
		u, err := mk(r.role, r.user, r.name, r.level)
		if err != nil {
			return nil, err
		}
		if _, err := d.AddMember(store.SourceGroup, grp.ID, u.ID, r.level, nil, owner.ID); err != nil {
			return nil, err
		}
	}
	outsider, err := mk("non-member", "nora", "Nora Nonmember", access.None)
	if err != nil {
		return nil, err
	}
	sub, err := d.CreateGroup(store.NewGroup{Name: "Platform", Path: "platform", ParentID: grp.ID, Visibility: "internal", CreatorID: owner.ID})
	if err != nil {
		return nil, err
	}
	secret, err := d.CreateGroup(store.NewGroup{Name: "Secret", Path: "secret", Visibility: "private", CreatorID: owner.ID})
	if err != nil {
		return nil, err
	}
	if _, err := d.ShareWithGroup(store.SourceGroup, secret.ID, sub, access.Reporter, nil); err != nil {
		return nil, err
	}
	vis := func(s string) *string { return &s }
	ns := func(id int) *int { return &id }
	projects := []store.ProjectFields{
		{Name: vis("Website"), Path: vis("website"), NamespaceID: ns(grp.ID), Visibility: vis("public"), InitializeWithReadme: true,
			Topics: []string{"web", "go"}, TopicsGiven: true, Description: vis("The public website")},
		{Name: vis("API"), Path: vis("api"), NamespaceID: ns(sub.ID), Visibility: vis("internal"), InitializeWithReadme: true,
			Topics: []string{"go"}, TopicsGiven: true},
		{Name: vis("Vault"), Path: vis("vault"), NamespaceID: ns(secret.ID), Visibility: vis("private")},
	}
	for _, f := range projects {
		if _, err := d.CreateProject(owner, f); err != nil {
			return nil, err
		}
	}
	if _, err := d.RequestAccess(store.SourceGroup, grp.ID, outsider); err != nil {
		return nil, err
	}
	ext, err := mk("external", "ezra", "Ezra External", access.None)
	if err != nil {
		return nil, err
	}
	ext.External = true
	blocked, err := d.CreateUser(store.NewUser{Username: "blake", Name: "Blake Blocked", Email: "blake@example.com", CreatedByID: root.ID})
	if err != nil {
		return nil, err
	}
	d.SetUserState(blocked, "blocked")
	return accounts, nil
}
