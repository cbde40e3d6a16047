// Branches, tags, repository files and commits through the platform's
// JavaScript client (@gitbeaker/rest), unchanged, against `v4cert serve`.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startReference, refused, status } from '../reference.mjs';

let ref;
let proj;
before(async () => {
  ref = await startReference();
  proj = await ref.root.Projects.create({ name: 'JS Repo', initializeWithReadme: true });
});
after(async () => { await ref?.stop(); });

const b64 = (s) => Buffer.from(s).toString('base64');

test('branches and tags', async () => {
  const { root } = ref;
  const main = await root.Branches.show(proj.id, 'main');
  assert.equal(main.default, true);
  const branch = await root.Branches.create(proj.id, 'topic/one', 'main');
  assert.equal(branch.name, 'topic/one');
  assert.equal(branch.commit.id, main.commit.id);
  assert.equal((await root.Branches.show(proj.id, 'topic/one')).name, 'topic/one', 'a branch with a slash is encoded by the client');
  assert.deepEqual((await root.Branches.all(proj.id, { search: 'topic' })).map((b) => b.name), ['topic/one']);
  assert.equal(await status(root.Branches.create(proj.id, 'topic/one', 'main')), 400, 'the branch exists already');

  // The client sends tag_name and ref in the query string of the POST, the message in the body.
  const tag = await root.Tags.create(proj.id, 'v1.0.0', 'main', { message: 'first release' });
  assert.equal(tag.name, 'v1.0.0');
  assert.equal(tag.message, 'first release');
  assert.equal(tag.commit.id, main.commit.id);
  const shownTag = await root.Tags.show(proj.id, 'v1.0.0');
  assert.equal(shownTag.commit.id, main.commit.id);
  assert.match(shownTag.target, /^[0-9a-f]{40}$/);
  assert.notEqual(shownTag.target, main.commit.id, 'an annotated tag targets its tag object');
  assert.deepEqual((await root.Tags.all(proj.id)).map((t) => t.name), ['v1.0.0']);
});

test('repository files: create, read, raw, blame, update, delete', async () => {
  const { root } = ref;
  const created = await root.RepositoryFiles.create(proj.id, 'docs/guide.md', 'main', '# Guide\n\nline two\n', 'add the guide', {
    authorName: 'Ada', authorEmail: 'ada@example.com',
  });
  assert.deepEqual(created, { file_path: 'docs/guide.md', branch: 'main' });

  const file = await root.RepositoryFiles.show(proj.id, 'docs/guide.md', 'main');
  assert.equal(file.file_name, 'guide.md');
  assert.equal(file.encoding, 'base64');
  assert.equal(Buffer.from(file.content, 'base64').toString(), '# Guide\n\nline two\n');
  assert.equal(file.size, 18);
  const last = await root.Commits.show(proj.id, file.last_commit_id);
  assert.equal(last.author_name, 'Ada');
  assert.equal(last.title, 'add the guide');

  const raw = await root.RepositoryFiles.showRaw(proj.id, 'docs/guide.md', 'main');
  assert.equal(raw, '# Guide\n\nline two\n', 'text/plain arrives as a string');

  const blame = await root.RepositoryFiles.allFileBlames(proj.id, 'docs/guide.md', 'main');
  assert.equal(blame.length, 1);
  assert.deepEqual(blame[0].lines, ['# Guide', '', 'line two']);
  assert.equal(blame[0].commit.id, last.id);

  const stale = file.last_commit_id;
  await root.RepositoryFiles.edit(proj.id, 'docs/guide.md', 'main', b64('# Guide\n\nedited\n'), 'edit the guide', {
    encoding: 'base64', lastCommitId: stale,
  });
  assert.equal(await root.RepositoryFiles.showRaw(proj.id, 'docs/guide.md', 'main'), '# Guide\n\nedited\n');
  assert.equal(
    await status(root.RepositoryFiles.edit(proj.id, 'docs/guide.md', 'main', 'again', 'stale edit', { lastCommitId: stale })),
    400, 'an edit based on a stale last_commit_id is refused (Errors rule 5)',
  );

  // A new branch from start_branch, then the file removed there only.
  await root.RepositoryFiles.create(proj.id, 'tmp.txt', 'scratch', 'x\n', 'scratch file', { startBranch: 'main' });
  await root.RepositoryFiles.remove(proj.id, 'tmp.txt', 'scratch', 'remove it');
  assert.equal(await status(root.RepositoryFiles.show(proj.id, 'tmp.txt', 'scratch')), 404);
  assert.equal(await status(root.RepositoryFiles.show(proj.id, 'nope.txt', 'main')), 404);
});

test('commits: create with actions, list, show, diff, refs, sequence, cherry-pick, revert, comments', async () => {
  const { root } = ref;
  await root.Branches.create(proj.id, 'work', 'main');
  const c1 = await root.Commits.create(proj.id, 'work', 'two files', [
    { action: 'create', filePath: 'src/a.txt', content: 'a\n' },
    { action: 'create', filePath: 'src/b.bin', content: b64('\x00\x01'), encoding: 'base64' },
  ], { authorName: 'Grace', authorEmail: 'grace@example.com' });
  assert.equal(c1.title, 'two files');
  assert.equal(c1.author_name, 'Grace');
  assert.deepEqual(c1.stats, { additions: 1, deletions: 0, total: 1 });
  const c2 = await root.Commits.create(proj.id, 'work', 'move and chmod\n\nSigned-off-by: Grace <grace@example.com>', [
    { action: 'move', previousPath: 'src/a.txt', filePath: 'src/c.txt' },
    { action: 'chmod', filePath: 'src/b.bin', executeFilemode: true },
  ]);
  assert.deepEqual(c2.parent_ids, [c1.id]);

  const list = await root.Commits.all(proj.id, { refName: 'work', withStats: true, trailers: true });
  assert.deepEqual(list.slice(0, 2).map((c) => c.id), [c2.id, c1.id]);
  assert.deepEqual(list[0].trailers, { 'Signed-off-by': 'Grace <grace@example.com>' });
  assert.ok(list[0].stats);
  const byPath = await root.Commits.all(proj.id, { refName: 'work', path: 'src/c.txt' });
  assert.deepEqual(byPath.map((c) => c.id), [c2.id]);

  const shown = await root.Commits.show(proj.id, 'work');
  assert.equal(shown.id, c2.id, 'sha may be a branch name');
  const diff = await root.Commits.showDiff(proj.id, c2.id);
  const byNew = Object.fromEntries(diff.map((d) => [d.new_path, d]));
  assert.equal(byNew['src/c.txt'].renamed_file, true);
  assert.equal(byNew['src/c.txt'].old_path, 'src/a.txt');
  assert.equal(byNew['src/b.bin'].b_mode, '100755');

  const refs = await root.Commits.allReferences(proj.id, c1.id, { type: 'branch' });
  assert.deepEqual(refs, [{ type: 'branch', name: 'work' }]);
  const seq = await root.Commits.showSequence(proj.id, c2.id);
  const history = await root.Commits.all(proj.id, { refName: c2.id });
  assert.equal(history.length, 5, 'the README, the guide and its edit, then the two commits');
  assert.equal(seq.count, 5, 'as git rev-list --count: the commit and its ancestors');

  const picked = await root.Commits.cherryPick(proj.id, c1.id, 'main');
  assert.match(picked.message, /cherry picked from commit/);
  const again = await refused(root.Commits.cherryPick(proj.id, c1.id, 'main', { dryRun: true }));
  assert.equal(again.status, 400, 'picking the same commit again is empty (Errors rule 4)');
  assert.ok(again.message);
  const reverted = await root.Commits.revert(proj.id, picked.id, 'main');
  assert.equal(reverted.title, `Revert "two files"`);

  const comment = await root.Commits.createComment(proj.id, c1.id, 'nice commit');
  assert.equal(comment.note, 'nice commit');
  assert.deepEqual((await root.Commits.allComments(proj.id, c1.id)).map((c) => c.note), ['nice commit']);
});
