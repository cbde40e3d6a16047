package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// AccessRequestJSON is the Access request resource: the requester's user
// fields with the time of the request.
type AccessRequestJSON struct {
	ID          int     `json:"id"`
	Username    string  `json:"username"`
	Name        string  `json:"name"`
	State       string  `json:"state"`
	Locked      bool    `json:"locked"`
	AvatarURL   *string `json:"avatar_url"`
	WebURL      string  `json:"web_url"`
	RequestedAt string  `json:"requested_at"`
	CreatedAt   string  `json:"created_at"`
}

func (v *view) accessRequest(r *store.AccessRequest) AccessRequestJSON {
	out := AccessRequestJSON{ID: r.UserID, RequestedAt: ts(r.RequestedAt), CreatedAt: ts(r.RequestedAt)}
	if u := v.d.User(r.UserID); u != nil {
		ref := v.userRef(u)
		out.Username, out.Name, out.State, out.Locked, out.AvatarURL, out.WebURL = ref.Username, ref.Name, ref.State, ref.Locked, ref.AvatarURL, ref.WebURL
	}
	return out
}

// manageRequests is the role that may see, approve and deny the requests of a
// source: Maintainer on a project, Owner on a group (the platform's
// admin_project and admin_group abilities).
func manageRequests(t store.SourceType) access.Level {
	if t == store.SourceGroup {
		return access.Owner
	}
	return access.Maintainer
}

// requesterID reads the `:user_id` path parameter, an integer as the platform declares it.
func (c *Ctx) requesterID() (int, error) {
	n, err := strconv.Atoi(c.R.PathValue("user_id"))
	if err != nil {
		return 0, invalidParam("user_id")
	}
	return n, nil
}

// listAccessRequests implements GET /groups/:id/access_requests and
// /projects/:id/access_requests (rules access_requests.list.*): the pending
// requests, oldest first, for project Maintainers and group Owners.
func (s *Server) listAccessRequests(c *Ctx, t store.SourceType) error {
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		src, err := c.sourceOf(d, t)
		if err != nil {
			return nil, err
		}
		if src.Role < manageRequests(t) {
			return nil, forbidden()
		}
		v := c.view(d)
		return Paginate(c, d.AccessRequests(t, src.ID), nil, v.accessRequest)
	})
}

// createAccessRequest implements POST /groups/:id/access_requests and
// /projects/:id/access_requests (rules access_requests.create.*).
func (s *Server) createAccessRequest(c *Ctx, t store.SourceType) error {
	var out AccessRequestJSON
	err := s.store.Write(func(d *store.Data) error {
		src, err := c.sourceOf(d, t)
		if err != nil {
			return err
		}
		r, err := d.RequestAccess(t, src.ID, c.Caller)
		if errors.Is(err, store.ErrRequestNotAllowed) {
			return forbidden()
		}
		if err != nil {
			return err
		}
		out = c.view(d).accessRequest(r)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// approveAccessRequest implements PUT .../access_requests/:user_id/approve
// (rules access_requests.approve.*): the requester becomes a direct member at
// access_level (default 30, Developer). It answers 201 with the member, as
// the platform does. A Maintainer may not grant more than their own role.
func (s *Server) approveAccessRequest(c *Ctx, t store.SourceType) error {
	userID, err := c.requesterID()
	if err != nil {
		return err
	}
	lv, err := c.accessLevel("access_level")
	if err != nil {
		return err
	}
	level := access.Developer
	if lv != nil {
		level = *lv
	}
	var out MemberJSON
	err = s.store.Write(func(d *store.Data) error {
		src, err := c.sourceOf(d, t)
		if err != nil {
			return err
		}
		r := d.AccessRequest(t, src.ID, userID)
		if r == nil {
			return notFound("Access Request")
		}
		if src.Role < manageRequests(t) || (level > src.Role && src.Role < access.Owner) {
			return forbidden()
		}
		m := d.ApproveAccessRequest(r, level, c.Caller.ID)
		out = c.view(d).member(m, int(m.Access))
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// denyAccessRequest implements DELETE .../access_requests/:user_id (rules
// access_requests.deny.*): those who may approve deny, and requesters may
// withdraw their own request.
func (s *Server) denyAccessRequest(c *Ctx, t store.SourceType) error {
	userID, err := c.requesterID()
	if err != nil {
		return err
	}
	err = s.store.Write(func(d *store.Data) error {
		src, err := c.sourceOf(d, t)
		if err != nil {
			return err
		}
		r := d.AccessRequest(t, src.ID, userID)
		if r == nil {
			return notFound("Access Request")
		}
		if src.Role < manageRequests(t) && r.UserID != c.Caller.ID {
			return forbidden()
		}
		d.DenyAccessRequest(r)
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}
