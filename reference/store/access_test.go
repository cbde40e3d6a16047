package store

import (
	"testing"
	"time"

	"github.com/v4cert/v4cert/reference/access"
)

type fixture struct {
	d                *Data
	owner, alice     *User
	top, sub, leaf   *Group
	invited, outside *Group
	proj             *Project
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	d := newData(func() time.Time { return FixedTime })
	f := &fixture{d: d}
	mkUser := func(name string) *User {
		u, err := d.CreateUser(NewUser{Username: name, Name: name, Email: name + "@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	mkGroup := func(path string, parent int, vis string) *Group {
		g, err := d.CreateGroup(NewGroup{Name: path, Path: path, ParentID: parent, Visibility: vis, CreatorID: f.owner.ID})
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	f.owner, f.alice = mkUser("owner"), mkUser("alice")
	f.top = mkGroup("top", 0, "private")
	f.sub = mkGroup("sub", f.top.ID, "private")
	f.leaf = mkGroup("leaf", f.sub.ID, "private")
	f.invited = mkGroup("invited", 0, "private")
	f.outside = mkGroup("outside", 0, "private")
	ns := f.sub.ID
	name := "app"
	p, err := d.CreateProject(f.owner, ProjectFields{Name: &name, NamespaceID: &ns})
	if err != nil {
		t.Fatal(err)
	}
	f.proj = p
	return f
}

func TestAccessInheritsDownTheHierarchy(t *testing.T) {
	f := newFixture(t)
	f.d.AddMember(SourceGroup, f.top.ID, f.alice.ID, access.Reporter, nil, f.owner.ID)
	for _, g := range []*Group{f.top, f.sub, f.leaf} {
		if got := f.d.GroupAccess(f.alice, g); got != access.Reporter {
			t.Errorf("GroupAccess(%s) = %v, want Reporter", g.Path, got)
		}
	}
	if got := f.d.ProjectAccess(f.alice, f.proj); got != access.Reporter {
		t.Errorf("ProjectAccess = %v, want Reporter", got)
	}
	if got := f.d.GroupAccess(f.alice, f.outside); got != access.None {
		t.Errorf("unrelated group: %v", got)
	}
}

func TestHighestAccessWins(t *testing.T) {
	f := newFixture(t)
	f.d.AddMember(SourceGroup, f.top.ID, f.alice.ID, access.Developer, nil, f.owner.ID)
	f.d.AddMember(SourceGroup, f.sub.ID, f.alice.ID, access.Guest, nil, f.owner.ID)
	f.d.AddMember(SourceGroup, f.leaf.ID, f.alice.ID, access.Maintainer, nil, f.owner.ID)
	if got := f.d.GroupAccess(f.alice, f.sub); got != access.Developer {
		t.Errorf("sub: %v, want Developer (inherited beats the lower direct role)", got)
	}
	if got := f.d.GroupAccess(f.alice, f.leaf); got != access.Maintainer {
		t.Errorf("leaf: %v, want Maintainer", got)
	}
	grants := f.d.Grants(SourceGroup, f.leaf.ID)[f.alice.ID]
	if len(grants) != 3 || Best(grants).Level != access.Maintainer {
		t.Errorf("grants %v, best %v", grants, Best(grants).Level)
	}
}

func TestInvitedGroupIsCappedAtTheShare(t *testing.T) {
	f := newFixture(t)
	f.d.AddMember(SourceGroup, f.invited.ID, f.alice.ID, access.Owner, nil, f.owner.ID)
	if _, err := f.d.ShareWithGroup(SourceGroup, f.top.ID, f.invited, access.Reporter, nil); err != nil {
		t.Fatal(err)
	}
	if got := f.d.GroupAccess(f.alice, f.leaf); got != access.Reporter {
		t.Errorf("through an invite into an ancestor: %v, want Reporter (capped)", got)
	}
	if _, err := f.d.ShareWithGroup(SourceGroup, f.top.ID, f.invited, access.Guest, nil); err != ErrConflict {
		t.Errorf("sharing twice: %v, want ErrConflict", err)
	}
	// Below the cap the member keeps their own level.
	bob, _ := f.d.CreateUser(NewUser{Username: "bob", Name: "bob", Email: "bob@example.com"})
	f.d.AddMember(SourceGroup, f.invited.ID, bob.ID, access.Guest, nil, f.owner.ID)
	if got := f.d.ProjectAccess(bob, f.proj); got != access.Guest {
		t.Errorf("bob: %v, want Guest", got)
	}
}

func TestExpiredMembershipGrantsNothing(t *testing.T) {
	f := newFixture(t)
	yesterday := FixedTime.Add(-48 * time.Hour)
	f.d.AddMember(SourceGroup, f.top.ID, f.alice.ID, access.Developer, &yesterday, f.owner.ID)
	if got := f.d.GroupAccess(f.alice, f.top); got != access.None {
		t.Errorf("expired: %v", got)
	}
	today := FixedTime
	f.d.RemoveMember(SourceGroup, f.top.ID, f.alice.ID)
	f.d.AddMember(SourceGroup, f.top.ID, f.alice.ID, access.Developer, &today, f.owner.ID)
	if got := f.d.GroupAccess(f.alice, f.top); got != access.Developer {
		t.Errorf("expiring today still counts: %v", got)
	}
}

func TestVisibility(t *testing.T) {
	f := newFixture(t)
	if f.d.CanSeeGroup(f.alice, f.top) || f.d.CanSeeGroup(nil, f.top) {
		t.Error("a private group is hidden from outsiders and anonymous callers")
	}
	// A member of a subgroup or of a project below may see the private ancestor.
	f.d.AddMember(SourceProject, f.proj.ID, f.alice.ID, access.Guest, nil, f.owner.ID)
	if !f.d.CanSeeGroup(f.alice, f.top) {
		t.Error("a project member sees the ancestors of the project's group")
	}
	if f.d.CanSeeGroup(f.alice, f.leaf) {
		t.Error("but not sibling subgroups below")
	}
	pub, _ := f.d.CreateGroup(NewGroup{Name: "pub", Path: "pub", Visibility: "public"})
	if !f.d.CanSeeGroup(nil, pub) {
		t.Error("public groups are visible anonymously")
	}
	if _, err := f.d.CreateGroup(NewGroup{Name: "x", Path: "x", Visibility: "public", ParentID: f.top.ID}); err == nil {
		t.Error("a public subgroup of a private group is a validation error")
	}
}

func TestDeleteGroupRemovesEverythingBelow(t *testing.T) {
	f := newFixture(t)
	f.d.AddMember(SourceGroup, f.leaf.ID, f.alice.ID, access.Developer, nil, f.owner.ID)
	f.d.ShareWithGroup(SourceGroup, f.sub.ID, f.invited, access.Guest, nil)
	f.d.DeleteGroup(f.sub)
	if f.d.Group(f.sub.ID) != nil || f.d.Group(f.leaf.ID) != nil || f.d.Project(f.proj.ID) != nil {
		t.Fatal("subgroups and projects must go with the group")
	}
	if len(f.d.LinksTo(f.invited.ID)) != 0 {
		t.Error("shares of deleted groups must go")
	}
	if f.d.Group(f.top.ID) == nil || f.d.Group(f.invited.ID) == nil {
		t.Error("the parent and the invited group stay")
	}
}
