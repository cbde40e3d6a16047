package api

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/v4cert/v4cert/reference/store"
)

// ListUsersOptions are the filters of GET /users.
type ListUsersOptions struct {
	Username, Search                              *string
	Active, Blocked, External, ExcludeExternal    *bool
	Humans, ExcludeHumans, ExcludeActive          *bool
	ExcludeInternal, WithoutProjectBots           *bool
	CreatedAfter, CreatedBefore                   *time.Time
	ExternUID, Provider, OrderBy, Sort, TwoFactor *string
	WithoutProjects, Admins, Auditors, SkipLDAP   *bool
	SAMLProviderID                                *int
	CustomAttributes                              map[string]string
	WithCustomAttributes                          bool
}

func (c *Ctx) readListUsersOptions() (ListUsersOptions, error) {
	in := c.In()
	o := ListUsersOptions{
		Username: in.String("username"), Search: in.String("search"),
		Active: in.Bool("active"), Blocked: in.Bool("blocked"), External: in.Bool("external"),
		ExcludeExternal: in.Bool("exclude_external"), Humans: in.Bool("humans"),
		ExcludeHumans: in.Bool("exclude_humans"), ExcludeActive: in.Bool("exclude_active"),
		ExcludeInternal: in.Bool("exclude_internal"), WithoutProjectBots: in.Bool("without_project_bots"),
		CreatedAfter: in.Time("created_after"), CreatedBefore: in.Time("created_before"),
		ExternUID: in.String("extern_uid"), Provider: in.String("provider"),
		OrderBy: in.String("order_by"),
		Sort:    in.String("sort"), TwoFactor: in.String("two_factor"),
		WithoutProjects: in.Bool("without_projects"), Admins: in.Bool("admins"), Auditors: in.Bool("auditors"),
		SkipLDAP: in.Bool("skip_ldap"), SAMLProviderID: in.Int("saml_provider_id"),
		CustomAttributes: in.Hash("custom_attributes"), WithCustomAttributes: in.BoolOr("with_custom_attributes", false),
	}
	if err := in.Err(); err != nil {
		return o, err
	}
	if !c.Admin() && o.ExternUID != nil && *o.ExternUID != "" && o.Provider != nil && *o.Provider != "" {
		// Rule users.list.13, as the platform: extern_uid with provider runs
		// authenticated_as_admin! (401 without a caller, 403 for a
		// non-administrator). gitlabhq/gitlabhq lib/api/users.rb @2e3cbf7d.
		if c.Caller == nil {
			return o, unauthorized()
		}
		return o, forbidden()
	}
	if !c.Admin() {
		// Rule users.list.13: the other administrator filters are read (and type-checked) but ignored.
		o.ExternUID, o.Provider, o.TwoFactor, o.WithoutProjects, o.Admins = nil, nil, nil, nil, nil
		o.Auditors, o.SkipLDAP, o.SAMLProviderID, o.CustomAttributes = nil, nil, nil, nil
		o.WithCustomAttributes = false
		if c.P.Raw("pagination") != "keyset" {
			o.OrderBy, o.Sort = nil, nil
		}
	}
	return o, nil
}

func isTrue(b *bool) bool { return b != nil && *b }

func (o ListUsersOptions) match(d *store.Data, u *store.User) bool {
	if o.Username != nil && !strings.EqualFold(u.Username, *o.Username) {
		return false
	}
	// search is answered by the store's index (Data.SearchUsers) before any
	// user is matched.
	// Rule users.list.4: active=false and blocked=false are unsupported and filter nothing.
	if isTrue(o.Active) && !u.Active() || isTrue(o.Blocked) && u.State != "blocked" {
		return false
	}
	if isTrue(o.ExcludeActive) && u.Active() {
		return false
	}
	if isTrue(o.External) && !u.External || isTrue(o.ExcludeExternal) && u.External {
		return false
	}
	if isTrue(o.Humans) && !u.Human() || isTrue(o.ExcludeHumans) && u.Human() {
		return false
	}
	if isTrue(o.WithoutProjectBots) && u.Type == "project_bot" || isTrue(o.ExcludeInternal) && u.Type == "internal" {
		return false
	}
	if o.CreatedAfter != nil && u.CreatedAt.Before(*o.CreatedAfter) || o.CreatedBefore != nil && u.CreatedAt.After(*o.CreatedBefore) {
		return false
	}
	if o.ExternUID != nil || o.Provider != nil {
		found := false
		for _, id := range u.Identities {
			if (o.ExternUID == nil || id.ExternUID == *o.ExternUID) && (o.Provider == nil || id.Provider == *o.Provider) {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	if o.TwoFactor != nil && (*o.TwoFactor == "enabled") != u.TwoFactor {
		return false
	}
	if isTrue(o.Admins) && !u.Admin || isTrue(o.Auditors) && !u.Auditor {
		return false
	}
	if isTrue(o.WithoutProjects) && d.HasProjectMembership(u) {
		return false
	}
	if o.SAMLProviderID != nil && !slices.ContainsFunc(u.Identities, func(i store.Identity) bool {
		return i.SAMLProviderID != nil && *i.SAMLProviderID == *o.SAMLProviderID
	}) {
		return false
	}
	if isTrue(o.SkipLDAP) && slices.ContainsFunc(u.Identities, func(i store.Identity) bool { return strings.HasPrefix(i.Provider, "ldap") }) {
		return false
	}
	for k, want := range o.CustomAttributes {
		if u.CustomAttributes[k] != want {
			return false
		}
	}
	return true
}

// filters reports whether any option narrows the list (search aside, which
// the index answers): without one a page is read straight from an ordering.
func (o ListUsersOptions) filters() bool {
	return o.Username != nil || isTrue(o.Active) || isTrue(o.Blocked) || isTrue(o.ExcludeActive) ||
		isTrue(o.External) || isTrue(o.ExcludeExternal) || isTrue(o.Humans) || isTrue(o.ExcludeHumans) ||
		isTrue(o.WithoutProjectBots) || isTrue(o.ExcludeInternal) || o.CreatedAfter != nil || o.CreatedBefore != nil ||
		o.ExternUID != nil || o.Provider != nil || o.TwoFactor != nil || isTrue(o.Admins) || isTrue(o.Auditors) ||
		isTrue(o.WithoutProjects) || o.SAMLProviderID != nil || isTrue(o.SkipLDAP) || len(o.CustomAttributes) > 0
}

func userCursor(field string) func(*store.User) Cursor {
	return func(u *store.User) Cursor {
		switch field {
		case "name":
			return Cursor{V: u.Name, ID: u.ID}
		case "username":
			return Cursor{V: u.Username, ID: u.ID}
		}
		return Cursor{ID: u.ID}
	}
}

// encoded is v as json.Marshal encodes it; the views it is given always encode.
func encoded(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a view of plain fields: cannot fail
	}
	return b
}

// listUsers implements GET /users (rules users.list.*).
func (s *Server) listUsers(c *Ctx) error {
	o, err := c.readListUsersOptions()
	if err != nil {
		return err
	}
	admin := c.Admin()
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		v := c.view(d)
		// Each user's view is encoded once between writes (Data.Memo); the
		// page joins the encodings.
		render := func(u *store.User) json.RawMessage {
			if admin && o.WithCustomAttributes {
				a := v.userAdmin(u)
				a.CustomAttributes = customAttributes(u.CustomAttributes)
				return encoded(a)
			}
			return d.MemoView(store.ViewKey{Kind: viewUser, Variant: flag(admin), ID: u.ID, Base: c.base}, func() []byte {
				if !admin {
					return encoded(v.userRef(u))
				}
				return encoded(v.userAdmin(u))
			})
		}
		var match func(*store.User) bool
		if o.filters() {
			match = func(u *store.User) bool { return o.match(d, u) }
		}
		orderBy, desc := "id", true
		if o.OrderBy != nil {
			orderBy = *o.OrderBy
		}
		if o.Sort != nil {
			desc = *o.Sort == "desc"
		}
		// ordered gives the users ascending by a field: all of them from the
		// store's orderings, or the few that search or username name, read
		// from the store's index and sorted here.
		ordered := func(f string) []*store.User { return d.UsersOrdered(f) }
		var found []*store.User
		switch {
		case o.Search != nil && *o.Search != "":
			found = d.SearchUsers(strings.ToLower(*o.Search), admin)
		case o.Username != nil:
			found = d.UsersByUsernameFold(*o.Username)
		}
		if found != nil {
			byField := map[string][]*store.User{}
			ordered = func(f string) []*store.User {
				if l, ok := byField[f]; ok {
					return l
				}
				l := slices.Clone(found)
				slices.SortStableFunc(l, func(a, b *store.User) int { return store.CompareUsers(a, b, f) })
				byField[f] = l
				return l
			}
		}
		// The keyset orderings, built only for a keyset page (PaginateWalk
		// reads ks for no other).
		var ks *Keyset[*store.User]
		if keyset, _ := c.keysetAsked(); keyset {
			ks = &Keyset[*store.User]{Sorts: []string{"asc", "desc"}, DefaultOrder: "id", DefaultSort: "desc", Match: match,
				Orders: map[string]KeysetOrder[*store.User]{}}
			for _, f := range []string{"id", "name", "username"} {
				ks.Orders[f] = KeysetOrder[*store.User]{Sorted: func() []*store.User { return ordered(f) }, Key: userCursor(f)}
			}
		}
		sorted := ordered(orderBy)
		at := func(i int) *store.User { return sorted[i] }
		if desc {
			at = func(i int) *store.User { return sorted[len(sorted)-1-i] }
		}
		return PaginateWalk(c, len(sorted), at, match, ks, render)
	})
}

// getUser implements GET /users/:id (rules users.get.*).
func (s *Server) getUser(c *Ctx) error {
	id, err := c.PathInt("id", "User")
	if err != nil {
		return err
	}
	withCA := c.In().BoolOr("with_custom_attributes", false)
	if err := c.In().Err(); err != nil {
		return err
	}
	var out any
	err = s.store.Read(func(d *store.Data) error {
		u := d.User(id)
		if u == nil {
			return notFound("User")
		}
		v := c.view(d)
		if c.Admin() {
			a := v.userAdmin(u)
			if withCA {
				a.CustomAttributes = customAttributes(u.CustomAttributes)
			}
			out = a
			return nil
		}
		out = v.userSingle(u)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// currentUser implements GET /user (rules users.current.*); sudo is applied
// before any handler runs.
func (s *Server) currentUser(c *Ctx) error {
	var out UserAdmin
	err := s.store.Read(func(d *store.Data) error {
		u := d.User(c.Caller.ID)
		if u == nil {
			return notFound("User")
		}
		out = c.view(d).userAdmin(u)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// createUser implements the platform's POST /users (provisioning).
func (s *Server) createUser(c *Ctx) error {
	in := c.In()
	n := store.NewUser{
		Email: in.StringOr("email", ""), Username: in.StringOr("username", ""), Name: in.StringOr("name", ""),
		Password: in.StringOr("password", ""), Admin: in.BoolOr("admin", false), External: in.BoolOr("external", false),
		Auditor: in.BoolOr("auditor", false), CanCreateGroup: in.Bool("can_create_group"),
		SkipConfirmation: in.BoolOr("skip_confirmation", false), ProjectsLimit: in.Int("projects_limit"),
		Bio: in.StringOr("bio", ""), Location: in.StringOr("location", ""), PublicEmail: in.StringOr("public_email", ""),
		Skype: in.StringOr("skype", ""), Linkedin: in.StringOr("linkedin", ""), Twitter: in.StringOr("twitter", ""),
		WebsiteURL: in.StringOr("website_url", ""), Organization: in.StringOr("organization", ""),
		JobTitle: in.StringOr("job_title", ""), Pronouns: in.StringOr("pronouns", ""), Note: in.StringOr("note", ""),
		PrivateProfile: in.BoolOr("private_profile", false), ExternUID: in.StringOr("extern_uid", ""),
		Provider: in.StringOr("provider", ""), CreatedByID: c.Caller.ID,
	}
	samlGroup := in.Int("group_id_for_saml")
	resetPassword := in.BoolOr("reset_password", false)
	randomPassword := in.BoolOr("force_random_password", false)
	if err := in.Err(); err != nil {
		return err
	}
	if n.Password == "" && !resetPassword && !randomPassword {
		e := badRequest("password, reset_password, force_random_password are missing, at least one parameter must be provided")
		e.Body["error"] = "password, reset_password, force_random_password are missing, at least one parameter must be provided"
		return e
	}
	if len(n.Password) >= 8 {
		n.PasswordHash = store.HashPassword(n.Password) // bcrypt outside the lock
	}
	var out UserAdmin
	err := s.store.Write(func(d *store.Data) error {
		if samlGroup != nil {
			// A SAML identity names the provider of the group it signs in to.
			g := d.Group(*samlGroup)
			if g == nil {
				return notFound("Group")
			}
			id := d.SAMLProviderID(g)
			n.SAMLProviderID = &id
		}
		u, err := d.CreateUser(n)
		if ve, ok := err.(*store.ValidationError); ok {
			// The platform answers a taken email or username with 409.
			for _, f := range []string{"email", "username"} {
				if slices.Contains(ve.Fields[f], "has already been taken") {
					return conflict(strings.ToUpper(f[:1]) + f[1:] + " has already been taken")
				}
			}
		}
		if err != nil {
			return err
		}
		out = c.view(d).userAdmin(u)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

func (s *Server) withUser(c *Ctx, param string, fn func(d *store.Data, u *store.User) error) error {
	id, err := c.PathInt(param, "User")
	if err != nil {
		return err
	}
	return s.store.Write(func(d *store.Data) error {
		u := d.User(id)
		if u == nil {
			return notFound("User")
		}
		return fn(d, u)
	})
}

// deleteUser implements the platform's DELETE /users/:id (provisioning).
func (s *Server) deleteUser(c *Ctx) error {
	err := s.withUser(c, "id", func(d *store.Data, u *store.User) error {
		if u.ID == c.Caller.ID {
			return forbiddenMsg("you cannot delete yourself")
		}
		// The platform hands a deleted user's contributions to the ghost user.
		d.Ghost()
		d.DeleteUser(u)
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}

// blockUser implements the platform's POST /users/:id/block: 201 with body true.
func (s *Server) blockUser(c *Ctx) error {
	err := s.withUser(c, "id", func(d *store.Data, u *store.User) error {
		d.SetUserState(u, "blocked")
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, true)
}

// unblockUser implements the platform's POST /users/:id/unblock.
func (s *Server) unblockUser(c *Ctx) error {
	err := s.withUser(c, "id", func(d *store.Data, u *store.User) error {
		d.SetUserState(u, "active")
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, true)
}

// PersonalAccessToken is the platform's token resource.
type PersonalAccessToken struct {
	ID          int      `json:"id"`
	Name        string   `json:"name"`
	Revoked     bool     `json:"revoked"`
	CreatedAt   string   `json:"created_at"`
	Description *string  `json:"description"`
	Scopes      []string `json:"scopes"`
	UserID      int      `json:"user_id"`
	LastUsedAt  *string  `json:"last_used_at"`
	Active      bool     `json:"active"`
	ExpiresAt   *string  `json:"expires_at"`
	Token       string   `json:"token,omitempty"`
}

// createPersonalAccessToken implements the platform's POST
// /users/:user_id/personal_access_tokens (provisioning).
func (s *Server) createPersonalAccessToken(c *Ctx) error {
	in, err := c.tokenInput()
	if err != nil {
		return err
	}
	var out PersonalAccessToken
	err = s.withUser(c, "user_id", func(d *store.Data, u *store.User) error {
		t, err := d.CreateToken(u, in.name, in.scopes, in.expires, "")
		if err != nil {
			return err
		}
		out = personalAccessToken(t)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// tokenInput is what a token's creation takes: name and scopes (required)
// and an expiry date.
type tokenInput struct {
	name    string
	scopes  []string
	expires *time.Time
}

func (c *Ctx) tokenInput() (tokenInput, error) {
	in := c.In() // name and scopes are required by the rulebook
	t := tokenInput{name: in.StringOr("name", ""), scopes: in.Strings("scopes"), expires: in.Date("expires_at")}
	return t, in.Err()
}

// personalAccessToken is a token as its creation answers it, secret included.
func personalAccessToken(t *store.Token) PersonalAccessToken {
	return PersonalAccessToken{ID: t.ID, Name: t.Name, CreatedAt: ts(t.CreatedAt), Scopes: t.Scopes, UserID: t.UserID,
		Active: true, ExpiresAt: datePtr(t.ExpiresAt), Token: t.Secret}
}

// setUserCustomAttribute implements the platform's PUT
// /users/:id/custom_attributes/:key (provisioning for the custom_attributes filters).
func (s *Server) setUserCustomAttribute(c *Ctx) error {
	key, value, err := c.customAttribute()
	if err != nil {
		return err
	}
	err = s.withUser(c, "id", func(d *store.Data, u *store.User) error {
		d.Touch(u)
		if u.CustomAttributes == nil {
			u.CustomAttributes = map[string]string{}
		}
		u.CustomAttributes[key] = value
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, map[string]string{"key": key, "value": value})
}
