package store

import "time"

// AccessRequest is a pending request of a user to join a group or project.
type AccessRequest struct {
	Type        SourceType
	SourceID    int
	UserID      int
	RequestedAt time.Time
}

// RequestAccess records a request; members cannot request, and a second
// request from the same user is a conflict.
func (d *Data) RequestAccess(t SourceType, source int, u *User) (*AccessRequest, error) {
	k := memberKey{t, source, u.ID}
	if d.DirectMember(t, source, u.ID) != nil {
		return nil, Invalid("user", "already a member")
	}
	if d.requests[k] != nil {
		return nil, Invalid("user", "has already requested access")
	}
	r := &AccessRequest{Type: t, SourceID: source, UserID: u.ID, RequestedAt: d.Now()}
	d.requests[k] = r
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
	sortByID(out, func(r *AccessRequest) int { return r.UserID })
	return out
}

// AccessRequest returns u's pending request, or nil.
func (d *Data) AccessRequest(t SourceType, source, user int) *AccessRequest {
	return d.requests[memberKey{t, source, user}]
}

// ApproveAccessRequest turns a request into a membership at level.
func (d *Data) ApproveAccessRequest(r *AccessRequest, level Level, by int) *Member {
	delete(d.requests, memberKey{r.Type, r.SourceID, r.UserID})
	return d.putMember(r.Type, r.SourceID, r.UserID, level, nil, by)
}

// DenyAccessRequest drops a request.
func (d *Data) DenyAccessRequest(r *AccessRequest) {
	delete(d.requests, memberKey{r.Type, r.SourceID, r.UserID})
}
