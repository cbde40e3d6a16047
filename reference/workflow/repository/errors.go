package repository

import "errors"

// The platform's refusals of a repository write. A workflow returns them as
// a *Refusal carrying the platform's message; the HTTP layer answers each
// family with its own shape.
var (
	// ErrCommitRefused is a commit write (files, commits, cherry-pick,
	// revert) the platform refuses: Errors rule 5, 400 with the message alone
	// (and an error_code for cherry-pick and revert, Errors rule 4).
	ErrCommitRefused = errors.New("commit refused")
	// ErrRefRefused is a branch or tag creation the platform refuses: 400
	// "(Bad request)" with the message.
	ErrRefRefused = errors.New("ref refused")
)

// Refusal is a write refused by the platform's rules; nothing was written.
type Refusal struct {
	Kind error  // ErrCommitRefused or ErrRefRefused
	Msg  string // the platform's message
	Code string // cherry-pick and revert's error_code ("conflict", "empty"); "" otherwise
}

func (r *Refusal) Error() string { return r.Msg }

func (r *Refusal) Unwrap() error { return r.Kind }

func commitRefused(msg string) *Refusal { return &Refusal{Kind: ErrCommitRefused, Msg: msg} }

func refRefused(msg string) *Refusal { return &Refusal{Kind: ErrRefRefused, Msg: msg} }

// Failure is git failing under a workflow: Object names what was being read
// or written ("Branch", "Commit", "Tag", "Repository"), so a missing one
// (errors.Is(err, ErrNotFound)) is answered as that object's 404.
type Failure struct {
	Object string
	Err    error
}

func (f *Failure) Error() string { return f.Object + ": " + f.Err.Error() }

func (f *Failure) Unwrap() error { return f.Err }

func failed(object string, err error) *Failure { return &Failure{Object: object, Err: err} }
