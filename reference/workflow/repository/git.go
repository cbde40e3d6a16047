package repository

import (
	"strings"

	"github.com/v4cert/v4cert/reference/git"
)

// The repository's values, as the workflows' callers read and pass them.
// They are git's own (aliases, not copies), so a caller reads a repository
// through this package without importing reference/git.
type (
	Repo       = git.Repo
	Oid        = git.Oid
	Commit     = git.Commit
	Ref        = git.Ref
	RefMove    = git.RefMove
	Signature  = git.Signature
	Action     = git.Action
	FileDiff   = git.FileDiff
	Stats      = git.Stats
	LogOptions = git.LogOptions
)

// ZeroOid is the old (or new) side of a ref created (or deleted).
const ZeroOid = git.ZeroOid

// MaxRefName is the longest branch or tag name a write accepts.
const MaxRefName = git.MaxRefName

// git's sentinel errors, which reads return as they are.
var (
	ErrNotFound   = git.ErrNotFound
	ErrUnrelated  = git.ErrUnrelated
	ErrBadPattern = git.ErrBadPattern
)

// The names git accepts and the platform's reasons for those it refuses.
var (
	ValidPath       = git.ValidPath
	ValidRefName    = git.ValidRefName
	IsOid           = git.IsOid
	MessageProblem  = git.MessageProblem
	Trailers        = git.Trailers
	ParseLFSPointer = git.ParseLFSPointer
)

// ValidBranchName is a branch name git accepts, for the 400s of writes.
func ValidBranchName(name string) bool {
	return git.ValidRefName(name) && !strings.HasPrefix(name, "refs/")
}
