package store

import (
	"errors"
	"time"
)

// AccessRequest is a pending request of a user to join a group or project.
type AccessRequest struct {
	// ID orders requests by arrival; on the platform a request is a member
	// record, so it draws from the membership sequence.
	ID          int
	Type        SourceType
	SourceID    int
	UserID      int
	RequestedAt time.Time
}

// ErrRequestNotAllowed is a request the platform's policy refuses: access
// requests switched off on the source, or a caller who already has access.
var ErrRequestNotAllowed = errors.New("access request not allowed")

// RequestAccess records u's request to join a source. It refuses (with
// ErrRequestNotAllowed) when the source has request_access_enabled=false or u
// already reaches it (directly, by inheritance or by invitation; for a
// project also through a pending request to its group), and a repeat request
// fails validation as the platform's member uniqueness does.
func (d *Data) RequestAccess(t SourceType, source int, u *User) (*AccessRequest, error) {
	switch t {
	case SourceGroup:
		g := d.groups[source]
		if g == nil {
			return nil, ErrNotFound
		}
		if !g.RequestAccessEnabled || d.GroupAccess(u, g) > 0 {
			return nil, ErrRequestNotAllowed
		}
	default:
		p := d.projects[source]
		if p == nil {
			return nil, ErrNotFound
		}
		if !p.RequestAccessEnabled || d.ProjectAccess(u, p) > 0 {
			return nil, ErrRequestNotAllowed
		}
		if g := d.groups[p.NamespaceID]; g != nil && d.requests[memberKey{SourceGroup, g.ID, u.ID}] != nil {
			return nil, ErrRequestNotAllowed
		}
	}
	k := memberKey{t, source, u.ID}
	if d.requests[k] != nil || d.members[k] != nil {
		return nil, Invalid("user_id", "already exists in source")
	}
	r := &AccessRequest{ID: d.next("member"), Type: t, SourceID: source, UserID: u.ID, RequestedAt: d.Now()}
	d.requests[k] = r
	d.Touch(r)
	return r, nil
}

// AccessRequests returns the pending requests of a source, oldest first.
func (d *Data) AccessRequests(t SourceType, source int) []*AccessRequest {
	var out []*AccessRequest
	for k, r := range d.requests {
		if k.Type == t && k.Source == source {
			out = append(out, r)
		}
	}
	sortByID(out, func(r *AccessRequest) int { return r.ID })
	return out
}

// AccessRequest returns u's pending request, or nil.
func (d *Data) AccessRequest(t SourceType, source, user int) *AccessRequest {
	return d.requests[memberKey{t, source, user}]
}

// ApproveAccessRequest turns a request into a direct membership at level,
// recorded as created by the approver.
func (d *Data) ApproveAccessRequest(r *AccessRequest, level Level, by int) *Member {
	d.Touch(r)
	delete(d.requests, memberKey{r.Type, r.SourceID, r.UserID})
	return d.putMember(r.Type, r.SourceID, r.UserID, level, nil, by)
}

// DenyAccessRequest drops a request (denied by a manager or withdrawn by its author).
func (d *Data) DenyAccessRequest(r *AccessRequest) {
	d.Touch(r)
	delete(d.requests, memberKey{r.Type, r.SourceID, r.UserID})
}
