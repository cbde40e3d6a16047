package api

import (
	"net/http"

	"github.com/v4cert/v4cert/reference/store"
)

// To-do items (the spec's to-do item shape; the platform's To-do lists API
// for reading them): the caller's own, from POST .../todo and from being
// assigned or asked to review.

// listTodos implements GET /todos (provisioning; rule merge_requests.todo.*):
// the caller's to-do items, pending ones unless state says otherwise,
// filtered by action, author_id, project_id and type.
func (s *Server) listTodos(c *Ctx) error {
	in := c.In()
	action := in.Enum("action", store.TodoAssigned, "mentioned", "build_failed", store.TodoMarked, "approval_required",
		"unmergeable", "directly_addressed", "merge_train_removed", "member_access_requested", store.TodoReviewRequested)
	author, project, group := in.Int("author_id"), in.Int("project_id"), in.Int("group_id")
	state := deref(in.Enum("state", store.TodoPending, store.TodoDone), store.TodoPending)
	typ := in.Enum("type", "Issue", "MergeRequest", "Commit", "Epic", "DesignManagement::Design", "AlertManagement::Alert")
	if err := in.Err(); err != nil {
		return err
	}
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		var items []*store.Todo
		for _, t := range d.UserTodos(c.Caller) {
			p := d.Project(t.ProjectID)
			switch {
			case t.State != state, action != nil && t.Action != *action, author != nil && t.AuthorID != *author,
				project != nil && t.ProjectID != *project, typ != nil && t.TargetType != *typ,
				group != nil && (p == nil || p.NamespaceID != *group),
				p == nil || !d.CanReadMergeRequests(c.Caller, p):
				continue
			}
			items = append(items, t)
		}
		v := c.view(d)
		return Paginate(c, items, nil, v.todo)
	})
}

// markTodoDone implements POST /todos/:id/mark_as_done (provisioning).
func (s *Server) markTodoDone(c *Ctx) error {
	id, err := c.pathID("id")
	if err != nil {
		return err
	}
	var body TodoJSON
	err = s.store.Write(func(d *store.Data) error {
		t := d.UserTodo(c.Caller, id)
		if t == nil {
			return notFound("Todo")
		}
		d.MarkTodoDone(t)
		body = c.view(d).todo(t)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, body)
}

// markAllTodosDone implements POST /todos/mark_as_done (provisioning): 204.
func (s *Server) markAllTodosDone(c *Ctx) error {
	err := s.store.Write(func(d *store.Data) error {
		for _, t := range d.UserTodos(c.Caller) {
			d.MarkTodoDone(t)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}
