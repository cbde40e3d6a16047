package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// RepositoryFile is the spec's Repository file resource.
type RepositoryFile struct {
	FileName        string `json:"file_name"`
	FilePath        string `json:"file_path"`
	Size            int    `json:"size"`
	Encoding        string `json:"encoding"`
	ContentSHA256   string `json:"content_sha256"`
	Ref             string `json:"ref"`
	BlobID          string `json:"blob_id"`
	CommitID        string `json:"commit_id"`
	LastCommitID    string `json:"last_commit_id"`
	ExecuteFilemode bool   `json:"execute_filemode"`
	Content         string `json:"content"`
}

type fileAt struct {
	RepositoryFile
	raw []byte
}

// readFile finds file_path at ref: 404 Commit Not Found for an unknown ref,
// 404 File Not Found for a path that is not a file there (rule files.get.3).
func readFile(ctx context.Context, rc *repoCtx, filePath, ref string, commit repository.Oid) (*fileAt, error) {
	if !repository.ValidPath(filePath) {
		return nil, notFound("File")
	}
	e, err := rc.Repo.Lookup(ctx, commit, filePath)
	if err != nil || e.Type != "blob" {
		if err != nil && !errors.Is(err, repository.ErrNotFound) {
			return nil, gitError(err, "File")
		}
		return nil, notFound("File")
	}
	content, err := rc.Repo.Blob(ctx, e.ID)
	if err != nil {
		return nil, gitError(err, "File")
	}
	last, err := rc.Repo.LastCommit(ctx, commit, filePath)
	if err != nil {
		return nil, gitError(err, "File")
	}
	sum := sha256.Sum256(content)
	return &fileAt{raw: content, RepositoryFile: RepositoryFile{
		FileName: path.Base(filePath), FilePath: filePath, Size: len(content), Encoding: "base64",
		ContentSHA256: hex.EncodeToString(sum[:]), Ref: ref, BlobID: string(e.ID), CommitID: string(commit),
		LastCommitID: string(last), ExecuteFilemode: e.Executable(),
	}}, nil
}

// setFileHeaders writes the X-Svc-* headers of HEAD (and of blame and raw).
func setFileHeaders(w http.ResponseWriter, f *fileAt) {
	h := w.Header()
	h.Set("X-Svc-Blob-Id", f.BlobID)
	h.Set("X-Svc-Commit-Id", f.CommitID)
	h.Set("X-Svc-Content-Sha256", f.ContentSHA256)
	h.Set("X-Svc-Encoding", f.Encoding)
	h.Set("X-Svc-File-Name", f.FileName)
	h.Set("X-Svc-File-Path", f.FilePath)
	h.Set("X-Svc-Last-Commit-Id", f.LastCommitID)
	h.Set("X-Svc-Ref", f.Ref)
	h.Set("X-Svc-Size", strconv.Itoa(f.Size))
	h.Set("X-Svc-Execute-Filemode", strconv.FormatBool(f.ExecuteFilemode))
}

// fileForRead is the common start of the read endpoints: parameters, access,
// the ref resolved to a commit, the file read.
func (s *Server) fileForRead(c *Ctx, ref *string) (*repoCtx, *fileAt, error) {
	rc, err := s.repoOf(c, false)
	if err != nil {
		return nil, nil, err
	}
	ctx := c.R.Context()
	var commit repository.Oid
	name := ""
	if ref == nil {
		// raw: the project's HEAD, its default branch (rule files.raw.2).
		commit, err = rc.head(ctx)
		name = rc.DefaultBranch
	} else {
		commit, err = rc.Repo.Resolve(ctx, *ref)
		name = *ref
	}
	if err != nil {
		return nil, nil, gitError(err, "Commit")
	}
	f, err := readFile(ctx, rc, c.R.PathValue("file_path"), name, commit)
	return rc, f, err
}

// getFile implements GET and HEAD /projects/:id/repository/files/:file_path
// (rules files.get.*, files.head.*, files.access.*, files.scope.1).
func (s *Server) getFile(c *Ctx) error {
	ref := c.In().String("ref")
	if err := c.In().Err(); err != nil {
		return err
	}
	_, f, err := s.fileForRead(c, ref)
	if err != nil {
		return err
	}
	setFileHeaders(c.W, f)
	if c.R.Method == http.MethodHead {
		c.W.WriteHeader(http.StatusOK)
		return nil
	}
	return writeFileJSON(c.W, &f.RepositoryFile, f.raw)
}

// writeFileJSON writes the file object with its Base64 content spliced in
// as-is: Base64 needs no JSON escaping, and running a megabyte of it through
// encoding/json costs more than reading the blob.
func writeFileJSON(w http.ResponseWriter, f *RepositoryFile, raw []byte) error {
	f.Content = ""
	head, err := json.Marshal(f)
	if err != nil {
		return err
	}
	head = bytes.TrimSuffix(head, []byte(`""}`))
	body := make([]byte, 0, len(head)+base64.StdEncoding.EncodedLen(len(raw))+2)
	body = append(append(body, head...), '"')
	body = base64.StdEncoding.AppendEncode(body, raw)
	body = append(body, '"', '}')
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return nil
}

// BlameRange is the spec's blame range: one commit and the consecutive lines it last changed.
type BlameRange struct {
	Commit BlameCommit `json:"commit"`
	Lines  []string    `json:"lines"`
}

// BlameCommit is the commit of a blame range, with the fields the spec lists.
type BlameCommit struct {
	ID             string   `json:"id"`
	Message        string   `json:"message"`
	ParentIDs      []string `json:"parent_ids"`
	AuthoredDate   string   `json:"authored_date"`
	AuthorName     string   `json:"author_name"`
	AuthorEmail    string   `json:"author_email"`
	CommittedDate  string   `json:"committed_date"`
	CommitterName  string   `json:"committer_name"`
	CommitterEmail string   `json:"committer_email"`
}

// blameFile implements GET and HEAD .../files/:file_path/blame (rules files.blame.*).
func (s *Server) blameFile(c *Ctx) error {
	in := c.In()
	ref := in.String("ref")
	var start, end int
	if c.P.Has("range") {
		rng := in.Hash("range")
		if err := in.Err(); err != nil {
			return err
		}
		// range is optional, but a range needs both ends.
		for _, k := range []string{"start", "end"} {
			v, ok := rng[k]
			if !ok {
				return missing("range[" + k + "]")
			}
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return invalidParam("range[" + k + "]")
			}
			if k == "start" {
				start = n
			} else {
				end = n
			}
		}
		if start < 1 {
			return invalidParam("range[start]")
		}
		if end < start {
			return invalidParam("range[end]")
		}
	}
	if err := in.Err(); err != nil {
		return err
	}
	rc, f, err := s.fileForRead(c, ref)
	if err != nil {
		return err
	}
	setFileHeaders(c.W, f)
	if c.R.Method == http.MethodHead {
		c.W.WriteHeader(http.StatusOK)
		return nil
	}
	lines := bytes.Count(f.raw, []byte("\n"))
	if len(f.raw) > 0 && f.raw[len(f.raw)-1] != '\n' {
		lines++
	}
	if start > 0 {
		if start > lines {
			return invalidParam("range[start]")
		}
		end = min(end, lines)
	}
	ctx := c.R.Context()
	out := []BlameRange{}
	if lines == 0 {
		return c.JSON(http.StatusOK, out)
	}
	blamed, err := rc.Repo.Blame(ctx, repository.Oid(f.CommitID), f.FilePath, start, end)
	if err != nil {
		return gitError(err, "File")
	}
	commits := map[repository.Oid]BlameCommit{}
	for _, l := range blamed {
		if n := len(out); n > 0 && out[n-1].Commit.ID == string(l.Commit) {
			out[n-1].Lines = append(out[n-1].Lines, l.Text)
			continue
		}
		bc, ok := commits[l.Commit]
		if !ok {
			cm, err := rc.Repo.Commit(ctx, l.Commit)
			if err != nil {
				return gitError(err, "Commit")
			}
			j := rc.commitJSON(cm, false)
			bc = BlameCommit{ID: j.ID, Message: j.Message, ParentIDs: j.ParentIDs, AuthoredDate: j.AuthoredDate,
				AuthorName: j.AuthorName, AuthorEmail: j.AuthorEmail, CommittedDate: j.CommittedDate,
				CommitterName: j.CommitterName, CommitterEmail: j.CommitterEmail}
			commits[l.Commit] = bc
		}
		out = append(out, BlameRange{Commit: bc, Lines: []string{l.Text}})
	}
	return c.JSON(http.StatusOK, out)
}

// rawFile implements GET and HEAD .../files/:file_path/raw (rules files.raw.*):
// the bytes as stored, or with lfs=true the large-file object a pointer names
// (404 when the project does not hold it, as the platform answers).
func (s *Server) rawFile(c *Ctx) error {
	ref := c.In().String("ref")
	lfs := c.In().BoolOr("lfs", false)
	if err := c.In().Err(); err != nil {
		return err
	}
	rc, f, err := s.fileForRead(c, ref)
	if err != nil {
		return err
	}
	body := f.raw
	if lfs {
		// The platform answers 404 for a pointer whose object the project
		// does not hold (not_found! unless lfs_object&.project_allowed_access?);
		// the spec is silent there. gitlabhq/gitlabhq lib/api/files.rb @017a6c12.
		if ptr, ok := repository.ParseLFSPointer(f.raw); ok {
			obj, err := rc.Repo.LFSObject(ptr)
			if err != nil {
				return notFoundPlain()
			}
			body = obj
		}
	}
	setFileHeaders(c.W, f)
	h := c.W.Header()
	if utf8.Valid(body) && !bytes.ContainsRune(body, 0) {
		h.Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		h.Set("Content-Type", "application/octet-stream")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	c.W.WriteHeader(http.StatusOK)
	if c.R.Method != http.MethodHead {
		c.W.Write(body)
	}
	return nil
}

// FileWriteResult is the answer of a file create or update.
type FileWriteResult struct {
	FilePath string `json:"file_path"`
	Branch   string `json:"branch"`
}

// commitFailed is Errors rule 5: a file write that fails answers 400 with a
// message that does not have to say why.
func commitFailed(msg string) *Error { return errorf(http.StatusBadRequest, "%s", msg) }

// decodeContent applies encoding (text, the default, or base64) to content.
func decodeContent(content string, encoding *string) ([]byte, bool) {
	if encoding == nil || *encoding == "text" {
		return []byte(content), true
	}
	b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(content), ""))
	return b, err == nil
}

// fileWrite reads what create, update and delete share and checks the path
// (rule files.write.1).
func (s *Server) fileWrite(c *Ctx, kind string) (*repoCtx, *repository.CommitRequest, error) {
	in := c.In()
	branch, msg := in.StringOr("branch", ""), in.StringOr("commit_message", "")
	content := in.StringOr("content", "")
	encoding := in.String("encoding")
	authorEmail, authorName := in.String("author_email"), in.String("author_name")
	exec := in.Bool("execute_filemode")
	startBranch := in.String("start_branch")
	lastCommit := in.String("last_commit_id")
	if err := in.Err(); err != nil {
		return nil, nil, err
	}
	rc, err := s.repoOf(c, true)
	if err != nil {
		return nil, nil, err
	}
	filePath := c.R.PathValue("file_path")
	if strings.Contains("/"+filePath+"/", "/../") || !repository.ValidPath(filePath) {
		return nil, nil, commitFailed("file_path should be a valid file path")
	}
	a := repository.Action{Kind: kind, Path: filePath, Executable: exec}
	if kind != "delete" {
		b, ok := decodeContent(content, encoding)
		if !ok {
			return nil, nil, commitFailed("content is not valid base64")
		}
		a.Content, a.HasContent = b, true
	}
	req := &repository.CommitRequest{Branch: branch, Message: msg, Actions: []repository.Action{a}, RejectEmpty: true,
		Author: rc.Signature(s.repos.Now())}
	if authorName != nil {
		req.Author.Name = *authorName
	}
	if authorEmail != nil {
		req.Author.Email = *authorEmail
	}
	if startBranch != nil {
		req.StartBranch = *startBranch
	}
	if lastCommit != nil {
		req.LastCommitIDs = map[int]string{0: *lastCommit}
	}
	return rc, req, nil
}

// createFile implements POST .../files/:file_path (rules files.create.*, files.write.*).
func (s *Server) createFile(c *Ctx) error {
	rc, req, err := s.fileWrite(c, "create")
	if err != nil {
		return err
	}
	if _, err := s.repos.Commit(c.R.Context(), &rc.Target, req); err != nil {
		return workflowError(err)
	}
	return c.JSON(http.StatusCreated, FileWriteResult{FilePath: req.Actions[0].Path, Branch: req.Branch})
}

// updateFile implements PUT .../files/:file_path (rules files.update.*, files.write.*).
func (s *Server) updateFile(c *Ctx) error {
	rc, req, err := s.fileWrite(c, "update")
	if err != nil {
		return err
	}
	if _, err := s.repos.Commit(c.R.Context(), &rc.Target, req); err != nil {
		return workflowError(err)
	}
	return c.JSON(http.StatusOK, FileWriteResult{FilePath: req.Actions[0].Path, Branch: req.Branch})
}

// deleteFile implements DELETE .../files/:file_path (rules files.delete.*, files.write.*).
func (s *Server) deleteFile(c *Ctx) error {
	rc, req, err := s.fileWrite(c, "delete")
	if err != nil {
		return err
	}
	if _, err := s.repos.Commit(c.R.Context(), &rc.Target, req); err != nil {
		return workflowError(err)
	}
	return c.NoContent()
}
