package api

import (
	"errors"
	"net/http"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// RemoteMirrorJSON is the Remote (push) mirror resource. URL is always the
// masked form (rule remote_mirrors.url.1); MirrorBranchRegex is the paid-tier field.
type RemoteMirrorJSON struct {
	ID                     int     `json:"id"`
	Enabled                bool    `json:"enabled"`
	AuthMethod             string  `json:"auth_method"`
	LastError              *string `json:"last_error"`
	LastSuccessfulUpdateAt *string `json:"last_successful_update_at"`
	LastUpdateAt           *string `json:"last_update_at"`
	LastUpdateStartedAt    *string `json:"last_update_started_at"`
	OnlyProtectedBranches  bool    `json:"only_protected_branches"`
	KeepDivergentRefs      bool    `json:"keep_divergent_refs"`
	UpdateStatus           string  `json:"update_status"`
	URL                    string  `json:"url"`
	MirrorBranchRegex      *string `json:"mirror_branch_regex"`
}

func remoteMirrorJSON(m *store.RemoteMirror) RemoteMirrorJSON {
	return RemoteMirrorJSON{ID: m.ID, Enabled: m.Enabled, AuthMethod: m.AuthMethod, LastError: m.LastError,
		LastSuccessfulUpdateAt: tsPtr(m.LastSuccessfulUpdateAt), LastUpdateAt: tsPtr(m.LastUpdateAt),
		LastUpdateStartedAt: tsPtr(m.LastUpdateStartedAt), OnlyProtectedBranches: m.OnlyProtectedBranches,
		KeepDivergentRefs: m.KeepDivergentRefs, UpdateStatus: m.UpdateStatus, URL: m.SafeURL(),
		MirrorBranchRegex: m.MirrorBranchRegex}
}

// mirrorProject resolves `:id` (404 when hidden, rule remote_mirrors.access.3)
// and requires Maintainer or above (rule remote_mirrors.access.2): the
// platform's admin_remote_mirror permission. The platform refuses lower roles
// with 401; the reference answers the 403 of Authentication rule 8.
func (c *Ctx) mirrorProject(d *store.Data) (*store.Project, error) {
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, err
	}
	if err := c.requireProjectRole(d, p, access.Maintainer); err != nil {
		return nil, err
	}
	return p, nil
}

// mirrorOf resolves the project and then `:mirror_id` within it; another
// project's mirror is not found.
func (c *Ctx) mirrorOf(d *store.Data) (*store.RemoteMirror, error) {
	p, err := c.mirrorProject(d)
	if err != nil {
		return nil, err
	}
	id, err := c.PathInt("mirror_id", "Remote Mirror")
	if err != nil {
		return nil, err
	}
	m := d.RemoteMirror(p.ID, id)
	if m == nil {
		return nil, notFound("Remote Mirror")
	}
	return m, nil
}

// listRemoteMirrors implements GET /projects/:id/remote_mirrors (rules remote_mirrors.list.*).
func (s *Server) listRemoteMirrors(c *Ctx) error {
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		p, err := c.mirrorProject(d)
		if err != nil {
			return nil, err
		}
		return Paginate(c, d.RemoteMirrors(p.ID), nil, remoteMirrorJSON)
	})
}

// getRemoteMirror implements GET /projects/:id/remote_mirrors/:mirror_id (rules remote_mirrors.get.*).
func (s *Server) getRemoteMirror(c *Ctx) error {
	var out RemoteMirrorJSON
	err := s.store.Read(func(d *store.Data) error {
		m, err := c.mirrorOf(d)
		if err != nil {
			return err
		}
		out = remoteMirrorJSON(m)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// readRemoteMirrorFields reads what POST and PUT .../remote_mirrors accept.
// An auth_method outside its set answers as the platform's parameter check
// does; the store repeats the check for its own callers.
func (c *Ctx) readRemoteMirrorFields() (store.RemoteMirrorFields, error) {
	in := c.In()
	f := store.RemoteMirrorFields{URL: in.String("url"), Enabled: in.Bool("enabled"),
		KeepDivergentRefs: in.Bool("keep_divergent_refs"), OnlyProtectedBranches: in.Bool("only_protected_branches"),
		MirrorBranchRegex: in.String("mirror_branch_regex"), AuthMethod: in.String("auth_method")}
	if err := in.Err(); err != nil {
		return f, err
	}
	// Both given at once: the platform declares the pair mutually_exclusive,
	// so Grape refuses the request whatever the values, before the model's
	// validation could (diffblue/gitlab, a mirror of the platform,
	// ee/lib/ee/api/helpers/remote_mirrors_helpers.rb @1893cff9, mirror_branches_setting_ee:
	// mutually_exclusive :only_protected_branches, :mirror_branch_regex;
	// ruby-grape/grape lib/grape/validations/validators/mutual_exclusion_validator.rb
	// v2.0.0; rules remote_mirrors.create.6 and edit.2, class 2).
	if f.OnlyProtectedBranches != nil && f.MirrorBranchRegex != nil {
		return f, grapeError(http.StatusBadRequest, "only_protected_branches, mirror_branch_regex are mutually exclusive")
	}
	if f.AuthMethod != nil && !contains(store.MirrorAuthMethods, *f.AuthMethod) {
		e := badRequest("auth_method does not have a valid value")
		e.Body["error"] = "auth_method does not have a valid value"
		return f, e
	}
	return f, nil
}

// createRemoteMirror implements POST /projects/:id/remote_mirrors (rules
// remote_mirrors.create.*, remote_mirrors.url.1).
func (s *Server) createRemoteMirror(c *Ctx) error {
	var out RemoteMirrorJSON
	err := s.store.Write(func(d *store.Data) error {
		p, err := c.mirrorProject(d)
		if err != nil {
			return err
		}
		f, err := c.readRemoteMirrorFields()
		if err != nil {
			return err
		}
		m, err := d.CreateRemoteMirror(p.ID, f)
		if err != nil {
			return err
		}
		out = remoteMirrorJSON(m)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// editRemoteMirror implements PUT /projects/:id/remote_mirrors/:mirror_id
// (rules remote_mirrors.edit.*). The url cannot be changed here, as on the platform.
func (s *Server) editRemoteMirror(c *Ctx) error {
	var out RemoteMirrorJSON
	err := s.store.Write(func(d *store.Data) error {
		m, err := c.mirrorOf(d)
		if err != nil {
			return err
		}
		f, err := c.readRemoteMirrorFields()
		if err != nil {
			return err
		}
		f.URL = nil
		if err := d.UpdateRemoteMirror(m, f); err != nil {
			return err
		}
		out = remoteMirrorJSON(m)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// syncRemoteMirror implements POST /projects/:id/remote_mirrors/:mirror_id/sync
// (rules remote_mirrors.sync.*): the update is recorded as finished at once,
// without any push (see store.SyncRemoteMirror).
func (s *Server) syncRemoteMirror(c *Ctx) error {
	err := s.store.Write(func(d *store.Data) error {
		m, err := c.mirrorOf(d)
		if err != nil {
			return err
		}
		if err := d.SyncRemoteMirror(m); err != nil {
			if errors.Is(err, store.ErrMirrorDisabled) {
				// The platform answers its own sentence as the whole message.
				return errorf(http.StatusBadRequest, "Cannot proceed with the push mirroring. Please verify your mirror configuration.")
			}
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}

// deleteRemoteMirror implements DELETE /projects/:id/remote_mirrors/:mirror_id (rules remote_mirrors.delete.*).
func (s *Server) deleteRemoteMirror(c *Ctx) error {
	err := s.store.Write(func(d *store.Data) error {
		m, err := c.mirrorOf(d)
		if err != nil {
			return err
		}
		d.DeleteRemoteMirror(m)
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}
