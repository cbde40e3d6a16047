package api

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/v4cert/v4cert/reference/access"
	"github.com/v4cert/v4cert/reference/store"
)

// PackageProtectionRuleJSON is the Package protection rule resource.
type PackageProtectionRuleJSON struct {
	ID                        int    `json:"id"`
	ProjectID                 int    `json:"project_id"`
	PackageNamePattern        string `json:"package_name_pattern"`
	PackageType               string `json:"package_type"`
	MinimumAccessLevelForPush string `json:"minimum_access_level_for_push"`
}

func packageProtectionRule(r *store.PackageProtectionRule) PackageProtectionRuleJSON {
	return PackageProtectionRuleJSON{ID: r.ID, ProjectID: r.ProjectID, PackageNamePattern: r.PackageNamePattern,
		PackageType: r.PackageType, MinimumAccessLevelForPush: r.MinimumAccessLevelForPush}
}

// packageRulesProject resolves the project of every package protection rule
// endpoint: 404 when missing or hidden, 403 below Maintainer, the platform's
// admin_package permission (Errors rule 7; Authentication 8).
func (c *Ctx) packageRulesProject(d *store.Data) (*store.Project, error) {
	p, err := c.projectOf(d, "id")
	if err != nil {
		return nil, err
	}
	if err := c.requireProjectRole(d, p, access.Maintainer); err != nil {
		return nil, err
	}
	return p, nil
}

// packageRuleID reads :package_protection_rule_id; the platform types it
// Integer, so anything else is invalid input (400), not a missing rule.
func (c *Ctx) packageRuleID() (int, error) {
	id, err := strconv.Atoi(c.R.PathValue("package_protection_rule_id"))
	if err != nil {
		return 0, invalidParam("package_protection_rule_id")
	}
	return id, nil
}

// packageRuleOf finds the rule of the resolved project; another project's rule is not found.
func (c *Ctx) packageRuleOf(d *store.Data, p *store.Project, id int) (*store.PackageProtectionRule, error) {
	r := d.PackageProtectionRule(p.ID, id)
	if r == nil {
		return nil, notFound("Package Protection Rule")
	}
	return r, nil
}

// readPackageRuleFields reads what POST and PATCH accept; values outside the
// platform's package types and push levels are invalid input (400).
func (c *Ctx) readPackageRuleFields() (store.PackageProtectionRuleFields, error) {
	in := c.In()
	f := store.PackageProtectionRuleFields{
		PackageNamePattern:        in.String("package_name_pattern"),
		PackageType:               in.String("package_type"),
		MinimumAccessLevelForPush: in.String("minimum_access_level_for_push"),
	}
	return f, in.Err()
}

// packageRuleRefused is what the platform answers when its model refuses a
// rule: 422 with the model's messages under `error` (Errors rule 7).
func packageRuleRefused(err error) error {
	var re *store.PackageRuleError
	if errors.As(err, &re) {
		return &Error{Status: http.StatusUnprocessableEntity,
			Body: map[string]any{"message": map[string]any{"error": re.Messages}}}
	}
	return err
}

// listPackageProtectionRules implements GET /projects/:id/packages/protection/rules
// (rules package_protection_rules.list.*, .ids.3, .access.*).
func (s *Server) listPackageProtectionRules(c *Ctx) error {
	return s.readPage(c, func(d *store.Data) (*Page, error) {
		p, err := c.packageRulesProject(d)
		if err != nil {
			return nil, err
		}
		return Paginate(c, d.PackageProtectionRules(p.ID), nil, packageProtectionRule)
	})
}

// createPackageProtectionRule implements POST /projects/:id/packages/protection/rules
// (rules package_protection_rules.create.*, .access.*).
func (s *Server) createPackageProtectionRule(c *Ctx) error {
	f, err := c.readPackageRuleFields()
	if err != nil {
		return err
	}
	var out PackageProtectionRuleJSON
	err = s.store.Write(func(d *store.Data) error {
		p, err := c.packageRulesProject(d)
		if err != nil {
			return err
		}
		r, err := d.CreatePackageProtectionRule(p.ID, f)
		if err != nil {
			return packageRuleRefused(err)
		}
		out = packageProtectionRule(r)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusCreated, out)
}

// editPackageProtectionRule implements PATCH
// /projects/:id/packages/protection/rules/:package_protection_rule_id
// (rules package_protection_rules.edit.*, .ids.*, .access.*).
func (s *Server) editPackageProtectionRule(c *Ctx) error {
	id, err := c.packageRuleID()
	if err != nil {
		return err
	}
	f, err := c.readPackageRuleFields()
	if err != nil {
		return err
	}
	var out PackageProtectionRuleJSON
	err = s.store.Write(func(d *store.Data) error {
		p, err := c.packageRulesProject(d)
		if err != nil {
			return err
		}
		r, err := c.packageRuleOf(d, p, id)
		if err != nil {
			return err
		}
		if err := d.UpdatePackageProtectionRule(r, f); err != nil {
			return packageRuleRefused(err)
		}
		out = packageProtectionRule(r)
		return nil
	})
	if err != nil {
		return err
	}
	return c.JSON(http.StatusOK, out)
}

// deletePackageProtectionRule implements DELETE
// /projects/:id/packages/protection/rules/:package_protection_rule_id
// (rules package_protection_rules.delete.1, .ids.*, .access.*).
func (s *Server) deletePackageProtectionRule(c *Ctx) error {
	id, err := c.packageRuleID()
	if err != nil {
		return err
	}
	err = s.store.Write(func(d *store.Data) error {
		p, err := c.packageRulesProject(d)
		if err != nil {
			return err
		}
		r, err := c.packageRuleOf(d, p, id)
		if err != nil {
			return err
		}
		d.DeletePackageProtectionRule(r)
		return nil
	})
	if err != nil {
		return err
	}
	return c.NoContent()
}
