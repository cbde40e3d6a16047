package store

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// Milestone is a project milestone; iid counts from 1 within its project.
type Milestone struct {
	ID, IID, ProjectID   int
	Title, Description   string
	State                string // active, closed
	DueDate, StartDate   *time.Time
	CreatedAt, UpdatedAt time.Time
}

// MilestoneFields holds what POST and PUT .../milestones accept; nil means not given.
type MilestoneFields struct {
	Title, Description *string
	DueDate, StartDate *time.Time
	DueGiven           bool
	StartGiven         bool
	StateEvent         *string // activate, close
}

// CreateMilestone validates and stores a milestone of p.
func (d *Data) CreateMilestone(p *Project, f MilestoneFields) (*Milestone, error) {
	m := &Milestone{ProjectID: p.ID, State: "active"}
	if err := d.applyMilestone(m, f); err != nil {
		return nil, err
	}
	now := d.Now()
	m.ID, m.IID = d.next("milestone"), d.next("milestone_iid:"+strconv.Itoa(p.ID))
	m.CreatedAt, m.UpdatedAt = now, now
	if d.milestones == nil {
		d.milestones = map[int]*Milestone{}
	}
	d.milestones[m.ID] = m
	d.Touch(m)
	return m, nil
}

// UpdateMilestone validates f and applies it to m.
func (d *Data) UpdateMilestone(m *Milestone, f MilestoneFields) error {
	cp := *m
	if err := d.applyMilestone(&cp, f); err != nil {
		return err
	}
	*m = cp
	d.Touch(m)
	m.UpdatedAt = d.Now()
	return nil
}

func (d *Data) applyMilestone(m *Milestone, f MilestoneFields) error {
	v := &ValidationError{Fields: map[string][]string{}}
	if f.Title != nil {
		m.Title = strings.TrimSpace(*f.Title)
	}
	if f.Description != nil {
		m.Description = *f.Description
	}
	if f.DueGiven {
		m.DueDate = f.DueDate
	}
	if f.StartGiven {
		m.StartDate = f.StartDate
	}
	if f.StateEvent != nil {
		m.State = map[string]string{"activate": "active", "close": "closed"}[*f.StateEvent]
	}
	if m.Title == "" {
		v.Fields["title"] = []string{"can't be blank"}
	}
	for _, o := range d.milestones {
		if o.ProjectID == m.ProjectID && o.ID != m.ID && o.Title == m.Title {
			v.Fields["title"] = []string{"already being used for another group or project milestone."}
		}
	}
	if m.DueDate != nil && m.StartDate != nil && m.DueDate.Before(*m.StartDate) {
		v.Fields["due_date"] = []string{"must be greater than start date"}
	}
	if len(v.Fields) > 0 {
		return v
	}
	return nil
}

// ProjectMilestones lists a project's milestones, newest first as the platform does.
func (d *Data) ProjectMilestones(projectID int) []*Milestone {
	var out []*Milestone
	for _, m := range d.milestones {
		if m.ProjectID == projectID {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b *Milestone) int { return b.ID - a.ID })
	return out
}

// MilestoneOf finds a project's milestone by its global id.
func (d *Data) MilestoneOf(projectID, id int) *Milestone {
	if m := d.milestones[id]; m != nil && m.ProjectID == projectID {
		return m
	}
	return nil
}

// MilestoneByID finds a milestone of any project.
func (d *Data) MilestoneByID(id int) *Milestone { return d.milestones[id] }

// Expired reports whether the milestone's due date has passed at now.
func (m *Milestone) Expired(now time.Time) bool {
	if m.DueDate == nil {
		return false
	}
	y, mo, dd := now.Date()
	today := time.Date(y, mo, dd, 0, 0, 0, 0, time.UTC)
	return m.DueDate.Before(today)
}

// dropMilestones forgets a deleted project's milestones.
func (d *Data) dropMilestones(projectID int) {
	for id, m := range d.milestones {
		if m.ProjectID == projectID {
			d.Touch(m)
			delete(d.milestones, id)
		}
	}
}
