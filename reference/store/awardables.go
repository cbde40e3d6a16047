package store

import (
	"slices"
	"strconv"
	"time"
)

// The awardable types, with the names the platform gives them in
// awardable_type and noteable_type.
const (
	AwardableIssue   = "Issue"
	AwardableSnippet = "Snippet"
	AwardableNote    = "Note"
	// AwardableMergeRequest ("MergeRequest") is declared with merge requests.
)

// Issue is a project issue; iid counts from 1 within its project.
type Issue struct {
	ID, IID, ProjectID, AuthorID int
	Title, Description           string
	State                        string
	Confidential                 bool
	LabelIDs                     []int
	MilestoneID                  int
	AssigneeIDs                  []int
	DueDate                      *time.Time
	CreatedAt, UpdatedAt         time.Time
	// ClosedAt and ClosedByID are set while the issue is closed.
	ClosedAt         *time.Time
	ClosedByID       int
	DiscussionLocked *bool // nil until locked or unlocked once
}

// SetIssueLinks gives an issue its labels (created on the fly as for merge
// requests), milestone (one of its project's), assignees (users who may see
// the project) and due date.
func (d *Data) SetIssueLinks(p *Project, i *Issue, labels []string, milestoneID *int, assignees []int, due *time.Time) {
	i.LabelIDs = d.ensureLabels(p.ID, labels)
	if milestoneID != nil && d.MilestoneOf(p.ID, *milestoneID) != nil {
		i.MilestoneID = *milestoneID
	}
	i.AssigneeIDs = []int{}
	for _, id := range assignees {
		if u := d.User(id); u != nil && d.CanSeeProject(u, p) && !slices.Contains(i.AssigneeIDs, id) {
			i.AssigneeIDs = append(i.AssigneeIDs, id)
		}
	}
	i.DueDate = due
}

// SnippetFile is one file of a snippet.
type SnippetFile struct{ Path, Content string }

// Snippet is a project snippet.
type Snippet struct {
	ID, ProjectID, AuthorID int
	Title, Description      string
	Visibility              string
	Files                   []SnippetFile
	CreatedAt, UpdatedAt    time.Time
}

// Note is a comment on an issue or a snippet.
type Note struct {
	ID, AuthorID, ProjectID int
	Body                    string
	NoteableType            string
	NoteableID              int
	CreatedAt, UpdatedAt    time.Time
}

// AwardEmoji is one user's emoji reaction to an awardable.
type AwardEmoji struct {
	ID, UserID           int
	Name                 string
	AwardableType        string
	AwardableID          int
	CreatedAt, UpdatedAt time.Time
}

// Awardable names an issue, snippet or note by type and global id.
type Awardable struct {
	Type string
	ID   int
}

// AwardError is a reaction the platform's model refuses; the API answers it as 404.
type AwardError struct{ Message string }

func (e *AwardError) Error() string { return e.Message }

// Messages of the platform's reaction model.
const (
	AwardNameInvalid = "Name is not a valid emoji name"
	AwardNameTaken   = "Name has already been taken"
)

// emojiNames are the emoji a reaction may name: a subset of the platform's
// emoji list (gemoji names), enough for any client that sticks to common ones.
var emojiNames = map[string]bool{}

func init() {
	for _, n := range []string{
		"thumbsup", "thumbsdown", "+1", "-1", "smile", "smiley", "grinning", "grin", "laughing", "joy",
		"blush", "wink", "heart_eyes", "kissing_heart", "relieved", "sunglasses", "smirk", "neutral_face",
		"confused", "disappointed", "cry", "sob", "angry", "rage", "scream", "fearful", "sweat_smile",
		"thinking", "eyes", "tada", "rocket", "100", "heart", "broken_heart", "fire", "star", "sparkles",
		"zap", "boom", "clap", "pray", "ok_hand", "wave", "raised_hands", "muscle", "point_up", "v",
		"white_check_mark", "heavy_check_mark", "x", "warning", "question", "exclamation", "bug",
		"beetle", "coffee", "beer", "cake", "pizza", "watermelon", "apple", "trophy", "medal",
		"checkered_flag", "bulb", "lock", "key", "bell", "mega", "memo", "pencil", "book", "computer",
		"hammer", "wrench", "gear", "link", "chart_with_upwards_trend", "hourglass", "alarm_clock",
		"calendar", "rainbow", "sunny", "cloud", "snowflake", "umbrella", "dog", "cat", "unicorn", "panda_face",
		"see_no_evil", "hear_no_evil", "speak_no_evil", "robot", "ghost", "skull", "poop", "facepalm", "shrug",
		"slight_smile", "upside_down", "rofl", "partying_face", "hugging", "nerd", "money_mouth", "zipper_mouth",
		"8ball", "1234", "a", "b", "ab", "abc", "checkered_flag", "triangular_flag_on_post",
	} {
		emojiNames[n] = true
	}
}

// ValidEmojiName reports whether name is an emoji name of the platform's list.
func ValidEmojiName(name string) bool { return emojiNames[name] }

// CreateIssue stores an issue of p with the next iid of the project.
func (d *Data) CreateIssue(p *Project, author *User, title, description string, confidential bool) *Issue {
	now := d.Now()
	i := &Issue{ID: d.next("issue"), IID: d.next("issue_iid:" + strconv.Itoa(p.ID)), ProjectID: p.ID,
		AuthorID: author.ID, Title: title, Description: description, State: "opened",
		Confidential: confidential, CreatedAt: now, UpdatedAt: now}
	if d.issues == nil {
		d.issues = map[int]*Issue{}
	}
	d.issues[i.ID] = i
	d.Touch(i)
	return i
}

// IssueByIID finds an issue of a project by its iid.
func (d *Data) IssueByIID(projectID, iid int) *Issue {
	for _, i := range d.issues {
		if i.ProjectID == projectID && i.IID == iid {
			return i
		}
	}
	return nil
}

// CreateSnippet stores a snippet of p.
func (d *Data) CreateSnippet(p *Project, author *User, title, description, visibility string, files []SnippetFile) *Snippet {
	now := d.Now()
	s := &Snippet{ID: d.next("snippet"), ProjectID: p.ID, AuthorID: author.ID, Title: title,
		Description: description, Visibility: visibility, Files: files, CreatedAt: now, UpdatedAt: now}
	if d.snippets == nil {
		d.snippets = map[int]*Snippet{}
	}
	d.snippets[s.ID] = s
	d.Touch(s)
	return s
}

// ProjectSnippet finds a snippet of a project; another project's snippet is not found.
func (d *Data) ProjectSnippet(projectID, id int) *Snippet {
	if s := d.snippets[id]; s != nil && s.ProjectID == projectID {
		return s
	}
	return nil
}

// CanSeeSnippet applies a snippet's own visibility inside a project the user
// can already see: private snippets are for project members and administrators.
func (d *Data) CanSeeSnippet(u *User, p *Project, s *Snippet) bool {
	switch {
	case u != nil && u.Admin:
		return true
	case s.Visibility == "public":
		return true
	case u == nil:
		return false
	case s.Visibility == "internal" && !u.External:
		return true
	}
	return d.ProjectAccess(u, p) >= 10
}

// CreateNote stores a note on the awardable on (an issue or a snippet) of project projectID.
func (d *Data) CreateNote(projectID int, on Awardable, author *User, body string) *Note {
	now := d.Now()
	n := &Note{ID: d.next("note"), AuthorID: author.ID, ProjectID: projectID, Body: body,
		NoteableType: on.Type, NoteableID: on.ID, CreatedAt: now, UpdatedAt: now}
	if d.notes == nil {
		d.notes = map[int]*Note{}
	}
	d.notes[n.ID] = n
	d.Touch(n)
	return n
}

// NoteOn finds a note of one noteable; a note of another one is not found.
func (d *Data) NoteOn(on Awardable, id int) *Note {
	if n := d.notes[id]; n != nil && n.NoteableType == on.Type && n.NoteableID == on.ID {
		return n
	}
	return nil
}

// AwardEmojis lists the reactions to an awardable by ascending id.
func (d *Data) AwardEmojis(a Awardable) []*AwardEmoji { return slices.Clone(d.awards[a]) }

// AwardEmojiOf finds a reaction of one awardable; another awardable's is not found.
func (d *Data) AwardEmojiOf(a Awardable, id int) *AwardEmoji {
	for _, e := range d.awards[a] {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// AddAwardEmoji records u's reaction name to a, refusing a name outside the
// emoji list and a second reaction of the same name by the same user.
func (d *Data) AddAwardEmoji(a Awardable, u *User, name string) (*AwardEmoji, error) {
	if !ValidEmojiName(name) {
		return nil, &AwardError{Message: AwardNameInvalid}
	}
	for _, e := range d.awards[a] {
		if e.UserID == u.ID && e.Name == name {
			return nil, &AwardError{Message: AwardNameTaken}
		}
	}
	now := d.Now()
	e := &AwardEmoji{ID: d.next("award_emoji"), UserID: u.ID, Name: name, AwardableType: a.Type,
		AwardableID: a.ID, CreatedAt: now, UpdatedAt: now}
	if d.awards == nil {
		d.awards = map[Awardable][]*AwardEmoji{}
	}
	d.awards[a] = append(d.awards[a], e)
	d.Touch(e)
	return e, nil
}

// DeleteAwardEmoji removes a reaction.
func (d *Data) DeleteAwardEmoji(e *AwardEmoji) {
	a := Awardable{e.AwardableType, e.AwardableID}
	d.awards[a] = slices.DeleteFunc(d.awards[a], func(x *AwardEmoji) bool { return x.ID == e.ID })
	d.Touch(e)
}

// dropAwardables forgets a deleted project's issues, snippets, notes and reactions.
func (d *Data) dropAwardables(projectID int) {
	for id, n := range d.notes {
		if n.ProjectID == projectID {
			d.Touch(n)
			d.touchKey(tAwards, Awardable{AwardableNote, id})
			delete(d.awards, Awardable{AwardableNote, id})
			delete(d.notes, id)
		}
	}
	for id, i := range d.issues {
		if i.ProjectID == projectID {
			d.Touch(i)
			d.touchKey(tAwards, Awardable{AwardableIssue, id})
			delete(d.awards, Awardable{AwardableIssue, id})
			delete(d.issues, id)
		}
	}
	for id, s := range d.snippets {
		if s.ProjectID == projectID {
			d.Touch(s)
			d.touchKey(tAwards, Awardable{AwardableSnippet, id})
			delete(d.awards, Awardable{AwardableSnippet, id})
			delete(d.snippets, id)
		}
	}
}
