package store

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
)

// IntegrationField is one setting a kind of integration accepts on PUT.
type IntegrationField struct {
	Name     string
	Type     string // string or boolean
	Required bool
	Default  any
	Values   []string // the allowed values of an enumerated string
	// Secret settings are written, never read back (the platform leaves
	// passwords, tokens, keys and chat webhooks out of `properties`).
	Secret bool
	URL    bool // must be an http or https URL
}

// IntegrationKind is a kind of integration: its slug, its settings and the
// event switches it lets a caller set.
type IntegrationKind struct {
	Slug   string
	Title  string
	Fields []IntegrationField
	Events []string // names of the <event>_events switches it accepts
}

// IntegrationEvents are the event switches every integration exposes
// (Resources, Integration; Events), with the platform's column defaults.
var IntegrationEvents = []struct {
	Name    string
	Default bool
}{
	{"commit_events", true}, {"push_events", true}, {"issues_events", true}, {"alert_events", true},
	{"confidential_issues_events", true}, {"merge_requests_events", true}, {"tag_push_events", true},
	{"deployment_events", false}, {"note_events", true}, {"confidential_note_events", true},
	{"pipeline_events", true}, {"wiki_page_events", true}, {"job_events", true}, {"incidents_events", false},
}

var branchesToBeNotified = []string{"all", "default", "protected", "default_and_protected"}

// chatEvents are the events a chat-notification kind can announce, each with
// a switch and a channel override (Endpoints, Integrations: chat-notification kinds).
var chatEvents = []struct{ switchName, channel string }{
	{"alert_events", "alert_channel"}, {"commit_events", "commit_channel"},
	{"confidential_issues_events", "confidential_issue_channel"}, {"confidential_note_events", "confidential_note_channel"},
	{"deployment_events", "deployment_channel"}, {"incidents_events", "incident_channel"},
	{"issues_events", "issue_channel"}, {"job_events", "job_channel"},
	{"merge_requests_events", "merge_request_channel"}, {"note_events", "note_channel"},
	{"pipeline_events", "pipeline_channel"}, {"push_events", "push_channel"},
	{"tag_push_events", "tag_push_channel"}, {"wiki_page_events", "wiki_page_channel"},
}

func slackKind() *IntegrationKind {
	k := &IntegrationKind{Slug: "slack", Title: "Slack notifications", Fields: []IntegrationField{
		{Name: "webhook", Type: "string", Required: true, Secret: true},
		{Name: "username", Type: "string"},
		{Name: "channel", Type: "string"},
		{Name: "notify_only_broken_pipelines", Type: "boolean", Default: true},
		{Name: "branches_to_be_notified", Type: "string", Values: branchesToBeNotified, Default: "default"},
		{Name: "labels_to_be_notified", Type: "string"},
		{Name: "labels_to_be_notified_behavior", Type: "string", Values: []string{"match_any", "match_all"}, Default: "match_any"},
	}}
	for _, e := range chatEvents {
		k.Events = append(k.Events, e.switchName)
		k.Fields = append(k.Fields, IntegrationField{Name: e.channel, Type: "string"})
	}
	return k
}

// MarshalJSON stores a kind by its slug (persistence): the catalogue is code.
func (k *IntegrationKind) MarshalJSON() ([]byte, error) { return json.Marshal(k.Slug) }

// UnmarshalJSON reads a kind stored by its slug back from the catalogue.
func (k *IntegrationKind) UnmarshalJSON(b []byte) error {
	var slug string
	if err := json.Unmarshal(b, &slug); err != nil {
		return err
	}
	known := IntegrationKindBySlug(slug)
	if known == nil {
		return fmt.Errorf("unknown integration kind %q", slug)
	}
	*k = *known
	return nil
}

// IntegrationKinds is the catalogue of kinds the reference implements: the two
// slugs the spec names, one chat-notification kind and one build-system kind.
var IntegrationKinds = []*IntegrationKind{
	{Slug: "custom-issue-tracker", Title: "Custom issue tracker", Fields: []IntegrationField{
		{Name: "new_issue_url", Type: "string", URL: true},
		{Name: "issues_url", Type: "string", Required: true, URL: true},
		{Name: "project_url", Type: "string", Required: true, URL: true},
	}},
	{Slug: "drone-ci", Title: "Drone", Fields: []IntegrationField{
		{Name: "token", Type: "string", Required: true, Secret: true},
		{Name: "drone_url", Type: "string", Required: true, URL: true},
		{Name: "enable_ssl_verification", Type: "boolean", Default: true},
	}, Events: []string{"push_events", "merge_requests_events", "tag_push_events"}},
	{Slug: "pipelines-email", Title: "Pipeline status emails", Fields: []IntegrationField{
		{Name: "recipients", Type: "string", Required: true},
		{Name: "notify_only_broken_pipelines", Type: "boolean", Default: true},
		{Name: "notify_only_default_branch", Type: "boolean", Default: false},
		{Name: "branches_to_be_notified", Type: "string", Values: branchesToBeNotified, Default: "default"},
	}, Events: []string{"pipeline_events"}},
	slackKind(),
}

// IntegrationKindBySlug returns the kind named by slug, or nil.
func IntegrationKindBySlug(slug string) *IntegrationKind {
	for _, k := range IntegrationKinds {
		if k.Slug == slug {
			return k
		}
	}
	return nil
}

// Integration is a project's integration of one kind. It exists from its first
// PUT on; DELETE deactivates it and resets its settings.
type Integration struct {
	ID        int
	ProjectID int
	Kind      *IntegrationKind
	Active    bool
	CreatedAt time.Time
	UpdatedAt time.Time
	Settings  map[string]any // by field name; absent means null
	Events    map[string]bool
	// InheritFromID is the group or instance integration it inherits from;
	// the reference has neither, so it stays 0.
	InheritFromID int
}

// Integrations lists the active integrations of a project, oldest first.
func (d *Data) Integrations(projectID int) []*Integration {
	var out []*Integration
	for _, in := range d.integrations[projectID] {
		if in.Active {
			out = append(out, in)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Integration returns the project's integration of the kind slug, or nil when
// it was never set up.
func (d *Data) Integration(projectID int, slug string) *Integration {
	return d.integrations[projectID][slug]
}

// IntegrationSettings is what one PUT gives: settings and event switches by
// name, only those sent.
type IntegrationSettings struct {
	Settings map[string]any
	Events   map[string]bool
}

// SetIntegration sets up (or updates) and activates the project's integration
// of kind k. Settings not given keep their value, or take their default on
// the first set-up and after a reset.
func (d *Data) SetIntegration(projectID int, k *IntegrationKind, in IntegrationSettings) (*Integration, error) {
	cur := d.Integration(projectID, k.Slug)
	merged := map[string]any{}
	if cur != nil {
		for n, v := range cur.Settings {
			merged[n] = v
		}
	}
	for _, f := range k.Fields {
		if v, ok := in.Settings[f.Name]; ok {
			merged[f.Name] = v
		} else if _, ok := merged[f.Name]; !ok && f.Default != nil {
			merged[f.Name] = f.Default
		}
	}
	if err := validateIntegration(k, merged); err != nil {
		return nil, err
	}
	now := d.Now()
	if cur == nil {
		cur = &Integration{ID: d.next("integration"), ProjectID: projectID, Kind: k, CreatedAt: now, Events: map[string]bool{}}
		for _, e := range IntegrationEvents {
			cur.Events[e.Name] = e.Default
		}
		if d.integrations == nil {
			d.integrations = map[int]map[string]*Integration{}
		}
		if d.integrations[projectID] == nil {
			d.integrations[projectID] = map[string]*Integration{}
		}
		d.integrations[projectID][k.Slug] = cur
	}
	d.Touch(cur)
	cur.Settings = merged
	for n, v := range in.Events {
		cur.Events[n] = v
	}
	cur.Active = true
	cur.UpdatedAt = now
	return cur, nil
}

// validateIntegration checks what the platform's models check once an
// integration is active: required settings present, URLs well formed.
func validateIntegration(k *IntegrationKind, s map[string]any) error {
	for _, f := range k.Fields {
		v, _ := s[f.Name].(string)
		switch {
		case f.Required && strings.TrimSpace(v) == "":
			return Invalid(f.Name, "can't be blank")
		case f.URL && v != "" && !httpURL(v):
			return Invalid(f.Name, "must be a valid URL")
		}
	}
	return nil
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// DisableIntegration deactivates the project's integration of the kind slug
// and resets its settings; the record stays, as on the platform.
func (d *Data) DisableIntegration(projectID int, slug string) error {
	in := d.Integration(projectID, slug)
	if in == nil {
		return ErrNotFound
	}
	d.Touch(in)
	in.Active = false
	in.Settings = map[string]any{}
	in.UpdatedAt = d.Now()
	return nil
}

// DropIntegrations forgets a deleted project's integrations.
func (d *Data) DropIntegrations(projectID int) {
	d.touchKey(tIntegrations, projectID)
	delete(d.integrations, projectID)
}
