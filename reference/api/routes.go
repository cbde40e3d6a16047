package api

import (
	"fmt"

	"github.com/v4cert/v4cert/reference/store"
)

// routeRow attaches one rulebook endpoint to its handler.
type routeRow struct {
	ID     string // endpoint ID in specs/*.yaml
	Handle handler
}

// routes is every endpoint the reference serves, one row per endpoint ID in
// the rulebook's order (areas alphabetically, then as each YAML file lists
// them). The comment names the least a caller needs; "public" means anyone
// who can see the resource, which is anonymous callers for public ones.
// New checks this table against the rulebook both ways, so a route cannot
// exist without its spec entry or the reverse (TestRoutesInRulebookOrder
// keeps the order).
var routes = []routeRow{
	// access_requests (specs/access_requests.yaml)
	{"access_requests.group.list", onGroup((*Server).listAccessRequests)},          // Owner of the group
	{"access_requests.project.list", onProject((*Server).listAccessRequests)},      // Maintainer of the project
	{"access_requests.group.create", onGroup((*Server).createAccessRequest)},       // signed in, not yet a member
	{"access_requests.project.create", onProject((*Server).createAccessRequest)},   // signed in, not yet a member
	{"access_requests.group.approve", onGroup((*Server).approveAccessRequest)},     // Owner of the group
	{"access_requests.project.approve", onProject((*Server).approveAccessRequest)}, // Maintainer of the project
	{"access_requests.group.deny", onGroup((*Server).denyAccessRequest)},           // Owner of the group, or the requester
	{"access_requests.project.deny", onProject((*Server).denyAccessRequest)},       // Maintainer of the project, or the requester

	// award_emoji (specs/award_emoji.yaml)
	{"award_emoji.issue_list", listAwardEmojiOn(issueAwards)},                             // public (who can see the issue)
	{"award_emoji.issue_get", getAwardEmojiOn(issueAwards)},                               // public (who can see the issue)
	{"award_emoji.issue_create", createAwardEmojiOn(issueAwards)},                         // signed in, can see the issue
	{"award_emoji.issue_delete", deleteAwardEmojiOn(issueAwards)},                         // the reaction's author or an administrator
	{"award_emoji.snippet_list", listAwardEmojiOn(snippetAwards)},                         // public (who can see the snippet)
	{"award_emoji.snippet_get", getAwardEmojiOn(snippetAwards)},                           // public (who can see the snippet)
	{"award_emoji.snippet_create", createAwardEmojiOn(snippetAwards)},                     // signed in, can see the snippet
	{"award_emoji.snippet_delete", deleteAwardEmojiOn(snippetAwards)},                     // the reaction's author or an administrator
	{"award_emoji.issue_note_list", listAwardEmojiOn(issueNoteAwards)},                    // public (who can see the issue)
	{"award_emoji.issue_note_get", getAwardEmojiOn(issueNoteAwards)},                      // public (who can see the issue)
	{"award_emoji.issue_note_create", createAwardEmojiOn(issueNoteAwards)},                // signed in, can see the issue
	{"award_emoji.issue_note_delete", deleteAwardEmojiOn(issueNoteAwards)},                // the reaction's author or an administrator
	{"award_emoji.snippet_note_list", listAwardEmojiOn(snippetNoteAwards)},                // public (who can see the snippet)
	{"award_emoji.snippet_note_get", getAwardEmojiOn(snippetNoteAwards)},                  // public (who can see the snippet)
	{"award_emoji.snippet_note_create", createAwardEmojiOn(snippetNoteAwards)},            // signed in, can see the snippet
	{"award_emoji.snippet_note_delete", deleteAwardEmojiOn(snippetNoteAwards)},            // the reaction's author or an administrator
	{"award_emoji.merge_request_list", listAwardEmojiOn(mergeRequestAwards)},              // public code; Reporter of a private project
	{"award_emoji.merge_request_get", getAwardEmojiOn(mergeRequestAwards)},                // public code; Reporter of a private project
	{"award_emoji.merge_request_create", createAwardEmojiOn(mergeRequestAwards)},          // signed in, can read the merge request
	{"award_emoji.merge_request_delete", deleteAwardEmojiOn(mergeRequestAwards)},          // the reaction's author or an administrator
	{"award_emoji.merge_request_note_list", listAwardEmojiOn(mergeRequestNoteAwards)},     // public code; Reporter of a private project
	{"award_emoji.merge_request_note_get", getAwardEmojiOn(mergeRequestNoteAwards)},       // public code; Reporter of a private project
	{"award_emoji.merge_request_note_create", createAwardEmojiOn(mergeRequestNoteAwards)}, // signed in, can read the merge request
	{"award_emoji.merge_request_note_delete", deleteAwardEmojiOn(mergeRequestNoteAwards)}, // the reaction's author or an administrator

	// bulk_imports (specs/bulk_imports.yaml)
	{"bulk_imports.create", (*Server).createBulkImport},                // signed in; Maintainer (Developer for projects) of the destination
	{"bulk_imports.list", (*Server).listBulkImports},                   // signed in (own imports)
	{"bulk_imports.entities_all", (*Server).listAllBulkImportEntities}, // signed in (own imports)
	{"bulk_imports.get", (*Server).getBulkImport},                      // signed in (own import)
	{"bulk_imports.entities", (*Server).listBulkImportEntities},        // signed in (own import)
	{"bulk_imports.entity", (*Server).getBulkImportEntity},             // signed in (own import)
	{"bulk_imports.failures", (*Server).listBulkImportFailures},        // signed in (own import)
	{"bulk_imports.cancel", (*Server).cancelBulkImport},                // administrator

	// commits (specs/commits.yaml)
	{"commits.list", (*Server).listCommits},                    // public code; Reporter of a private project
	{"commits.create", (*Server).createCommit},                 // Developer, project not archived
	{"commits.get", (*Server).getCommit},                       // public code; Reporter of a private project
	{"commits.refs", (*Server).commitRefs},                     // public code; Reporter of a private project
	{"commits.sequence", (*Server).commitSequence},             // public code; Reporter of a private project
	{"commits.cherry-pick", pickCommitAs(false)},               // Developer, project not archived
	{"commits.revert", pickCommitAs(true)},                     // Developer, project not archived
	{"commits.diff", (*Server).commitDiff},                     // public code; Reporter of a private project
	{"commits.comments.list", (*Server).listCommitComments},    // public code; Reporter of a private project
	{"commits.comments.create", (*Server).createCommitComment}, // signed in, can read the code

	// files (specs/files.yaml)
	{"files.get", (*Server).getFile},          // public code; Reporter of a private project
	{"files.head", (*Server).getFile},         // public code; Reporter of a private project
	{"files.blame", (*Server).blameFile},      // public code; Reporter of a private project
	{"files.blame.head", (*Server).blameFile}, // public code; Reporter of a private project
	{"files.raw", (*Server).rawFile},          // public code; Reporter of a private project
	{"files.raw.head", (*Server).rawFile},     // public code; Reporter of a private project
	{"files.create", (*Server).createFile},    // Developer, project not archived
	{"files.update", (*Server).updateFile},    // Developer, project not archived
	{"files.delete", (*Server).deleteFile},    // Developer, project not archived

	// groups (specs/groups.yaml)
	{"groups.create", (*Server).createGroup},                            // signed in who may create groups; Maintainer of the parent
	{"groups.delete", (*Server).deleteGroup},                            // Owner
	{"groups.share", (*Server).shareGroup},                              // Owner
	{"groups.custom-attributes.set", (*Server).setGroupCustomAttribute}, // administrator
	{"groups.get", (*Server).getGroup},                                  // public (who can see the group)
	{"groups.list", (*Server).listGroups},                               // anyone (anonymous callers see public groups)
	{"groups.projects", (*Server).listGroupProjects},                    // public (who can see the group)
	{"groups.subgroups", (*Server).listSubgroups},                       // public (who can see the group)

	// integrations (specs/integrations.yaml)
	{"integrations.list", (*Server).listIntegrations},      // Maintainer
	{"integrations.set", (*Server).setIntegration},         // Maintainer
	{"integrations.get", (*Server).getIntegration},         // Maintainer
	{"integrations.disable", (*Server).disableIntegration}, // Maintainer

	// issues (specs/issues.yaml)
	{"issues.create", (*Server).createIssue},                    // signed in, can see the project
	{"issues.project_list", (*Server).listIssues},               // public (the issues the caller may read)
	{"issues.get", (*Server).getIssue},                          // public (who can see the issue)
	{"issues.update", (*Server).updateIssue},                    // the author, an assignee, Reporter+
	{"issues.notes_create", createNoteOn(store.AwardableIssue)}, // signed in, can see the issue
	{"issues.notes_update", updateNoteOn(store.AwardableIssue)}, // the note's author, Maintainer, administrator

	// jobs (specs/jobs.yaml)
	{"jobs.list", (*Server).listProjectJobs},                 // public jobs; Reporter otherwise
	{"jobs.pipeline_jobs", (*Server).listPipelineJobs},       // public jobs; Reporter otherwise
	{"jobs.pipeline_bridges", (*Server).listPipelineBridges}, // public jobs; Reporter otherwise
	{"jobs.current", (*Server).currentJob},                   // a running job's token
	{"jobs.allowed_agents", (*Server).jobAllowedAgents},      // a running job's token
	{"jobs.get", (*Server).getJob},                           // public jobs; Reporter otherwise
	{"jobs.trace", (*Server).jobTrace},                       // public jobs; Reporter otherwise
	{"jobs.pipeline", (*Server).createPipeline},              // Developer
	{"jobs.request", (*Server).requestJob},                   // a runner's token
	{"jobs.update", (*Server).updateJob},                     // the job's own token
	{"jobs.trace_append", (*Server).appendTrace},             // the job's own token
	{"jobs.retry", (*Server).retryJob},                       // Developer
	{"jobs.cancel", (*Server).cancelJob},                     // Developer
	{"jobs.play", (*Server).playJob},                         // Developer

	// labels (specs/labels.yaml)
	{"labels.list", (*Server).listLabels},    // public (who can see the project)
	{"labels.get", (*Server).getLabel},       // public (who can see the project)
	{"labels.create", (*Server).createLabel}, // Reporter

	// members (specs/members.yaml)
	{"members.group.create", onGroup((*Server).createMember)},                // Maintainer (Owner to grant Owner)
	{"members.project.create", onProject((*Server).createMember)},            // Maintainer (Owner to grant Owner)
	{"members.group.list", (*Server).listGroupMembers},                       // signed in, can see the group
	{"members.project.list", (*Server).listProjectMembers},                   // signed in, can see the project
	{"members.group.list-all", (*Server).listAllGroupMembers},                // signed in, can see the group
	{"members.project.list-all", (*Server).listAllProjectMembers},            // signed in, can see the project
	{"members.group.get", (*Server).getGroupMember},                          // signed in, can see the group
	{"members.project.get", (*Server).getProjectMember},                      // signed in, can see the project
	{"members.group.get-all", (*Server).getAllGroupMember},                   // signed in, can see the group
	{"members.project.get-all", (*Server).getAllProjectMember},               // signed in, can see the project
	{"members.billable.list", (*Server).listBillableMembers},                 // Owner of the top-level group
	{"members.billable.memberships", (*Server).listBillableMemberships},      // Owner of the top-level group
	{"members.billable.indirect", (*Server).listBillableIndirectMemberships}, // Owner of the top-level group
	{"members.billable.delete", (*Server).deleteBillableMember},              // Owner of the top-level group

	// merge_requests (specs/merge_requests.yaml)
	{"merge_requests.list", (*Server).listMergeRequests},                            // anyone (the caller's scope; created_by_me needs a caller)
	{"merge_requests.project_list", (*Server).listProjectMergeRequests},             // public code; Reporter of a private project
	{"merge_requests.create", (*Server).createMergeRequest},                         // Developer
	{"merge_requests.get", (*Server).getMergeRequest},                               // public code; Reporter of a private project
	{"merge_requests.update", (*Server).updateMergeRequest},                         // Developer, or the author
	{"merge_requests.delete", (*Server).deleteMergeRequest},                         // Owner or administrator
	{"merge_requests.merge", (*Server).mergeMergeRequest},                           // Developer
	{"merge_requests.blocks.list", (*Server).listMergeRequestBlocks},                // public code; Reporter of a private project
	{"merge_requests.blocks.create", (*Server).createMergeRequestBlock},             // Developer or the author; Reporter of the blocking one
	{"merge_requests.blocks.delete", (*Server).deleteMergeRequestBlock},             // Developer or the author; Reporter of the blocking one
	{"merge_requests.changes", (*Server).mergeRequestChanges},                       // public code; Reporter of a private project
	{"merge_requests.diffs", (*Server).mergeRequestDiffs},                           // public code; Reporter of a private project
	{"merge_requests.pipelines", (*Server).mergeRequestPipelines},                   // public code; Reporter of a private project
	{"merge_requests.subscribe", subscribeMergeRequestAs(true)},                     // signed in, can read the merge request
	{"merge_requests.unsubscribe", subscribeMergeRequestAs(false)},                  // signed in, can read the merge request
	{"merge_requests.todo", (*Server).mergeRequestTodo},                             // signed in, can read the merge request
	{"merge_requests.versions", (*Server).mergeRequestVersions},                     // public code; Reporter of a private project
	{"merge_requests.version", (*Server).mergeRequestVersion},                       // public code; Reporter of a private project
	{"merge_requests.time_estimate", (*Server).setMergeRequestTimeEstimate},         // Developer
	{"merge_requests.reset_time_estimate", (*Server).resetMergeRequestTimeEstimate}, // Developer
	{"merge_requests.add_spent_time", (*Server).addMergeRequestSpentTime},           // Developer
	{"merge_requests.time_stats", (*Server).mergeRequestTimeStats},                  // public code; Reporter of a private project
	{"merge_requests.notes.list", (*Server).listMergeRequestNotes},                  // public code; Reporter of a private project
	{"merge_requests.notes.get", (*Server).getMergeRequestNote},                     // public code; Reporter of a private project
	{"merge_requests.notes.create", (*Server).createMergeRequestNote},               // signed in, can read the merge request
	{"merge_requests.approve", approveMergeRequestAs(true)},                         // Developer
	{"merge_requests.unapprove", approveMergeRequestAs(false)},                      // Developer
	{"merge_requests.commits", (*Server).mergeRequestCommits},                       // public code; Reporter of a private project
	{"merge_requests.participants", (*Server).mergeRequestParticipants},             // public code; Reporter of a private project
	{"merge_requests.notes.update", updateNoteOn(store.AwardableMergeRequest)},      // the note's author, Maintainer, administrator

	// milestones (specs/milestones.yaml)
	{"milestones.list", (*Server).listMilestones},    // public (who can see the project)
	{"milestones.get", (*Server).getMilestone},       // public (who can see the project)
	{"milestones.create", (*Server).createMilestone}, // Reporter
	{"milestones.update", (*Server).updateMilestone}, // Reporter

	// package_protection_rules (specs/package_protection_rules.yaml)
	{"package_protection_rules.list", (*Server).listPackageProtectionRules},    // Maintainer
	{"package_protection_rules.create", (*Server).createPackageProtectionRule}, // Maintainer
	{"package_protection_rules.edit", (*Server).editPackageProtectionRule},     // Maintainer
	{"package_protection_rules.delete", (*Server).deletePackageProtectionRule}, // Maintainer

	// pipelines (specs/pipelines.yaml)
	{"pipelines.list", (*Server).listPipelines},                 // public jobs; Reporter otherwise
	{"pipelines.latest", (*Server).latestPipeline},              // public jobs; Reporter otherwise
	{"pipelines.get", (*Server).getPipeline},                    // public jobs; Reporter otherwise
	{"pipelines.statuses.list", (*Server).listCommitStatuses},   // signed in; public jobs, Reporter otherwise
	{"pipelines.statuses.create", (*Server).createCommitStatus}, // Developer

	// projects (specs/projects.yaml)
	{"projects.create", (*Server).createProject},                            // signed in; Developer of a group namespace
	{"projects.list", (*Server).listProjects},                               // anyone (anonymous callers see public projects)
	{"projects.get", (*Server).getProject},                                  // public (who can see the project)
	{"projects.edit", (*Server).editProject},                                // Maintainer
	{"projects.delete", (*Server).deleteProject},                            // Owner
	{"projects.share", (*Server).shareProject},                              // Maintainer
	{"projects.star", (*Server).starProject},                                // signed in, can see the project
	{"projects.custom-attributes.set", (*Server).setProjectCustomAttribute}, // administrator
	{"projects.archive", setArchivedTo(true)},                               // Owner
	{"projects.unarchive", setArchivedTo(false)},                            // Owner
	{"projects.access-tokens.create", (*Server).createProjectAccessToken},   // Maintainer

	// registry (specs/registry.yaml)
	{"registry.project.edit", (*Server).editProjectRegistry},                      // Maintainer
	{"registry.repositories.list", (*Server).listRegistryRepositories},            // public registry; Reporter when private
	{"registry.repositories.group-list", (*Server).listGroupRegistryRepositories}, // public registry; Reporter when private
	{"registry.repositories.get", (*Server).getRegistryRepository},                // public registry; Reporter when private
	{"registry.repositories.delete", (*Server).deleteRegistryRepository},          // Maintainer
	{"registry.tags.list", (*Server).listRegistryTags},                            // public registry; Reporter when private
	{"registry.tags.get", (*Server).getRegistryTag},                               // public registry; Reporter when private
	{"registry.tags.delete", (*Server).deleteRegistryTag},                         // Developer
	{"registry.tags.bulk-delete", (*Server).bulkDeleteRegistryTags},               // Maintainer
	// registry.native.* (base auth and registry) are served by the registry
	// host, reference/registry: the token issuer grants pull to whoever may
	// read the registry, push and delete to Developers, the catalog to
	// administrators, and distribution verifies its tokens.

	// remote_mirrors (specs/remote_mirrors.yaml)
	{"remote_mirrors.list", (*Server).listRemoteMirrors},    // Maintainer
	{"remote_mirrors.get", (*Server).getRemoteMirror},       // Maintainer
	{"remote_mirrors.create", (*Server).createRemoteMirror}, // Maintainer
	{"remote_mirrors.edit", (*Server).editRemoteMirror},     // Maintainer
	{"remote_mirrors.sync", (*Server).syncRemoteMirror},     // Maintainer
	{"remote_mirrors.delete", (*Server).deleteRemoteMirror}, // Maintainer

	// repository (specs/repository.yaml)
	{"repository.branches.create", (*Server).createBranch}, // Developer, project not archived
	{"repository.branches.list", (*Server).listBranches},   // public code; Reporter of a private project
	{"repository.branches.get", (*Server).getBranch},       // public code; Reporter of a private project
	{"repository.tags.create", (*Server).createTag},        // Developer, project not archived
	{"repository.tags.list", (*Server).listTags},           // public code; Reporter of a private project
	{"repository.tags.get", (*Server).getTag},              // public code; Reporter of a private project
	{"repository.lfs.create", (*Server).createLFSObject},   // Developer, project not archived
	{"repository.branches.delete", (*Server).deleteBranch}, // Developer, project not archived; not the default branch
	{"repository.tree", (*Server).repositoryTree},          // public code; Reporter of a private project
	{"repository.compare", (*Server).repositoryCompare},    // public code; Reporter of a private project

	// runners (specs/runners.yaml)
	{"runners.create", (*Server).createUserRunner},     // administrator (instance), Owner (group), Maintainer (project)
	{"runners.delete", (*Server).deleteRunner},         // administrator (instance), Owner (group), Maintainer (project)
	{"runners.list", (*Server).listRunners},            // signed in (the runners the caller owns)
	{"runners.all", (*Server).listAllRunners},          // administrator
	{"runners.get", (*Server).getRunner},               // signed in for instance runners; Developer otherwise
	{"runners.update", (*Server).updateRunner},         // administrator (instance), Owner (group), Maintainer (project)
	{"runners.jobs", (*Server).listRunnerJobs},         // Developer of the runner; jobs of projects where Reporter
	{"runners.managers", (*Server).listRunnerManagers}, // Developer of the runner
	{"runners.project", (*Server).listProjectRunners},  // Maintainer
	{"runners.group", (*Server).listGroupRunners},      // Owner
	{"runners.register", (*Server).registerRunner},     // a registration token
	{"runners.verify", (*Server).verifyRunner},         // the runner's token
	{"runners.unregister", (*Server).unregisterRunner}, // the runner's token

	// snippets (specs/snippets.yaml)
	{"snippets.create", (*Server).createSnippet},                    // Reporter
	{"snippets.notes_create", createNoteOn(store.AwardableSnippet)}, // signed in, can see the snippet

	// todos (specs/todos.yaml)
	{"todos.list", (*Server).listTodos},                 // signed in (the caller's own)
	{"todos.mark_done", (*Server).markTodoDone},         // signed in (the caller's own)
	{"todos.mark_all_done", (*Server).markAllTodosDone}, // signed in (the caller's own)

	// topics (specs/topics.yaml)
	{"topics.list", (*Server).listTopics},       // anyone
	{"topics.get", (*Server).getTopic},          // anyone
	{"topics.create", (*Server).createTopic},    // administrator
	{"topics.edit", (*Server).editTopic},        // administrator
	{"topics.delete", (*Server).deleteTopic},    // administrator
	{"topics.merge", (*Server).mergeTopics},     // administrator
	{"topics.avatar", (*Server).getTopicAvatar}, // anyone

	// users (specs/users.yaml)
	{"users.list", (*Server).listUsers},                               // anyone (administrators see more and may filter more)
	{"users.get", (*Server).getUser},                                  // signed in
	{"users.current", (*Server).currentUser},                          // signed in (administrators may sudo)
	{"users.create", (*Server).createUser},                            // administrator
	{"users.delete", (*Server).deleteUser},                            // administrator
	{"users.block", (*Server).blockUser},                              // administrator
	{"users.unblock", (*Server).unblockUser},                          // administrator
	{"users.tokens.create", (*Server).createPersonalAccessToken},      // administrator
	{"users.custom-attributes.set", (*Server).setUserCustomAttribute}, // administrator

	// version (specs/version.yaml)
	{"version.get", (*Server).getVersion}, // signed in
}

// handlers indexes routes by endpoint ID.
var handlers = indexRoutes(routes)

func indexRoutes(rows []routeRow) map[string]handler {
	m := make(map[string]handler, len(rows))
	for _, r := range rows {
		if _, dup := m[r.ID]; dup {
			panic(fmt.Sprintf("endpoint %s has two rows in the route table", r.ID))
		}
		m[r.ID] = r.Handle
	}
	return m
}

// onGroup and onProject adapt a handler that serves both groups and projects
// (members, access requests) to one route.
func onGroup(h func(*Server, *Ctx, store.SourceType) error) handler {
	return func(s *Server, c *Ctx) error { return h(s, c, store.SourceGroup) }
}

func onProject(h func(*Server, *Ctx, store.SourceType) error) handler {
	return func(s *Server, c *Ctx) error { return h(s, c, store.SourceProject) }
}
