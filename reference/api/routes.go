package api

import (
	"fmt"

	"v4cert/reference/store"
)

// handlers maps rulebook endpoint IDs to their handlers. Each area file adds
// its own rows in init; New checks the table against the rulebook both ways,
// so a route cannot exist without its spec entry or the reverse.
var handlers = map[string]handler{}

func addHandlers(rows map[string]handler) {
	for id, h := range rows {
		if _, dup := handlers[id]; dup {
			panic(fmt.Sprintf("handler %s registered twice", id))
		}
		handlers[id] = h
	}
}

// onGroup and onProject adapt a handler that serves both groups and projects
// (members, access requests) to one route.
func onGroup(h func(*Server, *Ctx, store.SourceType) error) handler {
	return func(s *Server, c *Ctx) error { return h(s, c, store.SourceGroup) }
}

func onProject(h func(*Server, *Ctx, store.SourceType) error) handler {
	return func(s *Server, c *Ctx) error { return h(s, c, store.SourceProject) }
}
