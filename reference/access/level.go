// Package access holds the spec's access levels (Authentication rule 6).
package access

import "fmt"

// Level is a role as the spec numbers it.
type Level int

// The access levels of Authentication rule 6; Admin exists in the members API only.
const (
	None       Level = 0
	Minimal    Level = 5
	Guest      Level = 10
	Reporter   Level = 20
	Developer  Level = 30
	Maintainer Level = 40
	Owner      Level = 50
	Admin      Level = 60
)

var names = map[Level]string{
	None: "No access", Minimal: "Minimal Access", Guest: "Guest", Reporter: "Reporter",
	Developer: "Developer", Maintainer: "Maintainer", Owner: "Owner", Admin: "Admin",
}

func (l Level) String() string {
	if n, ok := names[l]; ok {
		return n
	}
	return fmt.Sprintf("Level(%d)", int(l))
}

// Valid reports whether l is one of the levels the spec lists.
func (l Level) Valid() bool { _, ok := names[l]; return ok }

// Assignable reports whether l may be given to a member (Minimal to Owner).
func (l Level) Assignable() bool { return l.Valid() && l >= Minimal && l <= Owner }
