package git

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits on what the API writes into a repository. Git itself has few, but
// the system under it does: an environment string (how an identity reaches
// git) is at most 128 KiB, a ref is a file whose name is at most 255 bytes.
// The values follow the platform's: 255 characters for names and e-mail
// addresses, as its user records allow.
const (
	// MaxRefName is the longest branch or tag name, in bytes; no part of
	// it between slashes may pass MaxRefComponent (git locks a ref by
	// writing `<name>.lock`, itself a file name of at most 255 bytes).
	MaxRefName      = 255
	MaxRefComponent = 250
	maxRefPath      = 1024
	// MaxPath is the longest file path, in bytes; MaxPathComponent the
	// longest name between two slashes (what a checkout can create).
	MaxPath          = 4096
	MaxPathComponent = 255
	// MaxMessage is the longest commit or tag message, in bytes.
	MaxMessage = 1 << 20
	// MaxIdentity is the longest author name or e-mail address, in characters.
	MaxIdentity = 255
)

// Reasons a value cannot be written, worded as the platform's validation
// messages (Errors rule 3).
const (
	ReasonBlank   = "can't be blank"
	ReasonInvalid = "is invalid"
)

func tooLong(max int, unit string) string {
	return fmt.Sprintf("is too long (maximum is %d %s)", max, unit)
}

// isCrud is what git strips from the ends of a name (ident.c); a name of
// nothing else is refused by git ("name consists only of disallowed characters").
func isCrud(r rune) bool {
	return r <= ' ' || strings.ContainsRune(".,:;<>\"\\'", r)
}

// NameProblem says why name cannot be an author or committer name, or "".
// git would silently drop '<', '>' and newlines; the API refuses them instead
// of committing another name than the one it was given.
func NameProblem(name string) string {
	switch {
	case strings.TrimFunc(name, isCrud) == "":
		return ReasonBlank
	case utf8.RuneCountInString(name) > MaxIdentity:
		return tooLong(MaxIdentity, "characters")
	case !utf8.ValidString(name) || strings.ContainsAny(name, "<>\n\r\x00"):
		return ReasonInvalid
	}
	return ""
}

// EmailProblem says why email cannot be an author or committer e-mail, or "".
func EmailProblem(email string) string {
	switch {
	case strings.TrimSpace(email) == "":
		return ReasonBlank
	case utf8.RuneCountInString(email) > MaxIdentity:
		return tooLong(MaxIdentity, "characters")
	case !utf8.ValidString(email) || strings.ContainsAny(email, "<>\n\r\x00"):
		return ReasonInvalid
	}
	return ""
}

// MessageProblem says why msg cannot be a commit or tag message, or "".
// git refuses a NUL byte in a message.
func MessageProblem(msg string) string {
	switch {
	case len(msg) > MaxMessage:
		return tooLong(MaxMessage, "bytes")
	case strings.ContainsRune(msg, 0):
		return ReasonInvalid
	}
	return ""
}

// RefNameProblem says why name cannot be a branch or tag name, or "".
func RefNameProblem(name string) string {
	switch {
	case name == "":
		return ReasonBlank
	case len(name) > MaxRefName:
		return tooLong(MaxRefName, "bytes")
	case !ValidRefName(name):
		return ReasonInvalid
	}
	return ""
}

// PathProblem says why p cannot be a file path, or "".
func PathProblem(p string) string {
	switch {
	case p == "":
		return ReasonBlank
	case len(p) > MaxPath:
		return tooLong(MaxPath, "bytes")
	case !ValidPath(p):
		return ReasonInvalid
	}
	return ""
}
