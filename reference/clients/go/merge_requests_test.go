package goclient

import (
	"net/http"
	"net/http/httptest"
	"testing"

	gitlab "gitlab.com/gitlab-org/api/client-go"

	"github.com/v4cert/v4cert/reference"
)

// TestMergeRequestsWithGoClient drives merge requests through the platform's
// Go client unchanged: labels, milestones, create, read, list with filters,
// update, notes, reactions, subscriptions, to-do items, time tracking,
// diffs, changes, versions, blocks, approvals and merge.
func TestMergeRequestsWithGoClient(t *testing.T) {
	current = t
	inst, err := reference.New(reference.Config{RootToken: rootToken, Seed: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	srv := httptest.NewServer(inst.Server)
	defer srv.Close()
	root := newClient(t, srv.URL, rootToken)

	dev := must(root.Users.CreateUser(&gitlab.CreateUserOptions{
		Username: gitlab.Ptr("mr-dev"), Name: gitlab.Ptr("MR Dev"), Email: gitlab.Ptr("mr-dev@example.com"), ForceRandomPassword: gitlab.Ptr(true),
	}))
	devTok := must(root.Users.CreatePersonalAccessToken(dev.ID, &gitlab.CreatePersonalAccessTokenOptions{Name: gitlab.Ptr("ci"), Scopes: &[]string{"api"}}))
	asDev := newClient(t, srv.URL, devTok.Token)

	proj := must(root.Projects.CreateProject(&gitlab.CreateProjectOptions{Name: gitlab.Ptr("MR App"), InitializeWithReadme: gitlab.Ptr(true)}))
	must(root.ProjectMembers.AddProjectMember(proj.ID, &gitlab.AddProjectMemberOptions{UserID: gitlab.Ptr(dev.ID), AccessLevel: gitlab.Ptr(gitlab.DeveloperPermissions)}))

	label := must(root.Labels.CreateLabel(proj.ID, &gitlab.CreateLabelOptions{Name: gitlab.Ptr("bug"), Color: gitlab.Ptr("#d9534f")}))
	if labels := must(root.Labels.ListLabels(proj.ID, nil)); len(labels) != 1 || labels[0].Name != "bug" || label.TextColor == "" {
		t.Fatalf("labels: %+v", labels)
	}
	ms := must(root.Milestones.CreateMilestone(proj.ID, &gitlab.CreateMilestoneOptions{Title: gitlab.Ptr("v1")}))
	if got := must(root.Milestones.GetMilestone(proj.ID, ms.ID)); got.Title != "v1" || got.IID != 1 {
		t.Fatalf("milestone: %+v", got)
	}

	must(root.Branches.CreateBranch(proj.ID, &gitlab.CreateBranchOptions{Branch: gitlab.Ptr("feature"), Ref: gitlab.Ptr("main")}))
	commit := func(branch, path, content string) *gitlab.Commit {
		return must(root.Commits.CreateCommit(proj.ID, &gitlab.CreateCommitOptions{Branch: gitlab.Ptr(branch), CommitMessage: gitlab.Ptr("add " + path),
			Actions: []*gitlab.CommitActionOptions{{Action: gitlab.Ptr(gitlab.FileCreate), FilePath: gitlab.Ptr(path), Content: gitlab.Ptr(content)}}}))
	}
	first := commit("feature", "feature.txt", "feature\n")

	mr := must(root.MergeRequests.CreateMergeRequest(proj.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.Ptr("Add the feature"), SourceBranch: gitlab.Ptr("feature"), TargetBranch: gitlab.Ptr("main"),
		Labels: &gitlab.LabelOptions{"bug", "new"}, MilestoneID: gitlab.Ptr(ms.ID), AssigneeIDs: &[]int64{dev.ID},
		ReviewerIDs: &[]int64{dev.ID}, RemoveSourceBranch: gitlab.Ptr(true),
	}))
	if mr.IID != 1 || mr.State != "opened" || len(mr.Labels) != 2 || mr.Milestone == nil || mr.Milestone.ID != ms.ID ||
		len(mr.Assignees) != 1 || mr.Assignee.ID != dev.ID || mr.DiffRefs.HeadSha != first.ID || !mr.ForceRemoveSourceBranch ||
		mr.DetailedMergeStatus != "mergeable" || mr.ChangesCount != "1" {
		t.Fatalf("created: %+v", mr)
	}
	got := must(asDev.MergeRequests.GetMergeRequest(proj.ID, mr.IID, nil))
	if !got.User.CanMerge || !got.Subscribed || got.References.Full == "" {
		t.Fatalf("get as the developer: can_merge %v subscribed %v references %+v", got.User.CanMerge, got.Subscribed, got.References)
	}

	list := must(root.MergeRequests.ListProjectMergeRequests(proj.ID, &gitlab.ListProjectMergeRequestsOptions{
		State: gitlab.Ptr("opened"), Labels: &gitlab.LabelOptions{"bug"}, Milestone: gitlab.Ptr("v1"),
		AssigneeID: gitlab.AssigneeID(dev.ID), ReviewerID: gitlab.ReviewerID(gitlab.UserIDAny), WithLabelsDetails: gitlab.Ptr(true),
		IIDs: &[]int64{mr.IID}, OrderBy: gitlab.Ptr("title"), Sort: gitlab.Ptr("asc"),
	}))
	if len(list) != 1 || list[0].IID != mr.IID || len(list[0].LabelDetails) != 2 {
		t.Fatalf("filtered list: %+v", list)
	}
	if none := must(root.MergeRequests.ListProjectMergeRequests(proj.ID, &gitlab.ListProjectMergeRequestsOptions{
		AssigneeID: gitlab.AssigneeID(gitlab.UserIDNone), NotLabels: &gitlab.LabelOptions{"bug"}})); len(none) != 0 {
		t.Fatalf("None and not[labels]: %+v", none)
	}
	mine := must(asDev.MergeRequests.ListMergeRequests(&gitlab.ListMergeRequestsOptions{Scope: gitlab.Ptr("assigned_to_me"), State: gitlab.Ptr("all")}))
	if len(mine) != 1 || mine[0].ID != mr.ID {
		t.Fatalf("assigned_to_me: %+v", mine)
	}

	updated := must(root.MergeRequests.UpdateMergeRequest(proj.ID, mr.IID, &gitlab.UpdateMergeRequestOptions{
		Description: gitlab.Ptr("- [x] done\n- [ ] todo\n"), AddLabels: &gitlab.LabelOptions{"ready"}, RemoveLabels: &gitlab.LabelOptions{"new"},
	}))
	if updated.TaskCompletionStatus == nil || updated.TaskCompletionStatus.Count != 2 || len(updated.Labels) != 2 {
		t.Fatalf("updated: %+v", updated)
	}

	note := must(asDev.Notes.CreateMergeRequestNote(proj.ID, mr.IID, &gitlab.CreateMergeRequestNoteOptions{Body: gitlab.Ptr("Looks good")}))
	if notes := must(root.Notes.ListMergeRequestNotes(proj.ID, mr.IID, nil)); len(notes) != 1 || notes[0].NoteableType != "MergeRequest" {
		t.Fatalf("notes: %+v", notes)
	}
	must(asDev.AwardEmoji.CreateMergeRequestAwardEmoji(proj.ID, mr.IID, &gitlab.CreateAwardEmojiOptions{Name: "thumbsup"}))
	must(root.AwardEmoji.CreateMergeRequestAwardEmojiOnNote(proj.ID, mr.IID, note.ID, &gitlab.CreateAwardEmojiOptions{Name: "tada"}))
	if awards := must(root.AwardEmoji.ListMergeRequestAwardEmoji(proj.ID, mr.IID, nil)); len(awards) != 1 || awards[0].AwardableType != "MergeRequest" {
		t.Fatalf("reactions: %+v", awards)
	}
	if votes := must(root.MergeRequests.GetMergeRequest(proj.ID, mr.IID, nil)); votes.Upvotes != 1 || votes.UserNotesCount != 1 {
		t.Fatalf("upvotes %d, notes %d", votes.Upvotes, votes.UserNotesCount)
	}

	// Unsubscribing twice: the second answers 304, which the client takes as success.
	if _, resp, err := asDev.MergeRequests.UnsubscribeFromMergeRequest(proj.ID, mr.IID); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("unsubscribe: %v %v", resp, err)
	}
	if _, resp, _ := asDev.MergeRequests.UnsubscribeFromMergeRequest(proj.ID, mr.IID); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("unsubscribe again: %d", resp.StatusCode)
	}
	must(asDev.MergeRequests.SubscribeToMergeRequest(proj.ID, mr.IID))
	// The developer was assigned and asked to review: two to-do items already.
	if todos := must(asDev.Todos.ListTodos(&gitlab.ListTodosOptions{Type: gitlab.Ptr("MergeRequest")})); len(todos) != 2 {
		t.Fatalf("the developer's to-dos: %+v", todos)
	}
	todo := must(root.MergeRequests.CreateTodo(proj.ID, mr.IID))
	if todos := must(root.Todos.ListTodos(nil)); len(todos) != 1 || todo.ActionName != gitlab.TodoMarked || todos[0].Target.IID != mr.IID {
		t.Fatalf("to-dos: %+v (created %+v)", todos, todo)
	}
	if _, err := root.Todos.MarkTodoAsDone(todo.ID); err != nil {
		t.Fatal(err)
	}

	stats := must(root.MergeRequests.SetTimeEstimate(proj.ID, mr.IID, &gitlab.SetTimeEstimateOptions{Duration: gitlab.Ptr("3h30m")}))
	if stats.TimeEstimate != 12600 || stats.HumanTimeEstimate != "3h 30m" {
		t.Fatalf("time estimate: %+v", stats)
	}
	must(root.MergeRequests.AddSpentTime(proj.ID, mr.IID, &gitlab.AddSpentTimeOptions{Duration: gitlab.Ptr("1h")}))
	if spent := must(root.MergeRequests.GetTimeSpent(proj.ID, mr.IID)); spent.TotalTimeSpent != 3600 {
		t.Fatalf("time spent: %+v", spent)
	}

	second := commit("feature", "more.txt", "more\n")
	versions := must(root.MergeRequests.GetMergeRequestDiffVersions(proj.ID, mr.IID, nil))
	if len(versions) != 2 || versions[0].HeadCommitSHA != second.ID || versions[1].HeadCommitSHA != first.ID || versions[0].RealSize != "2" {
		t.Fatalf("versions: %+v", versions)
	}
	v := must(root.MergeRequests.GetSingleMergeRequestDiffVersion(proj.ID, mr.IID, versions[0].ID, &gitlab.GetSingleMergeRequestDiffVersionOptions{Unidiff: gitlab.Ptr(true)}))
	if len(v.Commits) != 2 || len(v.Diffs) != 2 {
		t.Fatalf("version: %d commits, %d diffs", len(v.Commits), len(v.Diffs))
	}
	if diffs := must(root.MergeRequests.ListMergeRequestDiffs(proj.ID, mr.IID, nil)); len(diffs) != 2 {
		t.Fatalf("diffs: %+v", diffs)
	}
	if changes := must(root.MergeRequests.GetMergeRequestChanges(proj.ID, mr.IID, nil)); changes.ChangesCount != "2" {
		t.Fatalf("changes: %+v", changes.ChangesCount)
	}

	// Blocks: a second merge request blocks the first until it merges.
	must(root.Branches.CreateBranch(proj.ID, &gitlab.CreateBranchOptions{Branch: gitlab.Ptr("blocker"), Ref: gitlab.Ptr("main")}))
	commit("blocker", "blocker.txt", "b\n")
	blocker := must(root.MergeRequests.CreateMergeRequest(proj.ID, &gitlab.CreateMergeRequestOptions{
		Title: gitlab.Ptr("Blocker"), SourceBranch: gitlab.Ptr("blocker"), TargetBranch: gitlab.Ptr("main")}))
	dep := must(root.MergeRequests.CreateMergeRequestDependency(proj.ID, mr.IID, gitlab.CreateMergeRequestDependencyOptions{BlockingMergeRequestID: gitlab.Ptr(blocker.ID)}))
	if deps := must(root.MergeRequests.GetMergeRequestDependencies(proj.ID, mr.IID)); len(deps) != 1 || deps[0].BlockingMergeRequest.ID != blocker.ID {
		t.Fatalf("blocks: %+v", deps)
	}
	if _, resp, err := root.MergeRequests.AcceptMergeRequest(proj.ID, mr.IID, nil); err == nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("merging a blocked merge request: %v", err)
	}
	if _, err := root.MergeRequests.DeleteMergeRequestDependency(proj.ID, mr.IID, dep.ID); err != nil {
		t.Fatal(err)
	}

	approvals := must(asDev.MergeRequestApprovals.ApproveMergeRequest(proj.ID, mr.IID, &gitlab.ApproveMergeRequestOptions{SHA: gitlab.Ptr(second.ID)}))
	if !approvals.Approved || len(approvals.ApprovedBy) != 1 {
		t.Fatalf("approvals: %+v", approvals)
	}

	if _, resp, err := root.MergeRequests.AcceptMergeRequest(proj.ID, mr.IID, &gitlab.AcceptMergeRequestOptions{SHA: gitlab.Ptr(first.ID)}); err == nil || resp.StatusCode != http.StatusConflict {
		t.Fatalf("merging with a stale sha: %v", err)
	}
	merged := must(root.MergeRequests.AcceptMergeRequest(proj.ID, mr.IID, &gitlab.AcceptMergeRequestOptions{
		SHA: gitlab.Ptr(second.ID), Squash: gitlab.Ptr(true), MergeCommitMessage: gitlab.Ptr("Merge the feature"),
	}))
	if merged.State != "merged" || merged.MergeCommitSHA == "" || merged.SquashCommitSHA == "" || merged.MergeUser == nil {
		t.Fatalf("merged: %+v", merged)
	}
	mc := must(root.Commits.GetCommit(proj.ID, merged.MergeCommitSHA, nil))
	if len(mc.ParentIDs) != 2 || mc.ParentIDs[1] != merged.SquashCommitSHA || mc.Title != "Merge the feature" {
		t.Fatalf("merge commit: %+v", mc)
	}
	if _, _, err := root.Branches.GetBranch(proj.ID, "feature"); err == nil {
		t.Fatal("the source branch should be gone (remove_source_branch)")
	}
	if _, err := root.MergeRequests.DeleteMergeRequest(proj.ID, blocker.IID); err != nil {
		t.Fatal(err)
	}
}
