package store

import (
	"fmt"
	"unicode/utf8"
)

// Lengths the platform's records allow (its database columns and model
// validations); past them a write is a validation failure (Errors rule 3)
// rather than a record no client could use.
const (
	MaxName               = 255  // user, group and project names, paths, usernames, e-mail addresses
	MaxProjectDescription = 2000 // characters
	MaxGroupDescription   = 500  // characters
)

// checkLength adds the platform's too-long message for field when s has more
// than max characters.
func (v *ValidationError) checkLength(field, s string, max int) {
	if utf8.RuneCountInString(s) > max {
		v.Fields[field] = append(v.Fields[field], fmt.Sprintf("is too long (maximum is %d characters)", max))
	}
}
