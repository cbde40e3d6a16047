package api

import (
	"errors"
	"net/http"

	"github.com/v4cert/v4cert/reference/store"
)

// awardableForm is one of the paths emoji reactions live under: an issue, a
// merge request or a snippet, or a note on one (Endpoints, Emoji reactions).
type awardableForm struct {
	kind string // store.AwardableIssue, store.AwardableMergeRequest or store.AwardableSnippet
	note bool
}

// The six awardable paths (route table rows award_emoji.*).
var (
	issueAwards       = awardableForm{store.AwardableIssue, false}
	snippetAwards     = awardableForm{store.AwardableSnippet, false}
	issueNoteAwards   = awardableForm{store.AwardableIssue, true}
	snippetNoteAwards = awardableForm{store.AwardableSnippet, true}

	mergeRequestAwards     = awardableForm{store.AwardableMergeRequest, false}
	mergeRequestNoteAwards = awardableForm{store.AwardableMergeRequest, true}
)

// The same four operations serve every awardable path.
func listAwardEmojiOn(f awardableForm) handler {
	return func(s *Server, c *Ctx) error { return s.listAwardEmoji(c, f) }
}

func getAwardEmojiOn(f awardableForm) handler {
	return func(s *Server, c *Ctx) error { return s.getAwardEmoji(c, f) }
}

func createAwardEmojiOn(f awardableForm) handler {
	return func(s *Server, c *Ctx) error { return s.createAwardEmoji(c, f) }
}

func deleteAwardEmojiOn(f awardableForm) handler {
	return func(s *Server, c *Ctx) error { return s.deleteAwardEmoji(c, f) }
}

// AwardEmojiJSON is the Emoji reaction resource.
type AwardEmojiJSON struct {
	ID            int     `json:"id"`
	Name          string  `json:"name"`
	User          UserRef `json:"user"`
	CreatedAt     string  `json:"created_at"`
	UpdatedAt     string  `json:"updated_at"`
	AwardableID   int     `json:"awardable_id"`
	AwardableType string  `json:"awardable_type"`
}

func (v *view) awardEmoji(e *store.AwardEmoji) AwardEmojiJSON {
	return AwardEmojiJSON{ID: e.ID, Name: e.Name, User: v.authorRef(e.UserID), CreatedAt: ts(e.CreatedAt),
		UpdatedAt: ts(e.UpdatedAt), AwardableID: e.AwardableID, AwardableType: e.AwardableType}
}

// awardableOf resolves the awardable of the path: 404 when the project, the
// issue, the snippet or the note (of that issue or snippet) is missing or
// hidden from the caller (rules award_emoji.awardable.*, Authentication 8).
func (c *Ctx) awardableOf(d *store.Data, f awardableForm) (store.Awardable, error) {
	var on store.Awardable
	switch f.kind {
	case store.AwardableIssue:
		_, i, err := c.issueOf(d)
		if err != nil {
			return on, err
		}
		on = store.Awardable{Type: store.AwardableIssue, ID: i.ID}
	case store.AwardableMergeRequest:
		_, mr, err := c.mrOf(d)
		if err != nil {
			return on, err
		}
		on = store.Awardable{Type: store.AwardableMergeRequest, ID: mr.ID}
	default:
		_, s, err := c.snippetOf(d)
		if err != nil {
			return on, err
		}
		on = store.Awardable{Type: store.AwardableSnippet, ID: s.ID}
	}
	if !f.note {
		return on, nil
	}
	id, err := c.pathID("note_id")
	if err != nil {
		return on, err
	}
	n := d.NoteOn(on, id)
	if n == nil {
		return on, notFound("Note")
	}
	return store.Awardable{Type: store.AwardableNote, ID: n.ID}, nil
}

// awardOf finds the reaction :award_id of a; another awardable's is not found.
func (c *Ctx) awardOf(d *store.Data, a store.Awardable) (*store.AwardEmoji, error) {
	id, err := c.pathID("award_id")
	if err != nil {
		return nil, err
	}
	e := d.AwardEmojiOf(a, id)
	if e == nil {
		return nil, notFound("Award Emoji")
	}
	return e, nil
}

// listAwardEmoji implements GET <awardable>/award_emoji for issues, snippets
// and their notes; anonymous callers read public awardables
// (rules award_emoji.list.*, .awardable.*).
func (s *Server) listAwardEmoji(c *Ctx, f awardableForm) error {
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		a, err := c.awardableOf(d, f)
		if err != nil {
			return nil, err
		}
		v := c.view(d)
		return Paginate(c, d.AwardEmojis(a), nil, v.awardEmoji)
	})
}

// getAwardEmoji implements GET <awardable>/award_emoji/:award_id
// (rules award_emoji.get.*, .fields.1).
func (s *Server) getAwardEmoji(c *Ctx, f awardableForm) error {
	var out AwardEmojiJSON
	err := s.store.Read(func(d *store.Data) error {
		a, err := c.awardableOf(d, f)
		if err != nil {
			return err
		}
		e, err := c.awardOf(d, a)
		if err != nil {
			return err
		}
		out = c.view(d).awardEmoji(e)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// createAwardEmoji implements POST <awardable>/award_emoji: whoever can see
// the awardable reacts; names outside the emoji list and repeated reactions
// are refused with 404, as the platform answers them (rules award_emoji.create.*).
func (s *Server) createAwardEmoji(c *Ctx, f awardableForm) error {
	in := c.In()
	name := in.String("name")
	if err := in.Err(); err != nil {
		return err
	}
	var out AwardEmojiJSON
	err := s.store.Write(func(d *store.Data) error {
		a, err := c.awardableOf(d, f)
		if err != nil {
			return err
		}
		e, err := d.AddAwardEmoji(a, c.Caller, *name)
		var ae *store.AwardError
		if errors.As(err, &ae) {
			return notFound("Award Emoji " + ae.Message)
		}
		if err != nil {
			return err
		}
		out = c.view(d).awardEmoji(e)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// deleteAwardEmoji implements DELETE <awardable>/award_emoji/:award_id: only
// an administrator or the reaction's author (rules award_emoji.delete.*;
// Authentication 7 and 8).
func (s *Server) deleteAwardEmoji(c *Ctx, f awardableForm) error {
	err := s.store.Write(func(d *store.Data) error {
		a, err := c.awardableOf(d, f)
		if err != nil {
			return err
		}
		e, err := c.awardOf(d, a)
		if err != nil {
			return err
		}
		if !c.Admin() && e.UserID != c.Caller.ID {
			return forbidden()
		}
		d.DeleteAwardEmoji(e)
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}
