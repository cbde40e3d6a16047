package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// Project labels, the platform's provisioning for what merge requests and
// issues carry (Labels API): list, read, create.

// LabelJSON is a project label as the Labels API answers it: the
// platform's Entities::ProjectLabel, whose three counts are exposed only
// when the list is asked with_counts=true (lib/api/entities/label.rb:
// `with_options if: ->(_, options) { options[:with_counts] }`; get and
// create never pass it), and which always carries remove_on_close
// (lib/api/entities/label_basic.rb). Read at
// gitlabhq/gitlabhq lib/api/entities/label.rb @55eb439f, label_basic.rb @346c2ebb.
type LabelJSON struct {
	ID                     int    `json:"id"`
	Name                   string `json:"name"`
	Color                  string `json:"color"`
	TextColor              string `json:"text_color"`
	Description            string `json:"description"`
	DescriptionHTML        string `json:"description_html"`
	RemoveOnClose          bool   `json:"remove_on_close"`
	OpenIssuesCount        *int   `json:"open_issues_count,omitempty"`
	ClosedIssuesCount      *int   `json:"closed_issues_count,omitempty"`
	OpenMergeRequestsCount *int   `json:"open_merge_requests_count,omitempty"`
	Subscribed             bool   `json:"subscribed"`
	Priority               *int   `json:"priority"`
	IsProjectLabel         bool   `json:"is_project_label"`
}

// label renders l; withCounts adds the three counts, as the platform's
// list does when asked with_counts=true.
func (v *view) label(l *store.Label, withCounts bool) LabelJSON {
	j := LabelJSON{ID: l.ID, Name: l.Name, Color: l.Color, TextColor: textColor(l.Color), Description: l.Description,
		DescriptionHTML: markdownHTML(l.Description), Priority: l.Priority, IsProjectLabel: true}
	if withCounts {
		open, closed, mrs := v.d.LabelCounts(l)
		j.OpenIssuesCount, j.ClosedIssuesCount, j.OpenMergeRequestsCount = &open, &closed, &mrs
	}
	return j
}

// listLabels implements GET /projects/:id/labels (provisioning): whoever sees the project.
func (s *Server) listLabels(c *Ctx) error {
	withCounts := c.In().Bool("with_counts")
	c.In().Bool("include_ancestor_groups")
	search := c.In().String("search")
	if err := c.In().Err(); err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return nil, err
		}
		var items []*store.Label
		for _, l := range d.ProjectLabels(p.ID) {
			if search == nil || containsFold(l.Name, *search) || containsFold(l.Description, *search) {
				items = append(items, l)
			}
		}
		v := c.view(d)
		counts := withCounts != nil && *withCounts
		return Paginate(c, items, nil, func(l *store.Label) LabelJSON { return v.label(l, counts) })
	})
}

// getLabel implements GET /projects/:id/labels/:label_id (provisioning): by id or name.
func (s *Server) getLabel(c *Ctx) error {
	var body LabelJSON
	err := s.store.Read(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		raw := c.R.PathValue("label_id")
		var l *store.Label
		if id, err := strconv.Atoi(raw); err == nil {
			l = d.LabelOf(p.ID, id)
		}
		if l == nil {
			l = d.LabelByName(p.ID, raw)
		}
		if l == nil {
			return notFound("Label")
		}
		body = c.view(d).label(l, false)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, body)
}

// createLabel implements POST /projects/:id/labels (provisioning): Reporter
// and above; a name the project has is 409 Label already exists.
func (s *Server) createLabel(c *Ctx) error {
	in := c.In().Require("name", "color")
	name, color := in.String("name"), in.String("color")
	desc := in.StringOr("description", "")
	priority := in.Int("priority")
	if err := in.Err(); err != nil {
		return err
	}
	var body LabelJSON
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.projectOf(d, "id")
		if err != nil {
			return err
		}
		if err := c.requireProjectRole(d, p, access.Reporter); err != nil {
			return err
		}
		l, err := d.CreateLabel(p, *name, *color, desc, priority)
		if errors.Is(err, store.ErrConflict) {
			return conflict("Label already exists")
		}
		if err != nil {
			return err
		}
		body = c.view(d).label(l, false)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, body)
}
