package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// Project milestones, the platform's provisioning for the milestone of merge
// requests and issues (Milestones API): list, read, create, update.

func (c *Ctx) readMilestoneFields() (store.MilestoneFields, error) {
	in := c.In()
	f := store.MilestoneFields{Title: in.String("title"), Description: in.String("description"),
		StateEvent: in.Enum("state_event", "activate", "close")}
	if c.P.Has("due_date") {
		f.DueDate, f.DueGiven = in.Date("due_date"), true
	}
	if c.P.Has("start_date") {
		f.StartDate, f.StartGiven = in.Date("start_date"), true
	}
	return f, in.Err()
}

// listMilestones implements GET /projects/:id/milestones (provisioning):
// state (active, closed), title, search, iids[].
func (s *Server) listMilestones(c *Ctx) error {
	in := c.In()
	// all is the platform's default and lists both
	// (gitlabhq/gitlabhq lib/api/milestone_responses.rb @14bd84b6: values: %w[active closed all],
	// default: 'all').
	state := in.Enum("state", "active", "closed", "all")
	if state != nil && *state == "all" {
		state = nil
	}
	title, search := in.String("title"), in.String("search")
	iids := in.Ints("iids")
	in.Bool("include_ancestors")
	if err := in.Err(); err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return nil, err
		}
		var items []*store.Milestone
		for _, m := range d.ProjectMilestones(p.ID) {
			switch {
			case state != nil && m.State != *state, title != nil && m.Title != *title,
				search != nil && !containsFold(m.Title, *search) && !containsFold(m.Description, *search),
				iids != nil && !slices.Contains(iids, m.IID):
				continue
			}
			items = append(items, m)
		}
		v := c.view(d)
		return Paginate(c, items, nil, func(m *store.Milestone) MilestoneJSON { return *v.milestone(m) })
	})
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// milestoneOf resolves :milestone_id, the milestone's global id as on the platform.
func (c *Ctx) milestoneOf(d *store.Data) (*store.Project, *store.Milestone, error) {
	id, err := c.pathID("milestone_id")
	if err != nil {
		return nil, nil, err
	}
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, nil, err
	}
	m := d.MilestoneOf(p.ID, id)
	if m == nil {
		return nil, nil, notFound("Milestone")
	}
	return p, m, nil
}

// getMilestone implements GET /projects/:id/milestones/:milestone_id (provisioning).
func (s *Server) getMilestone(c *Ctx) error {
	var body *MilestoneJSON
	err := s.store.Read(func(d *store.Data) error {
		_, m, err := c.milestoneOf(d)
		if err == nil {
			body = c.view(d).milestone(m)
		}
		return err
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// createMilestone implements POST /projects/:id/milestones (provisioning): Reporter and above.
func (s *Server) createMilestone(c *Ctx) error {
	c.In().Require("title")
	f, err := c.readMilestoneFields()
	if err != nil {
		return err
	}
	var body *MilestoneJSON
	err = s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireProjectRole(d, p, access.Reporter); err != nil {
			return err
		}
		m, err := d.CreateMilestone(p, f)
		if err != nil {
			return err
		}
		body = c.view(d).milestone(m)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, body)
}

// updateMilestone implements PUT /projects/:id/milestones/:milestone_id
// (provisioning): Reporter and above; state_event closes or activates it.
func (s *Server) updateMilestone(c *Ctx) error {
	f, err := c.readMilestoneFields()
	if err != nil {
		return err
	}
	var body *MilestoneJSON
	err = s.store.Write(func(d *store.Data) error {
		p, m, err := c.milestoneOf(d)
		if err != nil {
			return err
		}
		if err := c.requireProjectRole(d, p, access.Reporter); err != nil {
			return err
		}
		if err := d.UpdateMilestone(m, f); err != nil {
			return err
		}
		body = c.view(d).milestone(m)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}
