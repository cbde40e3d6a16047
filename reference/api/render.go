package api

import (
	"sort"
	"time"

	"github.com/v4cert/v4cert/reference/store"
)

// view renders domain objects as the spec's resources for one caller. It is
// used under the store's lock.
type view struct {
	d      *store.Data
	base   string
	caller *store.User
}

func (c *Ctx) view(d *store.Data) *view { return &view{d: d, base: c.base, caller: c.Caller} }

// ts formats a datetime as the platform does: UTC with milliseconds.
// The kinds of view a list keeps encoded between writes (store.ViewKey.Kind).
const (
	viewUser uint8 = iota + 1
	viewProject
	viewGroup
	viewMember
	viewJob
)

// flag is 1 for true: a view variant's bit (store.ViewKey.Variant).
func flag(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ts(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func tsPtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := ts(*t)
	return &s
}

func datePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := t.Format("2006-01-02")
	return &s
}

// UserRef is the embedded user reference of the spec.
type UserRef struct {
	ID        int     `json:"id"`
	Username  string  `json:"username"`
	Name      string  `json:"name"`
	State     string  `json:"state"`
	Locked    bool    `json:"locked"`
	AvatarURL *string `json:"avatar_url"`
	WebURL    string  `json:"web_url"`
}

func (v *view) userRef(u *store.User) UserRef {
	return UserRef{ID: u.ID, Username: u.Username, Name: u.Name, State: u.State, Locked: u.Locked,
		WebURL: v.base + "/" + u.Username}
}

func (v *view) userRefByID(id int) *UserRef {
	u := v.d.User(id)
	if u == nil {
		return nil
	}
	r := v.userRef(u)
	return &r
}

// UserSingle is the single-user form a signed-in caller sees.
type UserSingle struct {
	UserRef
	CreatedAt       string  `json:"created_at"`
	Bio             string  `json:"bio"`
	Bot             bool    `json:"bot"`
	Location        string  `json:"location"`
	PublicEmail     *string `json:"public_email"`
	Skype           string  `json:"skype"`
	Linkedin        string  `json:"linkedin"`
	Twitter         string  `json:"twitter"`
	Discord         string  `json:"discord"`
	WebsiteURL      string  `json:"website_url"`
	Organization    string  `json:"organization"`
	JobTitle        string  `json:"job_title"`
	Pronouns        *string `json:"pronouns"`
	WorkInformation *string `json:"work_information"`
	Followers       int     `json:"followers"`
	Following       int     `json:"following"`
	LocalTime       *string `json:"local_time"`
	IsFollowed      bool    `json:"is_followed"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func (v *view) userSingle(u *store.User) UserSingle {
	s := UserSingle{UserRef: v.userRef(u), CreatedAt: ts(u.CreatedAt), Bot: !u.Human()}
	if u.PrivateProfile && (v.caller == nil || (!v.caller.Admin && v.caller.ID != u.ID)) {
		return s // a private profile shows only its reference and creation date
	}
	s.Bio, s.Location, s.PublicEmail = u.Bio, u.Location, strOrNil(u.PublicEmail)
	s.Skype, s.Linkedin, s.Twitter, s.WebsiteURL = u.Skype, u.Linkedin, u.Twitter, u.WebsiteURL
	s.Organization, s.JobTitle, s.Pronouns = u.Organization, u.JobTitle, strOrNil(u.Pronouns)
	if u.Organization != "" || u.JobTitle != "" {
		w := u.JobTitle
		if u.Organization != "" {
			if w != "" {
				w += " at "
			}
			w += u.Organization
		}
		s.WorkInformation = &w
	}
	return s
}

// IdentityJSON is one external identity of a user.
type IdentityJSON struct {
	Provider       string `json:"provider"`
	ExternUID      string `json:"extern_uid"`
	SAMLProviderID *int   `json:"saml_provider_id"`
}

// UserAdmin is the administrator view of a user.
type UserAdmin struct {
	UserSingle
	Email               string         `json:"email"`
	IsAdmin             bool           `json:"is_admin"`
	IsAuditor           bool           `json:"is_auditor"`
	LastSignInAt        *string        `json:"last_sign_in_at"`
	ConfirmedAt         *string        `json:"confirmed_at"`
	ThemeID             int            `json:"theme_id"`
	LastActivityOn      *string        `json:"last_activity_on"`
	ColorSchemeID       int            `json:"color_scheme_id"`
	ProjectsLimit       int            `json:"projects_limit"`
	CurrentSignInAt     *string        `json:"current_sign_in_at"`
	Note                *string        `json:"note"`
	Identities          []IdentityJSON `json:"identities"`
	CanCreateGroup      bool           `json:"can_create_group"`
	CanCreateProject    bool           `json:"can_create_project"`
	TwoFactorEnabled    bool           `json:"two_factor_enabled"`
	External            bool           `json:"external"`
	PrivateProfile      bool           `json:"private_profile"`
	CommitEmail         string         `json:"commit_email"`
	CurrentSignInIP     *string        `json:"current_sign_in_ip"`
	LastSignInIP        *string        `json:"last_sign_in_ip"`
	NamespaceID         int            `json:"namespace_id"`
	CreatedBy           *UserRef       `json:"created_by"`
	EmailResetOfferedAt *string        `json:"email_reset_offered_at"`
	SignInCount         int            `json:"sign_in_count"`
	UsingLicenseSeat    bool           `json:"using_license_seat"`
	// CustomAttributes is filled only with with_custom_attributes=true.
	CustomAttributes []map[string]string `json:"custom_attributes,omitempty"`
}

func (v *view) userAdmin(u *store.User) UserAdmin {
	a := UserAdmin{
		UserSingle: v.userSingle(u), Email: u.Email, IsAdmin: u.Admin, IsAuditor: u.Auditor,
		ConfirmedAt: tsPtr(u.ConfirmedAt), ThemeID: u.ThemeID, LastActivityOn: datePtr(u.LastActivityOn),
		ColorSchemeID: u.ColorSchemeID, ProjectsLimit: u.ProjectsLimit, CurrentSignInAt: tsPtr(u.CurrentSignInAt),
		LastSignInAt: tsPtr(u.CurrentSignInAt), Note: strOrNil(u.Note), Identities: []IdentityJSON{},
		CanCreateGroup: u.CanCreateGroup, CanCreateProject: u.CanCreateProject, TwoFactorEnabled: u.TwoFactor,
		External: u.External, PrivateProfile: u.PrivateProfile, CommitEmail: u.Email,
		NamespaceID: u.NamespaceID, UsingLicenseSeat: u.Human() && u.Active(),
	}
	for _, id := range u.Identities {
		a.Identities = append(a.Identities, IdentityJSON{Provider: id.Provider, ExternUID: id.ExternUID, SAMLProviderID: id.SAMLProviderID})
	}
	if u.CreatedByID != 0 {
		a.CreatedBy = v.userRefByID(u.CreatedByID)
	}
	return a
}

// customAttributes renders a custom attribute map as [{key, value}] sorted by key.
func customAttributes(m map[string]string) []map[string]string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]map[string]string, 0, len(keys))
	for _, k := range keys {
		out = append(out, map[string]string{"key": k, "value": m[k]})
	}
	return out
}

// NamespaceJSON is the namespace embedded in a project.
type NamespaceJSON struct {
	ID        int     `json:"id"`
	Name      string  `json:"name"`
	Path      string  `json:"path"`
	Kind      string  `json:"kind"`
	FullPath  string  `json:"full_path"`
	ParentID  *int    `json:"parent_id"`
	AvatarURL *string `json:"avatar_url"`
	WebURL    string  `json:"web_url"`
}

// SharedWithGroup is one entry of shared_with_groups.
type SharedWithGroup struct {
	GroupID          int     `json:"group_id"`
	GroupName        string  `json:"group_name"`
	GroupFullPath    string  `json:"group_full_path"`
	GroupAccessLevel int     `json:"group_access_level"`
	ExpiresAt        *string `json:"expires_at"`
}

// ProjectSimpleJSON is the simple form of a project (GET /groups/:id/projects?simple=true);
// the full form embeds it, so the two cannot drift apart.
type ProjectSimpleJSON struct {
	ID                int           `json:"id"`
	Description       *string       `json:"description"`
	Name              string        `json:"name"`
	NameWithNamespace string        `json:"name_with_namespace"`
	Path              string        `json:"path"`
	PathWithNamespace string        `json:"path_with_namespace"`
	CreatedAt         string        `json:"created_at"`
	DefaultBranch     *string       `json:"default_branch"`
	TagList           []string      `json:"tag_list"`
	Topics            []string      `json:"topics"`
	SSHURLToRepo      string        `json:"ssh_url_to_repo"`
	HTTPURLToRepo     string        `json:"http_url_to_repo"`
	WebURL            string        `json:"web_url"`
	AvatarURL         *string       `json:"avatar_url"`
	StarCount         int           `json:"star_count"`
	ForksCount        int           `json:"forks_count"`
	LastActivityAt    string        `json:"last_activity_at"`
	Namespace         NamespaceJSON `json:"namespace"`
	// CustomAttributes is filled only with with_custom_attributes=true.
	CustomAttributes []map[string]string `json:"custom_attributes,omitempty"`
}

// ProjectJSON is a project as group listings and provisioning answer it.
type ProjectJSON struct {
	ProjectSimpleJSON
	Archived                     bool              `json:"archived"`
	Visibility                   string            `json:"visibility"`
	IssuesEnabled                bool              `json:"issues_enabled"`
	MergeRequestsEnabled         bool              `json:"merge_requests_enabled"`
	WikiEnabled                  bool              `json:"wiki_enabled"`
	JobsEnabled                  bool              `json:"jobs_enabled"`
	SnippetsEnabled              bool              `json:"snippets_enabled"`
	ContainerRegistryEnabled     bool              `json:"container_registry_enabled"`
	ContainerRegistryAccessLevel string            `json:"container_registry_access_level"`
	SharedRunnersEnabled         bool              `json:"shared_runners_enabled"`
	CreatorID                    int               `json:"creator_id"`
	OpenIssuesCount              int               `json:"open_issues_count"`
	PublicJobs                   bool              `json:"public_jobs"`
	SharedWithGroups             []SharedWithGroup `json:"shared_with_groups"`
	RequestAccessEnabled         bool              `json:"request_access_enabled"`
	EmptyRepo                    bool              `json:"empty_repo"`
	MergeMethod                  string            `json:"merge_method"`
}

func (v *view) namespace(id int) NamespaceJSON {
	ns := v.d.Namespace(id)
	if ns == nil {
		return NamespaceJSON{ID: id}
	}
	out := NamespaceJSON{ID: ns.ID, Name: ns.Name, Path: ns.Path, Kind: ns.Kind, FullPath: ns.Full, WebURL: v.base + "/" + ns.Full}
	if ns.Group != nil && ns.Group.ParentID != 0 {
		p := ns.Group.ParentID
		out.ParentID = &p
	}
	if ns.Group != nil {
		out.WebURL = v.base + "/groups/" + ns.Full
	}
	return out
}

func (v *view) sharedWith(t store.SourceType, id int) []SharedWithGroup {
	out := []SharedWithGroup{}
	for _, l := range v.d.LinksOf(t, id) {
		g := v.d.Group(l.GroupID)
		if g == nil {
			continue
		}
		out = append(out, SharedWithGroup{GroupID: g.ID, GroupName: g.Name, GroupFullPath: v.d.FullPath(g),
			GroupAccessLevel: int(l.Access), ExpiresAt: datePtr(l.ExpiresAt)})
	}
	return out
}

func (v *view) project(p *store.Project) ProjectJSON {
	full := v.d.ProjectFullPath(p)
	topics := append([]string{}, p.Topics...)
	out := ProjectJSON{
		ProjectSimpleJSON: ProjectSimpleJSON{
			ID: p.ID, Description: &p.Description, Name: p.Name, NameWithNamespace: v.d.ProjectFullName(p),
			Path: p.Path, PathWithNamespace: full, CreatedAt: ts(p.CreatedAt), DefaultBranch: strOrNil(p.DefaultBranch),
			TagList: topics, Topics: topics,
			SSHURLToRepo: "git@" + hostOf(v.base) + ":" + full + ".git", HTTPURLToRepo: v.base + "/" + full + ".git",
			WebURL: v.base + "/" + full, StarCount: p.StarCount, ForksCount: p.ForksCount,
			LastActivityAt: ts(p.LastActivityAt), Namespace: v.namespace(p.NamespaceID),
		},
		Archived:   p.Archived,
		Visibility: p.Visibility, IssuesEnabled: p.IssuesEnabled, MergeRequestsEnabled: p.MergeRequestsEnabled,
		WikiEnabled: p.WikiEnabled, JobsEnabled: p.JobsEnabled, SnippetsEnabled: p.SnippetsEnabled,
		ContainerRegistryEnabled:     p.ContainerRegistryAccessLevel != "disabled",
		ContainerRegistryAccessLevel: p.ContainerRegistryAccessLevel, SharedRunnersEnabled: p.SharedRunnersEnabled,
		CreatorID: p.CreatorID, OpenIssuesCount: p.OpenIssuesCount, PublicJobs: p.PublicJobs,
		SharedWithGroups: v.sharedWith(store.SourceProject, p.ID), RequestAccessEnabled: p.RequestAccessEnabled,
		EmptyRepo: p.EmptyRepo, MergeMethod: p.MergeMethod,
	}
	if out.MergeMethod == "" {
		out.MergeMethod = store.MergeMethodMerge
	}
	return out
}

func hostOf(base string) string {
	for _, prefix := range []string{"https://", "http://"} {
		if len(base) > len(prefix) && base[:len(prefix)] == prefix {
			base = base[len(prefix):]
		}
	}
	for i := 0; i < len(base); i++ {
		if base[i] == ':' || base[i] == '/' {
			return base[:i]
		}
	}
	return base
}
