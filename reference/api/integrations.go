package api

import (
	"net/http"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// IntegrationJSON is the platform's integration resource (Resources, Integration);
// Properties is present on single-integration reads only.
type IntegrationJSON struct {
	ID                       int            `json:"id"`
	Title                    string         `json:"title"`
	Slug                     string         `json:"slug"`
	CreatedAt                string         `json:"created_at"`
	UpdatedAt                string         `json:"updated_at"`
	Active                   bool           `json:"active"`
	CommitEvents             bool           `json:"commit_events"`
	PushEvents               bool           `json:"push_events"`
	IssuesEvents             bool           `json:"issues_events"`
	AlertEvents              bool           `json:"alert_events"`
	ConfidentialIssuesEvents bool           `json:"confidential_issues_events"`
	MergeRequestsEvents      bool           `json:"merge_requests_events"`
	TagPushEvents            bool           `json:"tag_push_events"`
	DeploymentEvents         bool           `json:"deployment_events"`
	NoteEvents               bool           `json:"note_events"`
	ConfidentialNoteEvents   bool           `json:"confidential_note_events"`
	PipelineEvents           bool           `json:"pipeline_events"`
	WikiPageEvents           bool           `json:"wiki_page_events"`
	JobEvents                bool           `json:"job_events"`
	CommentOnEventEnabled    bool           `json:"comment_on_event_enabled"`
	Inherited                bool           `json:"inherited"`
	Properties               map[string]any `json:"properties,omitempty"`
}

func integrationJSON(in *store.Integration, detail bool) IntegrationJSON {
	e := in.Events
	j := IntegrationJSON{ID: in.ID, Title: in.Kind.Title, Slug: in.Kind.Slug, CreatedAt: ts(in.CreatedAt),
		UpdatedAt: ts(in.UpdatedAt), Active: in.Active, CommitEvents: e["commit_events"], PushEvents: e["push_events"],
		IssuesEvents: e["issues_events"], AlertEvents: e["alert_events"],
		ConfidentialIssuesEvents: e["confidential_issues_events"], MergeRequestsEvents: e["merge_requests_events"],
		TagPushEvents: e["tag_push_events"], DeploymentEvents: e["deployment_events"], NoteEvents: e["note_events"],
		ConfidentialNoteEvents: e["confidential_note_events"], PipelineEvents: e["pipeline_events"],
		WikiPageEvents: e["wiki_page_events"], JobEvents: e["job_events"], CommentOnEventEnabled: true,
		Inherited: in.InheritFromID != 0}
	if detail {
		// Secret settings are write-only, as on the platform.
		j.Properties = map[string]any{}
		for _, f := range in.Kind.Fields {
			if !f.Secret {
				j.Properties[f.Name] = in.Settings[f.Name]
			}
		}
	}
	return j
}

// integrationProject resolves the project of an integrations endpoint; every
// one of them needs Maintainer or Owner (Authentication 7).
func (c *Ctx) integrationProject(d *store.Data) (*store.Project, error) {
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, err
	}
	if err := c.requireProjectRole(d, p, access.Maintainer); err != nil {
		return nil, err
	}
	return p, nil
}

// integrationKind reads the :slug of GET and DELETE, which the platform
// validates against the kinds it knows (400, not 404).
func (c *Ctx) integrationKind() (*store.IntegrationKind, error) {
	k := store.IntegrationKindBySlug(c.R.PathValue("slug"))
	if k == nil {
		e := badRequest("slug does not have a valid value")
		e.Body["error"] = "slug does not have a valid value"
		return nil, e
	}
	return k, nil
}

// listIntegrations implements GET /projects/:id/integrations
// (integrations.list.1-3, integrations.access.1); paginated like every list
// (Endpoints convention 8).
func (s *Server) listIntegrations(c *Ctx) error {
	var out []IntegrationJSON
	err := s.store.Read(func(d *store.Data) error {
		p, err := c.integrationProject(d)
		if err != nil {
			return err
		}
		out = []IntegrationJSON{}
		for _, in := range d.Integrations(p.ID) {
			out = append(out, integrationJSON(in, false))
		}
		return nil
	})
	if err != nil {
		return err
	}
	page, err := Paginate(c, out, nil, func(j IntegrationJSON) IntegrationJSON { return j })
	if err != nil {
		return err
	}
	return c.JSONPage(page)
}

// setIntegration implements PUT /projects/:id/integrations/:slug
// (integrations.set.*, integrations.access.2).
func (s *Server) setIntegration(c *Ctx) error {
	var out IntegrationJSON
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.integrationProject(d)
		if err != nil {
			return err
		}
		// PUT exists only for the kinds the platform knows: any other slug
		// matches no route.
		k := store.IntegrationKindBySlug(c.R.PathValue("slug"))
		if k == nil {
			return routeNotFound()
		}
		in := c.In()
		for _, f := range k.Fields {
			if f.Required {
				in.Require(f.Name)
			}
		}
		set := store.IntegrationSettings{Settings: map[string]any{}, Events: map[string]bool{}}
		for _, f := range k.Fields {
			switch {
			case f.Type == "boolean":
				if b := in.Bool(f.Name); b != nil {
					set.Settings[f.Name] = *b
				}
			case f.Values != nil:
				if v := in.Enum(f.Name, f.Values...); v != nil {
					set.Settings[f.Name] = *v
				}
			default:
				if v := in.String(f.Name); v != nil {
					set.Settings[f.Name] = *v
				}
			}
		}
		for _, ev := range k.Events {
			if b := in.Bool(ev); b != nil {
				set.Events[ev] = *b
			}
		}
		// Every kind accepts use_inherited_settings; with no group or
		// instance settings to inherit, there is nothing to switch to.
		in.Bool("use_inherited_settings")
		if err := in.Err(); err != nil {
			return err
		}
		it, err := d.SetIntegration(p.ID, k, set)
		if err != nil {
			return err
		}
		out = integrationJSON(it, true)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// getIntegration implements GET /projects/:id/integrations/:slug
// (integrations.get.*, integrations.access.3).
func (s *Server) getIntegration(c *Ctx) error {
	var out IntegrationJSON
	err := s.store.Read(func(d *store.Data) error {
		p, err := c.integrationProject(d)
		if err != nil {
			return err
		}
		k, err := c.integrationKind()
		if err != nil {
			return err
		}
		it := d.Integration(p.ID, k.Slug)
		if it == nil {
			return notFound("Integration")
		}
		out = integrationJSON(it, true)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// disableIntegration implements DELETE /projects/:id/integrations/:slug
// (integrations.disable.*, integrations.access.4).
func (s *Server) disableIntegration(c *Ctx) error {
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.integrationProject(d)
		if err != nil {
			return err
		}
		k, err := c.integrationKind()
		if err != nil {
			return err
		}
		if err := d.DisableIntegration(p.ID, k.Slug); err != nil {
			return notFound("Integration")
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}
