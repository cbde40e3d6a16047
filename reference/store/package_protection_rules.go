package store

import "slices"

// PackageProtectionRule restricts who may push packages whose names match a
// pattern (`*` is a wildcard) of one package type in one project.
type PackageProtectionRule struct {
	ID                        int
	ProjectID                 int
	PackageNamePattern        string
	PackageType               string
	MinimumAccessLevelForPush string
}

// PackageTypes are the package types a protection rule may name, as the
// platform's rule model lists them.
var PackageTypes = []string{"conan", "generic", "helm", "maven", "npm", "nuget", "pypi"}

// PackagePushLevels are the values of minimum_access_level_for_push: at least
// maintainer (Resources, Package protection rule).
var PackagePushLevels = []string{"maintainer", "owner", "admin"}

// PackageRuleTaken is the message for a package_name_pattern already protected
// for the same project and package type, worded as the platform words it.
const PackageRuleTaken = "Package name pattern has already been taken"

// PackageRuleError is a rule the platform's model refuses (422 with the
// model's full messages).
type PackageRuleError struct{ Messages []string }

func (e *PackageRuleError) Error() string { return e.Messages[0] }

// maxPackageNamePattern is the platform's column limit for the pattern.
const maxPackageNamePattern = 255

// PackageProtectionRuleFields holds what POST and PATCH accept; nil means not given.
type PackageProtectionRuleFields struct {
	PackageNamePattern        *string
	PackageType               *string
	MinimumAccessLevelForPush *string
}

// PackageProtectionRules lists a project's rules by ascending id.
func (d *Data) PackageProtectionRules(projectID int) []*PackageProtectionRule {
	return slices.Clone(d.packageRules[projectID])
}

// PackageProtectionRule finds a rule of one project; a rule of another project is not found.
func (d *Data) PackageProtectionRule(projectID, id int) *PackageProtectionRule {
	for _, r := range d.packageRules[projectID] {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// CreatePackageProtectionRule validates and stores a rule; the caller has
// checked that the package type and access level are among the allowed values.
func (d *Data) CreatePackageProtectionRule(projectID int, f PackageProtectionRuleFields) (*PackageProtectionRule, error) {
	r := &PackageProtectionRule{ProjectID: projectID}
	applyPackageRule(r, f)
	if err := d.checkPackageRule(r); err != nil {
		return nil, err
	}
	if d.packageRules == nil {
		d.packageRules = map[int][]*PackageProtectionRule{}
	}
	r.ID = d.next("package_protection_rule")
	d.packageRules[projectID] = append(d.packageRules[projectID], r)
	d.Touch(r)
	return r, nil
}

// UpdatePackageProtectionRule changes the fields given, or nothing when the
// result would be refused.
func (d *Data) UpdatePackageProtectionRule(r *PackageProtectionRule, f PackageProtectionRuleFields) error {
	next := *r
	applyPackageRule(&next, f)
	if err := d.checkPackageRule(&next); err != nil {
		return err
	}
	*r = next
	d.Touch(r)
	return nil
}

// DeletePackageProtectionRule removes a rule.
func (d *Data) DeletePackageProtectionRule(r *PackageProtectionRule) {
	d.packageRules[r.ProjectID] = slices.DeleteFunc(d.packageRules[r.ProjectID],
		func(x *PackageProtectionRule) bool { return x.ID == r.ID })
	d.Touch(r)
}

// dropPackageProtectionRules forgets a deleted project's rules.
func (d *Data) dropPackageProtectionRules(projectID int) {
	d.touchKey(tPackageRules, projectID)
	delete(d.packageRules, projectID)
}

func applyPackageRule(r *PackageProtectionRule, f PackageProtectionRuleFields) {
	if f.PackageNamePattern != nil {
		r.PackageNamePattern = *f.PackageNamePattern
	}
	if f.PackageType != nil {
		r.PackageType = *f.PackageType
	}
	if f.MinimumAccessLevelForPush != nil {
		r.MinimumAccessLevelForPush = *f.MinimumAccessLevelForPush
	}
}

// checkPackageRule applies the model's rules: a pattern is present, at most
// 255 characters, and unique within its project and package type.
func (d *Data) checkPackageRule(r *PackageProtectionRule) error {
	var msgs []string
	switch {
	case r.PackageNamePattern == "":
		msgs = append(msgs, "Package name pattern can't be blank")
	case len([]rune(r.PackageNamePattern)) > maxPackageNamePattern:
		msgs = append(msgs, "Package name pattern is too long (maximum is 255 characters)")
	}
	for _, o := range d.packageRules[r.ProjectID] {
		if o.ID != r.ID && o.PackageType == r.PackageType && o.PackageNamePattern == r.PackageNamePattern {
			msgs = append(msgs, PackageRuleTaken)
			break
		}
	}
	if len(msgs) > 0 {
		return &PackageRuleError{Messages: msgs}
	}
	return nil
}
