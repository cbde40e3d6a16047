package store

import (
	"regexp"
	"slices"
	"strings"
	"time"
)

// Label is a project label. Merge requests and issues carry labels by id and
// show them by name.
type Label struct {
	ID, ProjectID int
	Name          string
	Color         string
	Description   string
	Priority      *int
	CreatedAt     time.Time
}

// DefaultLabelColor is the color of labels the platform creates on the fly
// (a merge request or issue naming a label the project lacks).
const DefaultLabelColor = "#6699cc"

// colorRe is a label color: #RGB or #RRGGBB, as the platform validates it
// (it also knows CSS color names, which the reference does not).
var colorRe = regexp.MustCompile(`^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$`)

// ValidLabelName reports whether name can be a label title: not blank and
// without commas, since label lists are comma-joined.
func ValidLabelName(name string) bool {
	return strings.TrimSpace(name) != "" && !strings.Contains(name, ",")
}

// CreateLabel validates and stores a label of p. A name the project already
// has is ErrConflict (the platform answers 409 Label already exists).
func (d *Data) CreateLabel(p *Project, name, color, description string, priority *int) (*Label, error) {
	v := &ValidationError{Fields: map[string][]string{}}
	name = strings.TrimSpace(name)
	if name == "" {
		v.Fields["title"] = []string{"can't be blank"}
	} else if !ValidLabelName(name) {
		v.Fields["title"] = []string{"is invalid"}
	}
	if !colorRe.MatchString(color) {
		v.Fields["color"] = []string{"must be a valid color code"}
	}
	if priority != nil && *priority < 0 {
		v.Fields["priority"] = []string{"must be greater than or equal to 0"}
	}
	if len(v.Fields) > 0 {
		return nil, v
	}
	if d.LabelByName(p.ID, name) != nil {
		return nil, ErrConflict
	}
	return d.addLabel(p.ID, name, color, description, priority), nil
}

func (d *Data) addLabel(projectID int, name, color, description string, priority *int) *Label {
	l := &Label{ID: d.next("label"), ProjectID: projectID, Name: name, Color: color, Description: description,
		Priority: priority, CreatedAt: d.Now()}
	if d.labels == nil {
		d.labels = map[int][]*Label{}
	}
	d.labels[projectID] = append(d.labels[projectID], l)
	d.Touch(l)
	return l
}

// ProjectLabels lists a project's labels by name, as the platform lists them.
func (d *Data) ProjectLabels(projectID int) []*Label {
	out := slices.Clone(d.labels[projectID])
	slices.SortFunc(out, func(a, b *Label) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return a.ID - b.ID
	})
	return out
}

// LabelByName finds a project's label by its exact name.
func (d *Data) LabelByName(projectID int, name string) *Label {
	for _, l := range d.labels[projectID] {
		if l.Name == name {
			return l
		}
	}
	return nil
}

// LabelOf finds a project's label by id; another project's is not found.
func (d *Data) LabelOf(projectID, id int) *Label {
	for _, l := range d.labels[projectID] {
		if l.ID == id {
			return l
		}
	}
	return nil
}

// LabelByID finds a label of any project.
func (d *Data) LabelByID(id int) *Label {
	for _, ls := range d.labels {
		for _, l := range ls {
			if l.ID == id {
				return l
			}
		}
	}
	return nil
}

// ensureLabels resolves names to the project's labels, creating the missing
// ones with the default color as the platform does when a merge request or
// an issue names them. Names are trimmed; blank and repeated names are
// dropped. Callers check the names with ValidLabelName first.
func (d *Data) ensureLabels(projectID int, names []string) []int {
	var ids []int
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		l := d.LabelByName(projectID, n)
		if l == nil {
			l = d.addLabel(projectID, n, DefaultLabelColor, "", nil)
		}
		if !slices.Contains(ids, l.ID) {
			ids = append(ids, l.ID)
		}
	}
	return ids
}

// LabelNames renders label ids as names, in the order the platform shows
// them (by name), skipping labels deleted since.
func (d *Data) LabelNames(projectID int, ids []int) []string {
	out := make([]string, 0, len(ids))
	for _, l := range d.LabelsByIDs(projectID, ids) {
		out = append(out, l.Name)
	}
	return out
}

// LabelsByIDs resolves label ids of a project, sorted by name.
func (d *Data) LabelsByIDs(projectID int, ids []int) []*Label {
	out := make([]*Label, 0, len(ids))
	for _, id := range ids {
		if l := d.LabelOf(projectID, id); l != nil {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b *Label) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// dropLabels forgets a deleted project's labels.
func (d *Data) dropLabels(projectID int) {
	d.touchKey(tLabels, projectID)
	delete(d.labels, projectID)
}

// LabelCounts counts the open and closed issues and the open merge requests carrying l.
func (d *Data) LabelCounts(l *Label) (openIssues, closedIssues, openMRs int) {
	for _, i := range d.issues {
		if i.ProjectID == l.ProjectID && slices.Contains(i.LabelIDs, l.ID) {
			if i.State == "closed" {
				closedIssues++
			} else {
				openIssues++
			}
		}
	}
	for _, mr := range d.projectMRs[l.ProjectID] {
		if mr.State == MROpened && slices.Contains(mr.LabelIDs, l.ID) {
			openMRs++
		}
	}
	return openIssues, closedIssues, openMRs
}
