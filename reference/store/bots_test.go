package store

import "testing"

// The ghost user is made once, an internal user and not a human.
func TestGhostUser(t *testing.T) {
	f := newFixture(t)
	g := f.d.Ghost()
	if g == nil || g.Type != "internal" || g.Human() || g.Name != "Ghost User" || g.Username != "ghost" {
		t.Fatalf("ghost %+v", g)
	}
	users := len(f.d.users)
	if again := f.d.Ghost(); again != g || len(f.d.users) != users {
		t.Errorf("a second call made another ghost: %+v", again)
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
