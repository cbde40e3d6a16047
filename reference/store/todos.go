package store

import (
	"slices"
	"time"
)

// Todo is a to-do item of a user about a merge request or an issue.
type Todo struct {
	ID, UserID, AuthorID, ProjectID int
	TargetType                      string // MergeRequest, Issue
	TargetID                        int
	Action                          string
	State                           string // pending, done
	CreatedAt, UpdatedAt            time.Time
}

// To-do actions (the platform's action_name values the reference creates).
const (
	TodoAssigned        = "assigned"
	TodoMarked          = "marked"
	TodoReviewRequested = "review_requested"
)

// To-do states.
const (
	TodoPending = "pending"
	TodoDone    = "done"
)

func (d *Data) addTodo(userID, authorID, projectID int, targetType string, targetID int, action string) *Todo {
	now := d.Now()
	t := &Todo{ID: d.next("todo"), UserID: userID, AuthorID: authorID, ProjectID: projectID, TargetType: targetType,
		TargetID: targetID, Action: action, State: TodoPending, CreatedAt: now, UpdatedAt: now}
	if d.todos == nil {
		d.todos = map[int]*Todo{}
	}
	d.todos[t.ID] = t
	d.Touch(t)
	return t
}

// MarkTodo gives u a to-do item about a target (POST .../todo). When u
// already has a pending one about it, nothing is created and ok is false (the
// platform answers 304).
func (d *Data) MarkTodo(u *User, projectID int, targetType string, targetID int) (t *Todo, ok bool) {
	for _, x := range d.todos {
		if x.UserID == u.ID && x.TargetType == targetType && x.TargetID == targetID && x.State == TodoPending {
			return nil, false
		}
	}
	return d.addTodo(u.ID, u.ID, projectID, targetType, targetID, TodoMarked), true
}

// UserTodos lists u's to-do items, newest first.
func (d *Data) UserTodos(u *User) []*Todo {
	var out []*Todo
	for _, t := range d.todos {
		if t.UserID == u.ID {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *Todo) int { return b.ID - a.ID })
	return out
}

// UserTodo finds one of u's to-do items.
func (d *Data) UserTodo(u *User, id int) *Todo {
	if t := d.todos[id]; t != nil && t.UserID == u.ID {
		return t
	}
	return nil
}

// MarkTodoDone marks a to-do item done.
func (d *Data) MarkTodoDone(t *Todo) {
	if t.State != TodoDone {
		d.Touch(t)
		t.State, t.UpdatedAt = TodoDone, d.Now()
	}
}

// doneTodosOf marks every pending to-do item about a target done (it was
// merged or closed), as the platform does.
func (d *Data) doneTodosOf(targetType string, targetID int) {
	for _, t := range d.todos {
		if t.TargetType == targetType && t.TargetID == targetID {
			d.MarkTodoDone(t)
		}
	}
}

// dropTodosOf forgets the to-do items about a deleted target.
func (d *Data) dropTodosOf(targetType string, targetID int) {
	for id, t := range d.todos {
		if t.TargetType == targetType && t.TargetID == targetID {
			d.Touch(t)
			delete(d.todos, id)
		}
	}
}

// dropUserTodos forgets a deleted user's to-do items.
func (d *Data) dropUserTodos(userID int) {
	for id, t := range d.todos {
		if t.UserID == userID {
			d.Touch(t)
			delete(d.todos, id)
		}
	}
}
