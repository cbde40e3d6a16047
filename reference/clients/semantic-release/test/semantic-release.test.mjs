// semantic-release with @semantic-release/gitlab, unchanged, against
// `v4cert serve`: the way a project's CI job runs it, in a clone of a project
// on the reference with a conventional commit, GITLAB_URL and GITLAB_TOKEN
// set and the platform's CI variables naming the branch. One story in order.
//
// What the tool does against the reference:
// - git: `git ls-remote` and `git push --dry-run` with the token as
//   `gitlab-ci-token:<token>` (semantic-release's own choice for
//   GITLAB_TOKEN), then pushes its tag and its notes ref;
// - verifyConditions: GET /projects/:id, reading permissions;
// - publish: POST /projects/:id/releases, which is outside the spec's areas:
//   the reference answers 404 and the run stops there, with the tag pushed;
// - fail: when a run fails (here a check of the project's own), the plugin looks for
//   its open issue (GET /projects/:id/issues?state=opened&search=...) and
//   opens one, or comments on the one it finds.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReference } from '../../serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = resolve(here, '../node_modules/semantic-release/bin/semantic-release.js');

let ref;
let work;
let project;
let releaserToken; // a Maintainer's personal access token
let repo; // the clone semantic-release runs in
let head;

function git(args, cwd = repo) {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }).trim();
}

// authURL is the project's HTTP clone URL with a token under the username
// oauth2, as a person pastes it.
function authURL(token) {
  const u = new URL(project.http_url_to_repo);
  u.username = 'oauth2';
  u.password = token;
  return u.toString();
}

// release runs semantic-release in the clone as a CI job of the project
// would, and answers {code, out, seconds}.
function release(token, ...args) {
  const env = {
    PATH: process.env.PATH, HOME: work,
    GITLAB_URL: ref.base, GITLAB_TOKEN: token,
    // The platform's predefined CI variables env-ci reads (branch, commit, project).
    CI: 'true', GITLAB_CI: 'true', CI_COMMIT_REF_NAME: 'main', CI_COMMIT_SHA: head,
    CI_PROJECT_PATH: project.path_with_namespace, CI_PROJECT_DIR: repo,
    GIT_TERMINAL_PROMPT: '0', NO_COLOR: '1', FORCE_COLOR: '0',
  };
  const start = process.hrtime.bigint();
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: repo, env });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
    child.stderr.setEncoding('utf8').on('data', (c) => { out += c; });
    child.on('error', reject);
    child.on('exit', (code) => resolveRun({ code, out, seconds: Number(process.hrtime.bigint() - start) / 1e9 }));
  });
}

before(async () => {
  ref = await startReference();
  work = mkdtempSync(join(tmpdir(), 'v4cert-semrel-'));
  const user = async (username) => {
    const u = await ref.ok('POST', '/users', { username, name: username, email: `${username}@example.com`, password: 'correct-horse-battery', skip_confirmation: true });
    const t = await ref.ok('POST', `/users/${u.id}/personal_access_tokens`, { name: 'ci', scopes: ['api', 'write_repository'] });
    return { ...u, token: t.token };
  };
  const releaser = await user('releaser');
  releaserToken = releaser.token;
  project = await ref.ok('POST', '/projects', { name: 'lib', initialize_with_readme: true });
  await ref.ok('POST', `/projects/${project.id}/members`, { user_id: releaser.id, access_level: 40 });

  // A clone whose origin is the plain URL: semantic-release adds the token itself.
  repo = join(work, 'lib');
  git(['clone', '-q', authURL(releaserToken), repo], work);
  git(['remote', 'set-url', 'origin', project.http_url_to_repo]);
  git(['config', 'user.email', 'releaser@example.com']);
  git(['config', 'user.name', 'releaser']);
  writeFileSync(join(repo, '.releaserc.json'), JSON.stringify({
    branches: ['main'],
    plugins: ['@semantic-release/commit-analyzer', '@semantic-release/release-notes-generator', '@semantic-release/gitlab'],
  }, null, 2));
  git(['add', '.releaserc.json']);
  git(['commit', '-q', '-m', 'chore: release configuration']);
  writeFileSync(join(repo, 'lib.js'), 'export const answer = 42;\n');
  git(['add', 'lib.js']);
  git(['commit', '-q', '-m', 'feat: the answer']);
  git(['push', '-q', authURL(releaserToken), 'main']);
  head = git(['rev-parse', 'HEAD']);
});
after(async () => {
  await ref?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('a dry run verifies the conditions and computes the next version', async (t) => {
  const r = await release(releaserToken, '--dry-run');
  t.diagnostic(`semantic-release --dry-run: ${r.seconds.toFixed(1)} s`);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /Allowed to push to the Git repository/);
  assert.match(r.out, /Completed step "verifyConditions" of plugin "@semantic-release\/gitlab"/);
  assert.match(r.out, /Analyzing commit: feat: the answer/);
  assert.match(r.out, /the next release version is 1\.0\.0/);
  assert.match(r.out, /Skip v1\.0\.0 tag creation in dry-run mode/);
  const tags = await ref.ok('GET', `/projects/${project.id}/repository/tags`);
  assert.deepEqual(tags, [], 'a dry run pushes no tag');
});

test('a release pushes its tag and stops at the release call, outside the spec', async (t) => {
  const r = await release(releaserToken);
  t.diagnostic(`semantic-release: ${r.seconds.toFixed(1)} s`);
  assert.notEqual(r.code, 0, 'publishing a release needs the Releases API, which the reference does not serve');
  assert.match(r.out, /Created tag v1\.0\.0/);
  assert.match(r.out, /Start step "publish" of plugin "@semantic-release\/gitlab"/);
  assert.match(r.out, /projects\/root%2Flib\/releases/);
  assert.match(r.out, /(status|Response) code 404 \(Not Found\)/);
  const tag = await ref.ok('GET', `/projects/${project.id}/repository/tags/v1.0.0`);
  assert.equal(tag.commit.id, head, 'the tag semantic-release pushed names the released commit');
  const notes = git(['ls-remote', authURL(releaserToken), 'refs/notes/*']);
  assert.match(notes, /refs\/notes\/semantic-release/, 'and its notes ref went with it');
});

test('a failed run opens an issue, then comments on it', async (t) => {
  // A check of the project's own (a local plugin, as projects write them)
  // refuses the release after the gitlab plugin verified its conditions:
  // semantic-release fails, and the gitlab plugin's fail step reports it in
  // an issue of the project, found again by search on the next failure.
  writeFileSync(join(repo, 'checks.mjs'), `export function verifyConditions() {
  throw Object.assign(new Error('The changelog is missing'), { semanticRelease: true, code: 'ENOCHANGELOG', details: 'Write CHANGELOG.md.' });
}
`);
  writeFileSync(join(repo, '.releaserc.json'), JSON.stringify({
    branches: ['main'],
    plugins: ['@semantic-release/commit-analyzer', '@semantic-release/release-notes-generator', '@semantic-release/gitlab', './checks.mjs'],
  }, null, 2));
  const first = await release(releaserToken);
  t.diagnostic(`semantic-release (failing, opens an issue): ${first.seconds.toFixed(1)} s`);
  assert.notEqual(first.code, 0);
  assert.match(first.out, /ENOCHANGELOG The changelog is missing/);
  assert.match(first.out, /Created issue #\d+/, first.out);
  let issues = await ref.ok('GET', `/projects/${project.id}/issues?state=opened`);
  assert.equal(issues.length, 1);
  const [issue] = issues;
  assert.equal(issue.title, 'The automated release is failing 🚨');
  assert.deepEqual(issue.labels, ['semantic-release']);
  assert.equal(issue.author.username, 'releaser');
  assert.match(issue.description, /ENOCHANGELOG|The changelog is missing/);
  assert.equal(issue.user_notes_count, 0);

  const second = await release(releaserToken);
  assert.notEqual(second.code, 0);
  assert.match(second.out, /Commented on issue #\d+/, second.out);
  issues = await ref.ok('GET', `/projects/${project.id}/issues?state=opened`);
  assert.deepEqual(issues.map((i) => i.iid), [issue.iid], 'the plugin found its issue by search and opened no second one');
  assert.equal(issues[0].user_notes_count, 1);
});
