package store

import (
	"crypto/rand"
	"encoding/hex"

	"golang.org/x/crypto/bcrypt"
	"regexp"
	"strings"
	"time"
)

// User is a user account.
type User struct {
	ID               int
	Username         string
	Name             string
	Email            string
	State            string // active, blocked
	Admin            bool
	Auditor          bool
	External         bool
	Type             string // human, project_bot, internal (ghost and support bots)
	CanCreateGroup   bool
	CanCreateProject bool
	ProjectsLimit    int
	PrivateProfile   bool
	TwoFactor        bool
	Bio              string
	Location         string
	PublicEmail      string
	Skype            string
	Linkedin         string
	Twitter          string
	WebsiteURL       string
	Organization     string
	JobTitle         string
	Pronouns         string
	Note             string
	ThemeID          int
	ColorSchemeID    int
	CreatedAt        time.Time
	UpdatedAt        time.Time
	ConfirmedAt      *time.Time
	CreatedByID      int // 0 when the user registered themselves
	NamespaceID      int
	Identities       []Identity
	CustomAttributes map[string]string
	LastActivityOn   *time.Time
	CurrentSignInAt  *time.Time
	Locked           bool
	// PasswordHash is the bcrypt hash of the user's password; nil when none
	// was set (reset_password, force_random_password).
	PasswordHash []byte
}

// Identity links a user to an external provider.
type Identity struct {
	Provider       string
	ExternUID      string
	SAMLProviderID *int
}

// Token is a personal access token.
type Token struct {
	ID        int
	Name      string
	Secret    string
	UserID    int
	Scopes    []string
	CreatedAt time.Time
	ExpiresAt *time.Time
	Revoked   bool
}

// HasScope reports whether the token carries one of scopes.
func (t *Token) HasScope(scopes ...string) bool {
	for _, have := range t.Scopes {
		for _, want := range scopes {
			if have == want {
				return true
			}
		}
	}
	return false
}

// Active reports whether the token may still be used.
func (t *Token) Active(now time.Time) bool {
	return !t.Revoked && (t.ExpiresAt == nil || now.Before(t.ExpiresAt.Add(24*time.Hour)))
}

// Human reports whether the user is a person rather than a bot.
func (u *User) Human() bool { return u.Type == "" || u.Type == "human" }

// Active reports whether the account is not blocked.
func (u *User) Active() bool { return u.State == "active" }

// NewUser holds what POST /users accepts.
type NewUser struct {
	Username, Name, Email, Password string
	// PasswordHash is HashPassword(Password), computed by the caller outside
	// the store's lock when it can; CreateUser hashes Password when it is nil.
	PasswordHash               []byte
	Admin, External, Auditor   bool
	CanCreateGroup             *bool
	SkipConfirmation           bool
	ProjectsLimit              *int
	Bio, Location, PublicEmail string
	Skype, Linkedin, Twitter   string
	WebsiteURL, Organization   string
	JobTitle, Pronouns, Note   string
	PrivateProfile             bool
	ExternUID, Provider        string
	SAMLProviderID             *int
	Type                       string
	CreatedByID                int
}

var (
	usernameRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	emailRe    = regexp.MustCompile(`^[^@\s]+@[^@\s]+$`)
)

// CreateUser validates and stores a user with a personal namespace.
func (d *Data) CreateUser(n NewUser) (*User, error) {
	v := &ValidationError{Fields: map[string][]string{}}
	if n.Username == "" {
		v.Fields["username"] = append(v.Fields["username"], "can't be blank")
	} else if !usernameRe.MatchString(n.Username) || strings.HasSuffix(n.Username, ".git") || len(n.Username) > 255 {
		v.Fields["username"] = append(v.Fields["username"], "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.")
	} else if d.userByName[strings.ToLower(n.Username)] != nil || d.namespacePathTaken(n.Username, 0) {
		v.Fields["username"] = append(v.Fields["username"], "has already been taken")
	}
	if n.Name == "" {
		v.Fields["name"] = append(v.Fields["name"], "can't be blank")
	}
	if n.Email == "" {
		v.Fields["email"] = append(v.Fields["email"], "can't be blank")
	} else if !emailRe.MatchString(n.Email) {
		v.Fields["email"] = append(v.Fields["email"], "is invalid")
	} else if d.emailTaken(n.Email) {
		v.Fields["email"] = append(v.Fields["email"], "has already been taken")
	}
	v.checkLength("name", n.Name, MaxName)
	v.checkLength("email", n.Email, MaxName)
	if n.Password != "" && len(n.Password) < 8 {
		v.Fields["password"] = append(v.Fields["password"], "is too short (minimum is 8 characters)")
	}
	if len(v.Fields) > 0 {
		return nil, v
	}
	now := d.Now()
	u := &User{
		ID: d.next("user"), Username: n.Username, Name: n.Name, Email: n.Email, State: "active",
		Admin: n.Admin, External: n.External, Auditor: n.Auditor, Type: n.Type,
		CanCreateGroup: true, CanCreateProject: true, ProjectsLimit: 100000,
		Bio: n.Bio, Location: n.Location, PublicEmail: n.PublicEmail, Skype: n.Skype,
		Linkedin: n.Linkedin, Twitter: n.Twitter, WebsiteURL: n.WebsiteURL,
		Organization: n.Organization, JobTitle: n.JobTitle, Pronouns: n.Pronouns, Note: n.Note,
		PrivateProfile: n.PrivateProfile, ThemeID: 3, ColorSchemeID: 1,
		CreatedAt: now, UpdatedAt: now, CreatedByID: n.CreatedByID,
	}
	if u.Type == "" {
		u.Type = "human"
	}
	if u.PasswordHash = n.PasswordHash; u.PasswordHash == nil && n.Password != "" {
		u.PasswordHash = HashPassword(n.Password)
	}
	if n.CanCreateGroup != nil {
		u.CanCreateGroup = *n.CanCreateGroup
	}
	if n.ProjectsLimit != nil {
		u.ProjectsLimit = *n.ProjectsLimit
	}
	if n.External {
		u.CanCreateGroup = n.CanCreateGroup != nil && *n.CanCreateGroup
	}
	if n.SkipConfirmation || n.CreatedByID == 0 {
		c := now
		u.ConfirmedAt = &c
	}
	if n.ExternUID != "" && n.Provider != "" {
		u.Identities = []Identity{{Provider: n.Provider, ExternUID: n.ExternUID, SAMLProviderID: n.SAMLProviderID}}
	}
	ns := &UserNamespace{ID: d.next("namespace"), UserID: u.ID}
	u.NamespaceID = ns.ID
	d.userNS[ns.ID] = ns
	d.Touch(u, ns)
	d.users = append(d.users, u)
	d.userByID[u.ID] = u
	d.userByName[strings.ToLower(u.Username)] = u
	d.userByEmail[strings.ToLower(u.Email)] = u
	d.cache.drop()
	return u, nil
}

func (d *Data) emailTaken(email string) bool {
	return d.userByEmail[strings.ToLower(email)] != nil
}

// User returns the user with id.
func (d *Data) User(id int) *User { return d.userByID[id] }

// UserByUsername returns the user with username, case-insensitively.
func (d *Data) UserByUsername(username string) *User {
	return d.userByName[strings.ToLower(username)]
}

// UserCount is the number of users.
func (d *Data) UserCount() int { return len(d.users) }

// CompareUsers orders two users by field, then by id.
func CompareUsers(a, b *User, field string) int {
	var c int
	switch field {
	case "name":
		c = strings.Compare(a.Name, b.Name)
	case "username":
		c = strings.Compare(a.Username, b.Username)
	case "created_at":
		c = a.CreatedAt.Compare(b.CreatedAt)
	case "updated_at":
		c = a.UpdatedAt.Compare(b.UpdatedAt)
	}
	if c != 0 {
		return c
	}
	switch {
	case a.ID < b.ID:
		return -1
	case a.ID > b.ID:
		return 1
	}
	return 0
}

// SetUserState blocks or unblocks a user.
func (d *Data) SetUserState(u *User, state string) {
	d.Touch(u)
	u.State = state
	u.UpdatedAt = d.Now()
	d.cache.drop()
}

// DeleteUser removes a user, their tokens, memberships, requests and personal projects.
func (d *Data) DeleteUser(u *User) {
	for k := range d.members {
		if k.User == u.ID {
			d.touchKey(tMembers, k)
			delete(d.members, k)
		}
	}
	for k := range d.requests {
		if k.User == u.ID {
			d.touchKey(tRequests, k)
			delete(d.requests, k)
		}
	}
	for s, t := range d.tokens {
		if t.UserID == u.ID {
			d.Touch(t)
			delete(d.tokens, s)
		}
	}
	for _, p := range d.projects {
		if p.NamespaceID == u.NamespaceID {
			d.deleteProject(p)
		}
	}
	d.Touch(u)
	d.touchKey(tUserNamespaces, u.NamespaceID)
	d.dropUserTodos(u.ID)
	delete(d.userNS, u.NamespaceID)
	delete(d.userByID, u.ID)
	delete(d.userByName, strings.ToLower(u.Username))
	delete(d.userByEmail, strings.ToLower(u.Email))
	for i, x := range d.users {
		if x == u {
			d.users = append(d.users[:i:i], d.users[i+1:]...)
			break
		}
	}
	d.cache.drop()
}

// CreateToken issues a personal access token. An empty secret draws a random one.
func (d *Data) CreateToken(u *User, name string, scopes []string, expires *time.Time, secret string) (*Token, error) {
	v := tokenErrors(name, scopes)
	if secret != "" && d.tokens[secret] != nil {
		v.Fields["token"] = []string{"has already been taken"}
	}
	if len(v.Fields) > 0 {
		return nil, v
	}
	if secret == "" {
		secret = NewSecret("glpat-")
	}
	t := &Token{ID: d.next("token"), Name: name, Secret: secret, UserID: u.ID,
		Scopes: append([]string(nil), scopes...), CreatedAt: d.Now(), ExpiresAt: expires}
	d.tokens[secret] = t
	d.Touch(t)
	return t, nil
}

// tokenErrors validates a token's name and scopes.
func tokenErrors(name string, scopes []string) *ValidationError {
	v := &ValidationError{Fields: map[string][]string{}}
	if name == "" {
		v.Fields["name"] = []string{"can't be blank"}
	}
	if len(scopes) == 0 {
		v.Fields["scopes"] = []string{"can't be blank"}
	}
	for _, s := range scopes {
		if !KnownScope(s) {
			v.Fields["scopes"] = append(v.Fields["scopes"], "can only contain available scopes")
			break
		}
	}
	return v
}

// TokensOf returns u's personal access tokens, oldest first.
func (d *Data) TokensOf(u *User) []*Token {
	var out []*Token
	for _, t := range d.tokens {
		if t.UserID == u.ID {
			out = append(out, t)
		}
	}
	sortByID(out, func(t *Token) int { return t.ID })
	return out
}

// KnownScope reports whether s is a token scope the reference knows.
func KnownScope(s string) bool {
	switch s {
	case "api", "read_api", "read_user", "read_repository", "write_repository",
		"read_registry", "write_registry", "sudo", "admin_mode", "create_runner", "manage_runner", "ai_features", "k8s_proxy":
		return true
	}
	return false
}

// TokenBySecret returns the token with that secret.
func (d *Data) TokenBySecret(secret string) *Token { return d.tokens[secret] }

// NewSecret returns a random token with prefix.
func NewSecret(prefix string) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // the system's random source failing is not recoverable
	}
	return prefix + hex.EncodeToString(b[:])
}

// JobToken is the credential of one running CI job: it acts as the user who
// started the job, on the endpoints that accept job tokens (Authentication 2).
type JobToken struct {
	Secret    string
	JobID     int
	ProjectID int
	UserID    int
}

// AddJobToken registers the token of a job; jobs call it when they start.
func (d *Data) AddJobToken(t *JobToken) {
	if d.jobTokens == nil {
		d.jobTokens = map[string]*JobToken{}
	}
	d.jobTokens[t.Secret] = t
	d.Touch(t)
}

// RemoveJobToken forgets a job's token; it dies with the job.
func (d *Data) RemoveJobToken(secret string) {
	d.touchKey(tJobTokens, secret)
	delete(d.jobTokens, secret)
}

// JobTokenBySecret returns the job token with that secret.
func (d *Data) JobTokenBySecret(secret string) *JobToken { return d.jobTokens[secret] }

// PasswordCost is the bcrypt cost of stored passwords. The reference is a
// fake for loopback and CI, where suites create ten thousand users with
// passwords; the minimum cost keeps that at about a millisecond a user
// (bcrypt's default, 10, costs about 70 ms here) while still never keeping a
// password in the clear.
const PasswordCost = bcrypt.MinCost

// HashPassword returns the hash CheckPassword verifies.
func HashPassword(password string) []byte {
	h, err := bcrypt.GenerateFromPassword([]byte(password), PasswordCost)
	if err != nil {
		return nil // longer than bcrypt's 72 bytes: no password login, tokens still work
	}
	return h
}

// CheckPassword reports whether password is u's password.
func (u *User) CheckPassword(password string) bool {
	return u.PasswordHash != nil && bcrypt.CompareHashAndPassword(u.PasswordHash, []byte(password)) == nil
}

// CIUsername is the user name that goes with a CI job token in HTTP basic
// credentials (registry logins and git over HTTP).
const CIUsername = "gitlab-ci-token"

// BasicCaller is who HTTP basic credentials name, and with what.
type BasicCaller struct {
	User     *User
	Token    *Token    // a personal access token was the secret
	JobToken *JobToken // CIUsername with a CI job token
	Password bool      // the user's password was the secret
}

// GitCaller authenticates the HTTP basic credentials of git over HTTP the
// way the platform does, trying in its order (lib/gitlab/auth.rb
// find_for_git_client, gitlabhq @1f75a144 and master:
// build_access_token_check, then personal_access_token_check, then
// user_with_password_for_git):
//   - CIUsername with the secret of a running job's token;
//   - an active personal access token under ANY user name: the platform's
//     personal_access_token_check looks the token up by its secret alone and
//     never reads the login, so `oauth2:<token>` (Renovate, glab),
//     `gitlab-ci-token:<token>` (semantic-release) and `<anyone>:<token>` all
//     act as the token's owner;
//   - a user's name with their password.
//
// A blocked user, an unknown name or a wrong secret gives false.
func (d *Data) GitCaller(username, secret string) (BasicCaller, bool) {
	return d.basicCaller(username, secret, true)
}

// BasicCaller authenticates the HTTP basic credentials of a registry login:
// CIUsername with a CI job token, or a user's name with one of their active
// personal access tokens or their password. Unlike GitCaller a token must be
// the named user's: rule registry.native.auth.2 reads a user's name with
// another user's token as wrong credentials (the platform's JwtController
// also goes through find_for_git_client, and would not).
func (d *Data) BasicCaller(username, secret string) (BasicCaller, bool) {
	return d.basicCaller(username, secret, false)
}

func (d *Data) basicCaller(username, secret string, tokenUnderAnyName bool) (BasicCaller, bool) {
	if secret == "" {
		return BasicCaller{}, false
	}
	if username == CIUsername {
		if jt := d.JobTokenBySecret(secret); jt != nil {
			u := d.User(jt.UserID)
			if u == nil || !u.Active() {
				return BasicCaller{}, false
			}
			return BasicCaller{User: u, JobToken: jt}, true
		}
		if !tokenUnderAnyName {
			return BasicCaller{}, false
		}
		// Not a job token: the platform goes on to the other checks.
	}
	if t := d.TokenBySecret(secret); t != nil && t.Active(d.Now()) {
		u := d.User(t.UserID)
		if u == nil || !u.Active() || (!tokenUnderAnyName && u.Username != username) {
			return BasicCaller{}, false
		}
		return BasicCaller{User: u, Token: t}, true
	}
	if u := d.UserByUsername(username); u != nil && u.Active() && u.CheckPassword(secret) {
		return BasicCaller{User: u, Password: true}, true
	}
	return BasicCaller{}, false
}

// Allows reports whether the credentials may be used for something that
// needs one of scopes: a password or a job token carries every scope the
// user's role allows, a personal access token only those it was given.
func (b BasicCaller) Allows(scopes ...string) bool {
	return b.Token == nil || b.Token.HasScope(scopes...)
}
