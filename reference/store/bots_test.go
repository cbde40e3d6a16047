package store

import "testing"

// Deleting a user leaves one internal ghost user behind, however many users go.
func TestGhostUserOnDelete(t *testing.T) {
	f := newFixture(t)
	before := len(f.d.users)
	f.d.DeleteUser(f.alice)
	g := f.d.UserByUsername("ghost")
	if g == nil || g.Type != "internal" || g.Human() || g.Name != "Ghost User" {
		t.Fatalf("ghost %+v", g)
	}
	other, err := f.d.CreateUser(NewUser{Username: "bob", Name: "bob", Email: "bob@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	f.d.DeleteUser(other)
	if len(f.d.users) != before { // alice and bob gone, the ghost once
		t.Errorf("%d users, want %d", len(f.d.users), before)
	}
}

// A project bot is a member of its project at the token's level, and not a
// human; a token that would be refused creates no bot.
func TestProjectBot(t *testing.T) {
	f := newFixture(t)
	users := len(f.d.users)
	if _, _, err := f.d.CreateProjectAccessToken(f.proj, "deploy", []string{"no_such_scope"}, nil, 30, f.owner.ID); err == nil {
		t.Fatal("an unknown scope was accepted")
	}
	if len(f.d.users) != users {
		t.Fatal("a refused token left a bot behind")
	}
	bot, tok, err := f.d.CreateProjectAccessToken(f.proj, "deploy", []string{"read_api"}, nil, 30, f.owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	if bot.Type != "project_bot" || bot.Human() || bot.Name != "deploy" || tok.UserID != bot.ID {
		t.Fatalf("bot %+v, token %+v", bot, tok)
	}
	if m := f.d.DirectMember(SourceProject, f.proj.ID, bot.ID); m == nil || m.Access != 30 {
		t.Fatalf("membership %+v", m)
	}
	again, _, err := f.d.CreateProjectAccessToken(f.proj, "deploy", []string{"read_api"}, nil, 30, f.owner.ID)
	if err != nil || again.Username == bot.Username {
		t.Fatalf("a second bot %+v, %v", again, err)
	}
}

// Groups of one hierarchy share their top-level group's SAML provider.
func TestSAMLProviderPerTopLevelGroup(t *testing.T) {
	f := newFixture(t)
	top, leaf, other := f.d.SAMLProviderID(f.top), f.d.SAMLProviderID(f.leaf), f.d.SAMLProviderID(f.invited)
	if top != leaf || top == other {
		t.Errorf("providers top %d, leaf %d, other %d", top, leaf, other)
	}
}
