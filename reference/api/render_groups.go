package api

import (
	"github.com/v4cert/v4cert/reference/store"
)

// GroupJSON is a group as GET /groups/:id answers it; list entries add GroupListFields.
type GroupJSON struct {
	ID                              int               `json:"id"`
	WebURL                          string            `json:"web_url"`
	Name                            string            `json:"name"`
	Path                            string            `json:"path"`
	Description                     string            `json:"description"`
	Visibility                      string            `json:"visibility"`
	ShareWithGroupLock              bool              `json:"share_with_group_lock"`
	RequireTwoFactorAuthentication  bool              `json:"require_two_factor_authentication"`
	TwoFactorGracePeriod            int               `json:"two_factor_grace_period"`
	ProjectCreationLevel            string            `json:"project_creation_level"`
	AutoDevopsEnabled               *bool             `json:"auto_devops_enabled"`
	SubgroupCreationLevel           string            `json:"subgroup_creation_level"`
	EmailsDisabled                  bool              `json:"emails_disabled"`
	EmailsEnabled                   bool              `json:"emails_enabled"`
	MentionsDisabled                *bool             `json:"mentions_disabled"`
	LFSEnabled                      bool              `json:"lfs_enabled"`
	DefaultBranch                   *string           `json:"default_branch"`
	DefaultBranchProtection         int               `json:"default_branch_protection"`
	DefaultBranchProtectionDefaults map[string]any    `json:"default_branch_protection_defaults"`
	AvatarURL                       *string           `json:"avatar_url"`
	RequestAccessEnabled            bool              `json:"request_access_enabled"`
	RepositoryStorage               string            `json:"repository_storage"`
	FullName                        string            `json:"full_name"`
	FullPath                        string            `json:"full_path"`
	FileTemplateProjectID           *int              `json:"file_template_project_id"`
	ParentID                        *int              `json:"parent_id"`
	CreatedAt                       string            `json:"created_at"`
	IPRestrictionRanges             *string           `json:"ip_restriction_ranges"`
	MathRenderingLimitsEnabled      bool              `json:"math_rendering_limits_enabled"`
	LockMathRenderingLimitsEnabled  bool              `json:"lock_math_rendering_limits_enabled"`
	SharedWithGroups                []SharedWithGroup `json:"shared_with_groups"`
	// PreventSharingGroupsOutsideHierarchy exists on top-level groups only.
	PreventSharingGroupsOutsideHierarchy *bool `json:"prevent_sharing_groups_outside_hierarchy,omitempty"`
	// RunnersToken and EnabledGitAccessProtocol are shown to administrators and owners only.
	RunnersToken             *string `json:"runners_token,omitempty"`
	EnabledGitAccessProtocol *string `json:"enabled_git_access_protocol,omitempty"`
	// Projects and SharedProjects are deprecated (removal planned in API v5), at
	// most 100 each; nil omits them (with_projects=false and list entries).
	//
	// Deprecated: the spec plans their removal in API v5.
	Projects *[]ProjectJSON `json:"projects,omitempty"`
	// Deprecated: the spec plans its removal in API v5.
	SharedProjects   *[]ProjectJSON         `json:"shared_projects,omitempty"`
	Statistics       *GroupStatistics       `json:"statistics,omitempty"`
	RootStorageStats *RootStorageStatistics `json:"root_storage_statistics,omitempty"`
	// CustomAttributes is set (possibly empty) only with with_custom_attributes=true for administrators.
	CustomAttributes *[]map[string]string `json:"custom_attributes,omitempty"`
}

// GroupStatistics is the statistics object of a list entry (statistics=true, administrators).
type GroupStatistics struct {
	StorageSize           int64 `json:"storage_size"`
	RepositorySize        int64 `json:"repository_size"`
	WikiSize              int64 `json:"wiki_size"`
	LFSObjectsSize        int64 `json:"lfs_objects_size"`
	JobArtifactsSize      int64 `json:"job_artifacts_size"`
	PipelineArtifactsSize int64 `json:"pipeline_artifacts_size"`
	PackagesSize          int64 `json:"packages_size"`
	SnippetsSize          int64 `json:"snippets_size"`
	UploadsSize           int64 `json:"uploads_size"`
}

// RootStorageStatistics is root_storage_statistics, shown for top-level groups only.
type RootStorageStatistics struct {
	BuildArtifactsSize               int64 `json:"build_artifacts_size"`
	ContainerRegistrySize            int64 `json:"container_registry_size"`
	ContainerRegistrySizeIsEstimated bool  `json:"container_registry_size_is_estimated"`
	DependencyProxySize              int64 `json:"dependency_proxy_size"`
	LFSObjectsSize                   int64 `json:"lfs_objects_size"`
	PackagesSize                     int64 `json:"packages_size"`
	PipelineArtifactsSize            int64 `json:"pipeline_artifacts_size"`
	RepositorySize                   int64 `json:"repository_size"`
	SnippetsSize                     int64 `json:"snippets_size"`
	StorageSize                      int64 `json:"storage_size"`
	UploadsSize                      int64 `json:"uploads_size"`
	WikiSize                         int64 `json:"wiki_size"`
}

// group renders g; privileged adds the owner/administrator-only fields.
func (v *view) group(g *store.Group, privileged bool) GroupJSON {
	full := v.d.FullPath(g)
	out := GroupJSON{
		ID: g.ID, WebURL: v.base + "/groups/" + full, Name: g.Name, Path: g.Path, Description: g.Description,
		Visibility: g.Visibility, ShareWithGroupLock: g.ShareWithGroupLock,
		RequireTwoFactorAuthentication: g.RequireTwoFactor, TwoFactorGracePeriod: g.TwoFactorGracePeriod,
		ProjectCreationLevel: g.ProjectCreationLevel, SubgroupCreationLevel: g.SubgroupCreationLevel,
		EmailsDisabled: !g.EmailsEnabled, EmailsEnabled: g.EmailsEnabled, MentionsDisabled: &g.MentionsDisabled,
		LFSEnabled: g.LFSEnabled, DefaultBranch: strOrNil(g.DefaultBranch), DefaultBranchProtection: g.DefaultBranchProtection,
		DefaultBranchProtectionDefaults: map[string]any{
			"allowed_to_push":  []map[string]int{{"access_level": 40}},
			"allow_force_push": false,
			"allowed_to_merge": []map[string]int{{"access_level": 40}},
		},
		AvatarURL: strOrNil(g.AvatarURL), RequestAccessEnabled: g.RequestAccessEnabled, RepositoryStorage: store.GroupStorage,
		FullName: v.d.FullName(g), FullPath: full, CreatedAt: ts(g.CreatedAt),
		SharedWithGroups: v.sharedWith(store.SourceGroup, g.ID),
	}
	if g.ParentID != 0 {
		p := g.ParentID
		out.ParentID = &p
	} else {
		b := g.PreventSharingOutside
		out.PreventSharingGroupsOutsideHierarchy = &b
	}
	if privileged {
		tok, proto := g.RunnersToken, "all"
		out.RunnersToken, out.EnabledGitAccessProtocol = &tok, &proto
	}
	return out
}

// MemberJSON is the spec's Member resource.
type MemberJSON struct {
	ID                int      `json:"id"`
	Username          string   `json:"username"`
	Name              string   `json:"name"`
	State             string   `json:"state"`
	Locked            bool     `json:"locked"`
	AvatarURL         *string  `json:"avatar_url"`
	WebURL            string   `json:"web_url"`
	CreatedAt         string   `json:"created_at"`
	CreatedBy         *UserRef `json:"created_by,omitempty"`
	ExpiresAt         *string  `json:"expires_at"`
	AccessLevel       int      `json:"access_level"`
	Email             *string  `json:"email,omitempty"`
	GroupSAMLIdentity any      `json:"group_saml_identity"`
	MembershipState   string   `json:"membership_state"`
}

// member renders a membership with the level it grants (capped for invites).
func (v *view) member(m *store.Member, lv int) MemberJSON {
	u := v.d.User(m.UserID)
	out := MemberJSON{ID: m.UserID, CreatedAt: ts(m.CreatedAt), ExpiresAt: datePtr(m.ExpiresAt),
		AccessLevel: lv, MembershipState: "active"}
	if u != nil {
		r := v.userRef(u)
		out.Username, out.Name, out.State, out.Locked, out.AvatarURL, out.WebURL = r.Username, r.Name, r.State, r.Locked, r.AvatarURL, r.WebURL
		if v.caller != nil && v.caller.Admin {
			e := u.Email
			out.Email = &e
		}
	}
	if m.CreatedByID != 0 {
		out.CreatedBy = v.userRefByID(m.CreatedByID)
	}
	return out
}

// groupDetail renders GET /groups/:id: the group, owner-only fields when
// privileged, and (withProjects) the deprecated projects and shared_projects
// the caller may see, at most 100 each (rules groups.get.*).
func (v *view) groupDetail(g *store.Group, privileged, withProjects bool) GroupJSON {
	out := v.group(g, privileged)
	if withProjects {
		own := v.visibleProjects(v.d.GroupProjects(g, false))
		shared := v.visibleProjects(v.d.SharedProjects(g))
		out.Projects, out.SharedProjects = &own, &shared
	}
	return out
}

// groupDetailLimit is the spec's cap on projects and shared_projects (Limits).
const groupDetailLimit = 100

// visibleProjects renders the projects the caller may see, newest first as
// the platform lists them, keeping at most groupDetailLimit.
func (v *view) visibleProjects(ps []*store.Project) []ProjectJSON {
	out := []ProjectJSON{}
	for i := len(ps) - 1; i >= 0 && len(out) < groupDetailLimit; i-- {
		if v.d.CanSeeProject(v.caller, ps[i]) {
			out = append(out, v.project(ps[i]))
		}
	}
	return out
}

// groupEntry renders a GET /groups list entry: the list form, which never
// carries the owner-only fields, with statistics when asked by an administrator.
func (v *view) groupEntry(g *store.Group, statistics bool) GroupJSON {
	out := v.group(g, false)
	if statistics {
		// The in-memory reference stores no repository, wiki or artifact bytes,
		// so every size sums to zero; the shape is what the spec fixes.
		out.Statistics = &GroupStatistics{}
		if g.ParentID == 0 {
			out.RootStorageStats = &RootStorageStatistics{}
		}
	}
	return out
}

func (v *view) projectSimple(p *store.Project) ProjectSimpleJSON {
	return v.project(p).ProjectSimpleJSON
}
