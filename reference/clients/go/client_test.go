package goclient

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/v4cert/v4cert/reference"
)

const rootToken = "client-compat-root"

func newClient(t *testing.T, base, token string) *gitlab.Client {
	t.Helper()
	c, err := gitlab.NewClient(token, gitlab.WithBaseURL(base+"/api/v4"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// current is the running test, so must can take a client call's three results whole.
var current *testing.T

func must[T any](v T, _ *gitlab.Response, err error) T {
	current.Helper()
	if err != nil {
		current.Fatalf("%v", err)
	}
	return v
}

// TestProvisioningWithGoClient walks the provisioning endpoints and the areas'
// reads with the platform's Go client, as a user of the reference in CI would.
func TestProvisioningWithGoClient(t *testing.T) {
	current = t
	inst, err := reference.New(reference.Config{RootToken: rootToken, Seed: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close() // the repositories' temporary directory
	srv := httptest.NewServer(inst.Server)
	defer srv.Close()
	root := newClient(t, srv.URL, rootToken)

	owner := must(root.Users.CreateUser(&gitlab.CreateUserOptions{
		Username: gitlab.Ptr("gc-owner"), Name: gitlab.Ptr("Go Client Owner"), Email: gitlab.Ptr("gc-owner@example.com"),
		Password: gitlab.Ptr("correct-horse-battery"), SkipConfirmation: gitlab.Ptr(true), CanCreateGroup: gitlab.Ptr(true),
	}))
	dev := must(root.Users.CreateUser(&gitlab.CreateUserOptions{
		Username: gitlab.Ptr("gc-dev"), Name: gitlab.Ptr("Go Client Dev"), Email: gitlab.Ptr("gc-dev@example.com"),
		ResetPassword: gitlab.Ptr(true), External: gitlab.Ptr(false), Admin: gitlab.Ptr(false),
	}))
	tok := must(root.Users.CreatePersonalAccessToken(owner.ID, &gitlab.CreatePersonalAccessTokenOptions{
		Name: gitlab.Ptr("ci"), Scopes: &[]string{"api"},
	}))
	if tok.Token == "" || !tok.Active {
		t.Fatalf("token answer: %+v", tok)
	}
	asOwner := newClient(t, srv.URL, tok.Token)

	me := must(asOwner.Users.CurrentUser())
	if me.ID != owner.ID {
		t.Fatalf("CurrentUser = %d, want %d", me.ID, owner.ID)
	}
	sudo := must(root.Users.CurrentUser(gitlab.WithSudo(dev.Username)))
	if sudo.ID != dev.ID {
		t.Fatalf("CurrentUser with sudo = %d, want %d", sudo.ID, dev.ID)
	}

	top := must(asOwner.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.Ptr("Client Top"), Path: gitlab.Ptr("client-top"), Visibility: gitlab.Ptr(gitlab.PublicVisibility),
		RequestAccessEnabled: gitlab.Ptr(true),
	}))
	sub := must(asOwner.Groups.CreateGroup(&gitlab.CreateGroupOptions{
		Name: gitlab.Ptr("Client Sub"), Path: gitlab.Ptr("client-sub"), ParentID: gitlab.Ptr(top.ID),
	}))
	if sub.FullPath != "client-top/client-sub" || sub.ParentID != top.ID {
		t.Fatalf("subgroup: %+v", sub)
	}
	byPath := must(asOwner.Groups.GetGroup("client-top/client-sub", nil))
	if byPath.ID != sub.ID {
		t.Fatalf("GetGroup by path = %d, want %d", byPath.ID, sub.ID)
	}

	proj := must(asOwner.Projects.CreateProject(&gitlab.CreateProjectOptions{
		Name: gitlab.Ptr("Client App"), Path: gitlab.Ptr("client-app"), NamespaceID: gitlab.Ptr(sub.ID),
		Visibility: gitlab.Ptr(gitlab.PrivateVisibility), InitializeWithReadme: gitlab.Ptr(true),
		DefaultBranch: gitlab.Ptr("trunk"), Topics: &[]string{"go-client", "compat"},
	}))
	if proj.PathWithNamespace != "client-top/client-sub/client-app" || proj.DefaultBranch != "trunk" || len(proj.Topics) != 2 {
		t.Fatalf("project: %+v", proj)
	}
	edited := must(asOwner.Projects.EditProject(proj.ID, &gitlab.EditProjectOptions{Description: gitlab.Ptr("edited")}))
	if edited.Description != "edited" {
		t.Fatalf("EditProject description = %q", edited.Description)
	}
	tagged := must(root.Projects.ListProjects(&gitlab.ListProjectsOptions{Topic: gitlab.Ptr("go-client")}))
	if len(tagged) != 1 || tagged[0].ID != proj.ID {
		t.Fatalf("ListProjects(topic) = %v", tagged)
	}

	must(asOwner.GroupMembers.AddGroupMember(top.ID, &gitlab.AddGroupMemberOptions{
		UserID: gitlab.Ptr(dev.ID), AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions),
	}))
	direct := must(asOwner.Groups.ListGroupMembers(sub.ID, nil))
	all := must(asOwner.Groups.ListAllGroupMembers(sub.ID, nil))
	if len(direct) != 1 || len(all) != 2 {
		t.Fatalf("members of the subgroup: direct %d, all %d; want 1 and 2", len(direct), len(all))
	}

	invited := must(asOwner.Groups.CreateGroup(&gitlab.CreateGroupOptions{Name: gitlab.Ptr("Invited"), Path: gitlab.Ptr("client-invited")}))
	must(asOwner.Groups.ShareGroupWithGroup(top.ID, &gitlab.ShareGroupWithGroupOptions{
		GroupID: gitlab.Ptr(invited.ID), GroupAccess: gitlab.Ptr(gitlab.ReporterPermissions),
	}))
	if _, err := asOwner.Projects.ShareProjectWithGroup(proj.ID, &gitlab.ShareWithGroupOptions{
		GroupID: gitlab.Ptr(invited.ID), GroupAccess: gitlab.Ptr(gitlab.GuestPermissions),
	}); err != nil {
		t.Fatal(err)
	}
	must(asOwner.ProjectMembers.AddProjectMember(proj.ID, &gitlab.AddProjectMemberOptions{
		UserID: gitlab.Ptr(dev.ID), AccessLevel: gitlab.Ptr(gitlab.MaintainerPermissions),
	}))
	billable := must(asOwner.Groups.ListBillableGroupMembers(top.ID, nil))
	if len(billable) != 2 {
		t.Fatalf("billable members = %d, want 2", len(billable))
	}

	outsider := must(root.Users.CreateUser(&gitlab.CreateUserOptions{
		Username: gitlab.Ptr("gc-out"), Name: gitlab.Ptr("Outsider"), Email: gitlab.Ptr("gc-out@example.com"), ForceRandomPassword: gitlab.Ptr(true),
	}))
	req := must(root.AccessRequests.RequestGroupAccess(top.ID, gitlab.WithSudo(outsider.ID)))
	if req.ID != outsider.ID {
		t.Fatalf("access request by %d, want %d", req.ID, outsider.ID)
	}
	approved := must(asOwner.AccessRequests.ApproveGroupAccessRequest(top.ID, outsider.ID, &gitlab.ApproveAccessRequestOptions{}))
	if approved.AccessLevel != gitlab.DeveloperPermissions {
		t.Fatalf("approved at %d, want the default 30", approved.AccessLevel)
	}

	// Keyset pagination through the client's own link-following.
	opt := &gitlab.ListUsersOptions{ListOptions: gitlab.ListOptions{Pagination: "keyset", PerPage: 2, OrderBy: "id", Sort: "asc"}}
	var ids []int64
	options := []gitlab.RequestOptionFunc{}
	for pages := 0; pages < 10; pages++ {
		users, resp, err := root.Users.ListUsers(opt, options...)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			ids = append(ids, u.ID)
		}
		if resp.NextLink == "" {
			break
		}
		options = []gitlab.RequestOptionFunc{gitlab.WithKeysetPaginationParameters(resp.NextLink)}
	}
	if len(ids) != 4 || ids[0] != 1 || ids[3] != outsider.ID {
		t.Fatalf("keyset pages listed %v, want the 4 users in id order", ids)
	}
	// Offset pagination headers as the client reads them.
	_, resp, err := root.Users.ListUsers(&gitlab.ListUsersOptions{ListOptions: gitlab.ListOptions{PerPage: 1, Page: 2}})
	if err != nil || resp.TotalItems != 4 || resp.TotalPages != 4 || resp.CurrentPage != 2 || resp.NextPage != 3 || resp.PreviousPage != 1 {
		t.Fatalf("offset headers: %+v %v", resp, err)
	}

	topic := must(root.Topics.CreateTopic(&gitlab.CreateTopicOptions{
		Name: gitlab.Ptr("client-topic"), Title: gitlab.Ptr("Client Topic"),
		Avatar: &gitlab.TopicAvatar{Filename: "a.png", Image: bytes.NewReader(pngPixel)},
	}))
	if topic.AvatarURL == "" {
		t.Fatalf("topic avatar not stored: %+v", topic)
	}
	if _, err := root.Topics.DeleteTopic(topic.ID); err != nil {
		t.Fatal(err)
	}

	if err := root.Users.BlockUser(dev.ID); err != nil {
		t.Fatal(err)
	}
	if err := root.Users.UnblockUser(dev.ID); err != nil {
		t.Fatal(err)
	}
	// Errors come back as the client's ErrorResponse with the status.
	_, resp, err = asOwner.Groups.GetGroup(999999, nil)
	var er *gitlab.ErrorResponse
	if !(errors.As(err, &er) || errors.Is(err, gitlab.ErrNotFound)) || resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown group: %v", err)
	}

	if _, err := asOwner.Projects.DeleteProject(proj.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := asOwner.Groups.DeleteGroup(top.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := root.Users.DeleteUser(outsider.ID); err != nil {
		t.Fatal(err)
	}
}

// pngPixel is a 1×1 transparent PNG.
var pngPixel = []byte{
	0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
	0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
	0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
	0x42, 0x60, 0x82,
}
