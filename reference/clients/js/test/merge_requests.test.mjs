// Merge requests with their labels, milestones, notes, reactions,
// subscriptions, to-do items, time tracking, versions, diffs, approvals and
// merge, through the platform's JavaScript client (@gitbeaker/rest),
// unchanged, against `v4cert serve`. One story in order: each step uses what
// the earlier ones made.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startReference, refused, status } from '../reference.mjs';

let ref;
let root;
let dev; // a Developer of the project, assigned and asked to review
let asDev;
let proj;
let label;
let milestone;
let mr;
let first; // the source branch's first commit
let second; // and its second, after the merge request was opened
let note;

before(async () => {
  ref = await startReference();
  root = ref.root;
  dev = await root.Users.create({ username: 'mr-dev', name: 'MR Dev', email: 'mr-dev@example.com', forceRandomPassword: true });
  asDev = ref.client((await root.Users.createPersonalAccessToken(dev.id, 'ci', ['api'])).token);
  proj = await root.Projects.create({ name: 'MR App', initializeWithReadme: true });
  await root.ProjectMembers.add(proj.id, 30, { userId: dev.id });
  await root.Branches.create(proj.id, 'feature', 'main');
  first = await commit('feature', 'feature.txt', 'feature\n');
});
after(async () => { await ref?.stop(); });

function commit(branch, path, content) {
  return root.Commits.create(proj.id, branch, `add ${path}`, [{ action: 'create', filePath: path, content }]);
}

test('labels and milestones', async () => {
  label = await root.ProjectLabels.create(proj.id, 'bug', '#d9534f', { description: 'something is broken' });
  assert.equal(label.name, 'bug');
  assert.equal(label.color, '#d9534f');
  assert.equal(label.text_color, '#FFFFFF');
  assert.deepEqual((await root.ProjectLabels.all(proj.id)).map((l) => l.name), ['bug']);
  assert.equal((await root.ProjectLabels.show(proj.id, label.id)).description, 'something is broken');
  assert.equal((await root.ProjectLabels.show(proj.id, 'bug')).id, label.id, 'a label by name');

  milestone = await root.ProjectMilestones.create(proj.id, 'v1', { description: 'first', dueDate: '2031-01-31' });
  assert.equal(milestone.iid, 1);
  assert.equal(milestone.state, 'active');
  assert.equal(milestone.due_date, '2031-01-31');
  assert.equal((await root.ProjectMilestones.show(proj.id, milestone.id)).title, 'v1');
  const closed = await root.ProjectMilestones.create(proj.id, 'v0', {});
  assert.equal((await root.ProjectMilestones.edit(proj.id, closed.id, { stateEvent: 'close' })).state, 'closed');
  assert.deepEqual((await root.ProjectMilestones.all(proj.id, { state: 'active' })).map((m) => m.title), ['v1']);
  assert.deepEqual((await root.ProjectMilestones.all(proj.id, { search: 'v0' })).map((m) => m.id), [closed.id]);
});

test('create and show a merge request', async () => {
  mr = await root.MergeRequests.create(proj.id, 'feature', 'main', 'Add the feature', {
    description: 'does a thing', labels: 'bug,new', milestoneId: milestone.id,
    assigneeIds: [dev.id], reviewerIds: [dev.id], removeSourceBranch: true, squash: false,
  });
  assert.equal(mr.iid, 1);
  assert.equal(mr.state, 'opened');
  assert.equal(mr.project_id, proj.id);
  assert.equal(mr.source_branch, 'feature');
  assert.equal(mr.target_branch, 'main');
  assert.deepEqual([...mr.labels].sort(), ['bug', 'new'], 'labels named in a merge request are created on the fly');
  assert.equal(mr.milestone.id, milestone.id);
  assert.deepEqual(mr.assignees.map((u) => u.id), [dev.id]);
  assert.equal(mr.assignee.id, dev.id);
  assert.deepEqual(mr.reviewers.map((u) => u.id), [dev.id]);
  assert.equal(mr.author.username, 'root');
  assert.equal(mr.force_remove_source_branch, true);
  assert.equal(mr.sha, first.id);
  assert.equal(mr.diff_refs.head_sha, first.id);
  assert.equal(mr.diff_refs.base_sha, mr.diff_refs.start_sha, 'main has not moved since feature branched');
  assert.equal(mr.detailed_merge_status, 'mergeable');
  assert.equal(mr.has_conflicts, false);
  assert.equal(mr.changes_count, '1');
  assert.equal(mr.references.short, '!1');
  assert.ok((await root.ProjectLabels.all(proj.id)).some((l) => l.name === 'new'));

  // Assigned and asked to review: two to-do items for the developer.
  const devTodos = await asDev.TodoLists.all({ type: 'MergeRequest', state: 'pending' });
  assert.deepEqual(devTodos.map((t) => t.action_name).sort(), ['assigned', 'review_requested']);
  assert.ok(devTodos.every((t) => t.target.iid === mr.iid && t.target_type === 'MergeRequest' && t.author.username === 'root'));

  const shown = await asDev.MergeRequests.show(proj.id, mr.iid, { includeDivergedCommitsCount: true, includeRebaseInProgress: true });
  assert.equal(shown.id, mr.id);
  assert.equal(shown.subscribed, true, 'assignees are subscribed');
  assert.equal(shown.user.can_merge, true);
  assert.equal(shown.diverged_commits_count, 0);
  assert.equal(shown.description, 'does a thing');

  const dup = await refused(root.MergeRequests.create(proj.id, 'feature', 'main', 'Again'));
  assert.equal(dup.status, 409, 'another open merge request for the same branches');
  assert.equal(await status(root.MergeRequests.create(proj.id, 'nope', 'main', 'No branch')), 400);
  assert.equal(await status(root.MergeRequests.show(proj.id, 99)), 404);
});

test('list merge requests with filters, both lists', async () => {
  await root.Branches.create(proj.id, 'other', 'main');
  await commit('other', 'other.txt', 'other\n');
  const other = await asDev.MergeRequests.create(proj.id, 'other', 'main', 'Draft: other work', {});
  assert.equal(other.draft, true, 'a Draft: prefix makes a draft');

  const filtered = await root.MergeRequests.all({
    projectId: proj.id, state: 'opened', labels: 'bug', milestone: 'v1', assigneeId: dev.id,
    reviewerId: 'Any', withLabelsDetails: true, iids: [mr.iid], orderBy: 'title', sort: 'asc',
  });
  assert.deepEqual(filtered.map((m) => m.iid), [mr.iid]);
  assert.deepEqual(filtered[0].labels.map((l) => l.name).sort(), ['bug', 'new'], 'with_labels_details answers objects');
  assert.equal(filtered[0].labels.find((l) => l.name === 'bug').color, '#d9534f');

  const noneAssigned = await root.MergeRequests.all({ projectId: proj.id, assigneeId: 'None' });
  assert.deepEqual(noneAssigned.map((m) => m.iid), [other.iid]);
  const notBug = await root.MergeRequests.all({ projectId: proj.id, not: { labels: 'bug' } });
  assert.deepEqual(notBug.map((m) => m.iid), [other.iid], 'not[labels] in the query');
  const notBugs = await root.MergeRequests.all({ projectId: proj.id, not: { labels: ['bug', 'nothing'] } });
  assert.deepEqual(notBugs.map((m) => m.iid), [other.iid], 'not[labels][] as the client sends an array');
  const drafts = await root.MergeRequests.all({ projectId: proj.id, wip: 'yes' });
  assert.deepEqual(drafts.map((m) => m.iid), [other.iid]);
  const byAuthor = await root.MergeRequests.all({ projectId: proj.id, authorUsername: 'mr-dev' });
  assert.deepEqual(byAuthor.map((m) => m.iid), [other.iid]);
  const searched = await root.MergeRequests.all({ projectId: proj.id, search: 'thing' });
  assert.deepEqual(searched.map((m) => m.iid), [mr.iid], 'search reads the description too');
  const simple = await root.MergeRequests.all({ projectId: proj.id, view: 'simple', orderBy: 'created_at', sort: 'asc' });
  assert.deepEqual(simple.map((m) => m.iid), [mr.iid, other.iid]);
  assert.equal(simple[0].labels, undefined, 'view=simple answers the short form');
  assert.equal(simple[0].title, 'Add the feature');

  // all() walks the pages through the Link header, keeping the filters.
  const paged = await root.MergeRequests.all({ projectId: proj.id, perPage: 1, state: 'opened', sort: 'asc' });
  assert.deepEqual(paged.map((m) => m.iid), [mr.iid, other.iid]);
  const expanded = await root.MergeRequests.all({ projectId: proj.id, perPage: 1, page: 2, showExpanded: true });
  assert.equal(expanded.paginationInfo.total, 2);
  assert.equal(expanded.paginationInfo.current, 2);

  const mine = await asDev.MergeRequests.all({ scope: 'assigned_to_me', state: 'all' });
  assert.deepEqual(mine.map((m) => m.id), [mr.id]);
  const created = await asDev.MergeRequests.all({});
  assert.deepEqual(created.map((m) => m.id), [other.id], 'the global list defaults to created_by_me');
  const everywhere = await root.MergeRequests.all({ scope: 'all', in: 'title', search: 'other' });
  assert.deepEqual(everywhere.map((m) => m.id), [other.id]);

  assert.equal(await status(root.MergeRequests.all({ projectId: proj.id, authorId: dev.id, authorUsername: 'mr-dev' })), 400,
    'author_id and author_username exclude each other');

  await root.MergeRequests.remove(proj.id, other.iid);
  assert.equal(await status(root.MergeRequests.show(proj.id, other.iid)), 404);
});

test('edit: labels, state_event, draft, discussion lock', async () => {
  const updated = await root.MergeRequests.edit(proj.id, mr.iid, {
    description: '- [x] done\n- [ ] todo\n', addLabels: 'ready', removeLabels: 'new',
  });
  assert.deepEqual([...updated.labels].sort(), ['bug', 'ready']);
  assert.deepEqual(updated.task_completion_status, { count: 2, completed_count: 1 });

  const replaced = await root.MergeRequests.edit(proj.id, mr.iid, { labels: ['bug'] });
  assert.deepEqual(replaced.labels, ['bug'], 'labels as an array replace the set');

  const closed = await root.MergeRequests.edit(proj.id, mr.iid, { stateEvent: 'close' });
  assert.equal(closed.state, 'closed');
  assert.equal(closed.closed_by.username, 'root');
  assert.ok(closed.closed_at);
  const reopened = await root.MergeRequests.edit(proj.id, mr.iid, { stateEvent: 'reopen' });
  assert.equal(reopened.state, 'opened');
  assert.equal(reopened.closed_at, null);

  const draft = await root.MergeRequests.edit(proj.id, mr.iid, { title: 'Draft: Add the feature' });
  assert.equal(draft.draft, true);
  assert.equal(draft.work_in_progress, true);
  const ready = await root.MergeRequests.edit(proj.id, mr.iid, { title: 'Add the feature', discussionLocked: true });
  assert.equal(ready.draft, false);
  assert.equal(ready.discussion_locked, true);
  assert.equal((await root.MergeRequests.edit(proj.id, mr.iid, { discussionLocked: false })).discussion_locked, false);
});

test('notes and reactions on the merge request and its notes', async () => {
  note = await asDev.MergeRequestNotes.create(proj.id, mr.iid, 'Looks good');
  assert.equal(note.body, 'Looks good');
  assert.equal(note.noteable_type, 'MergeRequest');
  assert.equal(note.noteable_iid, mr.iid);
  assert.equal(note.author.id, dev.id);
  assert.equal((await root.MergeRequestNotes.show(proj.id, mr.iid, note.id)).body, 'Looks good');
  const notes = await root.MergeRequestNotes.all(proj.id, mr.iid, { sort: 'asc', orderBy: 'created_at' });
  assert.ok(notes.some((n) => n.id === note.id));
  assert.ok(notes.every((n) => n.noteable_type === 'MergeRequest'));

  const up = await asDev.MergeRequestAwardEmojis.award(proj.id, mr.iid, 'thumbsup');
  assert.equal(up.name, 'thumbsup');
  assert.equal(up.awardable_type, 'MergeRequest');
  assert.equal(up.awardable_id, mr.id);
  assert.deepEqual((await root.MergeRequestAwardEmojis.all(proj.id, mr.iid)).map((a) => a.id), [up.id]);
  assert.equal((await root.MergeRequestAwardEmojis.show(proj.id, mr.iid, up.id)).user.id, dev.id);
  const down = await root.MergeRequestAwardEmojis.award(proj.id, mr.iid, 'thumbsdown');

  const tada = await root.MergeRequestNoteAwardEmojis.award(proj.id, mr.iid, note.id, 'tada');
  assert.equal(tada.awardable_type, 'Note');
  assert.equal(tada.awardable_id, note.id);
  assert.deepEqual((await asDev.MergeRequestNoteAwardEmojis.all(proj.id, mr.iid, note.id)).map((a) => a.name), ['tada']);
  assert.equal((await asDev.MergeRequestNoteAwardEmojis.show(proj.id, mr.iid, note.id, tada.id)).name, 'tada');
  assert.equal(await status(asDev.MergeRequestNoteAwardEmojis.remove(proj.id, mr.iid, note.id, tada.id)), 403,
    'only the author or an administrator removes a reaction');
  await root.MergeRequestNoteAwardEmojis.remove(proj.id, mr.iid, note.id, tada.id);
  assert.deepEqual(await root.MergeRequestNoteAwardEmojis.all(proj.id, mr.iid, note.id), []);

  const votes = await root.MergeRequests.show(proj.id, mr.iid);
  assert.equal(votes.upvotes, 1);
  assert.equal(votes.downvotes, 1);
  assert.equal(votes.user_notes_count, 1);
  const reacted = await asDev.MergeRequests.all({ projectId: proj.id, myReactionEmoji: 'thumbsup' });
  assert.deepEqual(reacted.map((m) => m.iid), [mr.iid]);
  await root.MergeRequestAwardEmojis.remove(proj.id, mr.iid, down.id);
  assert.equal((await root.MergeRequests.show(proj.id, mr.iid)).downvotes, 0);
});

test('subscribe, unsubscribe, to-do items', async () => {
  const unsub = await asDev.MergeRequests.unsubscribe(proj.id, mr.iid);
  assert.equal(unsub.subscribed, false);
  assert.equal(await status(asDev.MergeRequests.unsubscribe(proj.id, mr.iid)), 304, 'not subscribed: 304');
  const sub = await asDev.MergeRequests.subscribe(proj.id, mr.iid);
  assert.equal(sub.subscribed, true);
  assert.equal(sub.iid, mr.iid);

  // The developer's to-do items from the assignment were marked done when the merge request was closed.
  assert.deepEqual(await asDev.TodoLists.all({ type: 'MergeRequest' }), []);
  const devDone = await asDev.TodoLists.all({ state: 'done' });
  assert.deepEqual(devDone.map((t) => t.action_name).sort(), ['assigned', 'review_requested']);

  const todo = await root.MergeRequests.createTodo(proj.id, mr.iid);
  assert.equal(todo.action_name, 'marked');
  assert.equal(todo.target.id, mr.id);
  assert.equal(todo.project.id, proj.id);
  assert.equal(todo.state, 'pending');
  assert.equal(await status(root.MergeRequests.createTodo(proj.id, mr.iid)), 304, 'a to-do exists already: 304');
  assert.deepEqual((await root.TodoLists.all()).map((t) => t.id), [todo.id]);

  await root.TodoLists.done({ todoId: todo.id });
  assert.deepEqual(await root.TodoLists.all(), []);
  assert.deepEqual((await root.TodoLists.all({ state: 'done' })).map((t) => t.id), [todo.id]);
  await asDev.MergeRequests.createTodo(proj.id, mr.iid);
  assert.equal((await asDev.TodoLists.all()).length, 1);
  await asDev.TodoLists.done();
  assert.deepEqual(await asDev.TodoLists.all(), [], 'mark_as_done without an id finishes them all');
});

test('time estimate and time stats', async () => {
  const est = await root.MergeRequests.setTimeEstimate(proj.id, mr.iid, '3h30m');
  assert.equal(est.time_estimate, 12600);
  assert.equal(est.human_time_estimate, '3h 30m');
  const spent = await root.MergeRequests.addSpentTime(proj.id, mr.iid, '1h');
  assert.equal(spent.total_time_spent, 3600);
  const stats = await root.MergeRequests.showTimeStats(proj.id, mr.iid);
  assert.deepEqual(stats, { time_estimate: 12600, total_time_spent: 3600, human_time_estimate: '3h 30m', human_total_time_spent: '1h' });
  assert.equal(await status(root.MergeRequests.setTimeEstimate(proj.id, mr.iid, 'soon')), 400, 'not a duration');
  const reset = await root.MergeRequests.resetTimeEstimate(proj.id, mr.iid);
  assert.equal(reset.time_estimate, 0);
  assert.equal(reset.human_time_estimate, null);
  await root.MergeRequests.setTimeEstimate(proj.id, mr.iid, '1w2d');
  assert.equal((await root.MergeRequests.show(proj.id, mr.iid)).time_stats.human_time_estimate, '1w 2d');
});

test('versions, diffs and changes follow pushes to the source branch', async () => {
  second = await commit('feature', 'more.txt', 'more\n');
  const versions = await root.MergeRequests.allDiffVersions(proj.id, mr.iid);
  assert.deepEqual(versions.map((v) => v.head_commit_sha), [second.id, first.id], 'a push adds a version, newest first');
  assert.equal(versions[0].real_size, '2');
  assert.equal(versions[0].state, 'collected');
  assert.equal(versions[1].head_commit_sha, first.id, 'older versions keep their SHAs');

  const v = await root.MergeRequests.showDiffVersion(proj.id, mr.iid, versions[0].id, { unidiff: true });
  assert.deepEqual(v.commits.map((c) => c.id), [second.id, first.id]);
  assert.deepEqual(v.diffs.map((d) => d.new_path).sort(), ['feature.txt', 'more.txt']);
  assert.match(v.diffs[0].diff, /^--- /, 'unidiff=true adds the file headers');

  const diffs = await root.MergeRequests.allDiffs(proj.id, mr.iid);
  assert.deepEqual(diffs.map((d) => d.new_path).sort(), ['feature.txt', 'more.txt']);
  assert.ok(diffs.every((d) => d.new_file === true && d.generated_file === false));
  const firstPage = await root.MergeRequests.allDiffs(proj.id, mr.iid, { perPage: 1, page: 1 });
  assert.equal(firstPage.length, 1, 'diffs are paginated');

  const changes = await root.MergeRequests.showChanges(proj.id, mr.iid, { accessRawDiffs: true });
  assert.equal(changes.changes_count, '2');
  assert.equal(changes.overflow, false);
  assert.deepEqual(changes.changes.map((d) => d.new_path).sort(), ['feature.txt', 'more.txt']);

  assert.deepEqual(await root.MergeRequests.allPipelines(proj.id, mr.iid), [], 'no .gitlab-ci.yml, no pipelines');
  assert.equal(await status(root.MergeRequests.allDiffVersions(proj.id, 99)), 404);
});

test('approve, merge with a merge commit, delete', async () => {
  const approval = await asDev.MergeRequestApprovals.approve(proj.id, mr.iid, { sha: second.id });
  assert.equal(approval.approved, true);
  assert.deepEqual(approval.approved_by.map((a) => a.user.id), [dev.id]);
  await asDev.MergeRequestApprovals.unapprove(proj.id, mr.iid);
  await asDev.MergeRequestApprovals.approve(proj.id, mr.iid);

  const stale = await refused(root.MergeRequests.merge(proj.id, mr.iid, { sha: first.id }));
  assert.equal(stale.status, 409, 'the source branch moved past the given sha');

  const merged = await root.MergeRequests.merge(proj.id, mr.iid, {
    sha: second.id, mergeCommitMessage: 'Merge the feature', shouldRemoveSourceBranch: true,
  });
  assert.equal(merged.state, 'merged');
  assert.equal(merged.merge_user.username, 'root');
  assert.ok(merged.merged_at);
  assert.equal(merged.squash_commit_sha, null);
  const mc = await root.Commits.show(proj.id, merged.merge_commit_sha);
  assert.equal(mc.title, 'Merge the feature');
  assert.equal(mc.parent_ids.length, 2, 'a real merge commit');
  assert.equal(mc.parent_ids[1], second.id);
  assert.equal((await root.Branches.show(proj.id, 'main')).commit.id, merged.merge_commit_sha);
  assert.equal(await status(root.Branches.show(proj.id, 'feature')), 404, 'the source branch is removed');
  const file = await root.RepositoryFiles.showRaw(proj.id, 'more.txt', 'main');
  assert.equal(file, 'more\n');

  assert.equal(await status(root.MergeRequests.merge(proj.id, mr.iid)), 405, 'merged already');
  const listed = await root.MergeRequests.all({ projectId: proj.id, state: 'merged' });
  assert.deepEqual(listed.map((m) => m.iid), [mr.iid]);

  assert.equal(await status(asDev.MergeRequests.remove(proj.id, mr.iid)), 403, 'a Developer may not delete');
  await root.MergeRequests.remove(proj.id, mr.iid);
  assert.equal(await status(root.MergeRequests.show(proj.id, mr.iid)), 404);
});
