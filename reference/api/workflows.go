package api

import (
	"errors"
	"net/http"

	"github.com/v4cert/v4cert/reference/workflow/ci"
	"github.com/v4cert/v4cert/reference/workflow/mergerequests"
	"github.com/v4cert/v4cert/reference/workflow/repository"
)

// workflowError answers what a workflow (reference/workflow/...) returned,
// in one place: a repository write's refusal in the shape the platform gives
// its family, a git failure as gitError does (the named 404 or a 500), a
// merge's refusals as the platform's 405, 409 and 422.
// Everything else (a *store.ValidationError, store.ErrNotFound, an *Error)
// goes on to asError unchanged.
func workflowError(err error) error {
	var ref *repository.Refusal
	var f *repository.Failure
	var sha *mergerequests.SHAMismatchError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ref):
		if errors.Is(ref, repository.ErrRefRefused) {
			return badRequest(ref.Msg)
		}
		e := commitFailed(ref.Msg)
		if ref.Code != "" {
			e.Body["error_code"] = ref.Code // Errors rule 4
		}
		return e
	case errors.As(err, &f):
		return gitError(f.Err, f.Object)
	case errors.Is(err, mergerequests.ErrNotMergeable):
		return mergeNotAllowed()
	case errors.As(err, &sha):
		return errorf(http.StatusConflict, "%s", sha.Error())
	case errors.Is(err, ci.ErrNoProject):
		return notFound("Project")
	case errors.Is(err, mergerequests.ErrCannotMerge):
		return errorf(http.StatusUnprocessableEntity, "Branch cannot be merged")
	}
	return err
}
