package store

import (
	"errors"
	"path"
	"strings"
)

// Topic is a project topic.
type Topic struct {
	ID             int
	Name           string
	Title          string
	Description    *string
	OrganizationID int
	Avatar         *Avatar
	// AvatarVersion changes with every upload so that avatar URLs change too.
	AvatarVersion int
}

// Avatar is an uploaded image.
type Avatar struct {
	Filename string
	Content  []byte
}

// avatarFormats and maxAvatarBytes are the platform's avatar rules.
var avatarFormats = []string{"png", "jpg", "jpeg", "gif", "bmp", "tiff", "ico", "webp"}

const maxAvatarBytes = 200 * 1024

// The reasons a merge of topics is refused; the API answers them in the
// platform's words.
var (
	ErrTopicsIdentical    = errors.New("source and target topic are identical")
	ErrTopicsOrganization = errors.New("source and target topic belong to different organizations")
)

// DefaultOrganization is the organization every topic belongs to unless told otherwise.
const DefaultOrganization = 1

// TopicFields holds what POST and PUT /topics accept; nil means not given.
type TopicFields struct {
	Name, Title    *string
	Description    *string
	OrganizationID *int
	Avatar         *Avatar
	ClearAvatar    bool
}

// CreateTopic validates and stores a topic.
func (d *Data) CreateTopic(f TopicFields) (*Topic, error) {
	t := &Topic{OrganizationID: DefaultOrganization}
	if f.OrganizationID != nil {
		t.OrganizationID = *f.OrganizationID
	}
	if err := d.applyTopic(t, f, true); err != nil {
		return nil, err
	}
	t.ID = d.next("topic")
	d.topics[t.ID] = t
	d.Touch(t)
	return t, nil
}

// UpdateTopic validates and applies f.
func (d *Data) UpdateTopic(t *Topic, f TopicFields) error {
	return d.applyTopic(t, f, false)
}

func (d *Data) applyTopic(t *Topic, f TopicFields, create bool) error {
	v := &ValidationError{Fields: map[string][]string{}}
	if f.Name != nil {
		n := strings.TrimSpace(*f.Name)
		if n == "" {
			v.Fields["name"] = []string{"can't be blank"}
		} else if len(n) > 255 {
			v.Fields["name"] = []string{"is too long (maximum is 255 characters)"}
		} else if o := d.TopicByName(n, t.OrganizationID); o != nil && o != t {
			v.Fields["name"] = []string{"has already been taken"}
		}
	} else if create {
		v.Fields["name"] = []string{"can't be blank"}
	}
	// The title is validated on creation only, as the platform's model does
	// (validates :title, presence: true, length: { maximum: 255 }, on:
	// :create): an update may blank it. The spec makes the title required on
	// POST and optional on PUT and says no more (topics.update.5, class 2).
	// gitlabhq/gitlabhq app/models/projects/topic.rb @e6d27fce.
	if create && (f.Title == nil || strings.TrimSpace(*f.Title) == "") {
		v.Fields["title"] = []string{"can't be blank"}
	}
	if create && f.Title != nil && len(*f.Title) > 255 {
		v.Fields["title"] = []string{"is too long (maximum is 255 characters)"}
	}
	if f.Description != nil && len(*f.Description) > 1024 {
		v.Fields["description"] = []string{"is too long (maximum is 1024 characters)"}
	}
	if a := f.Avatar; a != nil && !f.ClearAvatar {
		ext := strings.ToLower(strings.TrimPrefix(path.Ext(a.Filename), "."))
		switch {
		case !containsFold(avatarFormats, ext):
			v.Fields["avatar"] = []string{"file format is not supported. Please try one of the following supported formats: " + strings.Join(avatarFormats, ", ")}
		case len(a.Content) > maxAvatarBytes:
			v.Fields["avatar"] = []string{"is too big (should be at most 200 KiB)"}
		}
	}
	if len(v.Fields) > 0 {
		return v
	}
	d.Touch(t)
	if f.Name != nil {
		old := t.Name
		t.Name = strings.TrimSpace(*f.Name)
		if !create && old != t.Name {
			d.renameTopic(t, old, t.Name)
		}
	}
	if f.Title != nil {
		t.Title = *f.Title
	}
	if f.Description != nil {
		desc := *f.Description
		t.Description = &desc
	}
	if f.ClearAvatar {
		t.Avatar = nil
	} else if f.Avatar != nil {
		t.Avatar = f.Avatar
		t.AvatarVersion++
	}
	return nil
}

func (d *Data) renameTopic(t *Topic, old, name string) {
	if t.OrganizationID != DefaultOrganization {
		return
	}
	for _, p := range d.projects {
		for i, n := range p.Topics {
			if strings.EqualFold(n, old) {
				d.Touch(p)
				p.Topics[i] = name
			}
		}
	}
}

// Topic returns the topic with id.
func (d *Data) Topic(id int) *Topic { return d.topics[id] }

// TopicByName finds a topic by name within an organization, case-insensitively.
func (d *Data) TopicByName(name string, org int) *Topic {
	for _, t := range d.topics {
		if t.OrganizationID == org && strings.EqualFold(t.Name, name) {
			return t
		}
	}
	return nil
}

// Topics returns every topic in id order, of every organization.
func (d *Data) Topics() []*Topic {
	out := make([]*Topic, 0, len(d.topics))
	for _, t := range d.topics {
		out = append(out, t)
	}
	sortByID(out, func(t *Topic) int { return t.ID })
	return out
}

// TopicProjects counts the projects assigned to t.
func (d *Data) TopicProjects(t *Topic) int { return len(d.projectsWithTopic(t)) }

// TopicCounts counts the projects of every topic at once, for listings.
func (d *Data) TopicCounts() map[int]int {
	byName := map[string]int{}
	for _, p := range d.projects {
		for _, n := range p.Topics {
			byName[strings.ToLower(n)]++
		}
	}
	out := make(map[int]int, len(d.topics))
	for id, t := range d.topics {
		if t.OrganizationID == DefaultOrganization {
			out[id] = byName[strings.ToLower(t.Name)]
		}
	}
	return out
}

// projectsWithTopic lists the projects carrying t. Projects keep topic names
// and all live in the default organization, so a topic of another
// organization has none even when it shares a name.
func (d *Data) projectsWithTopic(t *Topic) []*Project {
	if t.OrganizationID != DefaultOrganization {
		return nil
	}
	var out []*Project
	for _, p := range d.projects {
		if p.HasTopic(t.Name) {
			out = append(out, p)
		}
	}
	return out
}

// HasTopic reports whether p carries the topic name.
func (p *Project) HasTopic(name string) bool {
	for _, n := range p.Topics {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// DeleteTopic removes t and its assignments to projects.
func (d *Data) DeleteTopic(t *Topic) {
	for _, p := range d.projectsWithTopic(t) {
		d.Touch(p)
		p.Topics = removeFold(p.Topics, t.Name)
	}
	d.Touch(t)
	delete(d.topics, t.ID)
}

// MergeTopics moves source's projects to target and deletes source; both must
// belong to one organization (spec, Topics and States: topic merge).
func (d *Data) MergeTopics(source, target *Topic) error {
	if source.ID == target.ID {
		return ErrTopicsIdentical
	}
	if source.OrganizationID != target.OrganizationID {
		return ErrTopicsOrganization
	}
	// A project that carries both keeps the target once.
	for _, p := range d.projectsWithTopic(source) {
		d.Touch(p)
		p.Topics = removeFold(p.Topics, source.Name)
		if !p.HasTopic(target.Name) {
			p.Topics = append(p.Topics, target.Name)
		}
	}
	d.Touch(source)
	delete(d.topics, source.ID)
	return nil
}

// ensureTopics creates missing topics for the names a project is given and
// returns the names, deduplicated, as the topics spell them.
func (d *Data) ensureTopics(names []string) []string {
	var out []string
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || containsFold(out, n) {
			continue
		}
		t := d.TopicByName(n, DefaultOrganization)
		if t == nil {
			t = &Topic{ID: d.next("topic"), Name: n, Title: n, OrganizationID: DefaultOrganization}
			d.topics[t.ID] = t
			d.Touch(t)
		}
		out = append(out, t.Name)
	}
	return out
}

func containsFold(s []string, x string) bool {
	for _, e := range s {
		if strings.EqualFold(e, x) {
			return true
		}
	}
	return false
}

func removeFold(s []string, x string) []string {
	out := s[:0]
	for _, e := range s {
		if !strings.EqualFold(e, x) {
			out = append(out, e)
		}
	}
	return out
}
