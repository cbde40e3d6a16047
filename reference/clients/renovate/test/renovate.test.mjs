// Renovate (platform gitlab), unchanged, against `v4cert serve`, with a
// loopback npm registry answering its package lookups. One story in order,
// each run of Renovate a process of its own as a scheduled job runs it:
//
// 1. onboarding: a project with a package.json and no renovate.json gets
//    Renovate's onboarding merge request (branch renovate/configure);
// 2. the onboarding merge request is merged; the next run opens a merge
//    request per update with labels, assignees and reviewers, automerges the
//    minor and patch ones (platform automerge: merge when pipeline succeeds,
//    which merges at once with no pipeline) and keeps its Dependency
//    Dashboard issue;
// 3. a new major version is published; the next run updates the open
//    merge request to it and rewrites the dashboard.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startReference } from '../../serve.mjs';
import { startRegistry } from '../registry.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bin = resolve(here, '../node_modules/renovate/dist/renovate.js');

let ref;
let registry;
let work;
let bot; // the user Renovate runs as, a Maintainer of the project
let dev; // assigned and asked to review
let project;
const times = [];
// statuses tells whether the reference serves a commit's statuses
// (GET /projects/:id/repository/commits/:sha/statuses), which Renovate reads
// before it automerges. Until it does, the repository's configuration sets
// Renovate's own ignoreTests (automerge without waiting for checks): with
// its defaults Renovate stops its run at the first 404 there ("Repository
// has changed during renovation"). Pending on the branch that builds
// pipelines and commit statuses.
let statuses;

// The repository's Renovate configuration, as the onboarding merge request
// proposes it (onboardingConfig) and the project then keeps.
const repoConfig = () => ({
  extends: ['config:recommended'],
  labels: ['dependencies'],
  assignees: ['dev'],
  reviewers: ['dev'],
  packageRules: [{ matchUpdateTypes: ['minor', 'patch'], automerge: true }],
  ...(statuses ? {} : { ignoreTests: true }),
});

// renovate runs Renovate once over the project and answers {code, out, log, seconds}:
// out is its console (info level), log the JSON lines of its debug log.
function renovate(run) {
  const logFile = join(work, `renovate-${run}.log`);
  const env = {
    PATH: process.env.PATH, HOME: work,
    RENOVATE_PLATFORM: 'gitlab',
    RENOVATE_ENDPOINT: `${ref.base}/api/v4/`,
    RENOVATE_TOKEN: bot.token,
    RENOVATE_REPOSITORIES: JSON.stringify([project.path_with_namespace]),
    RENOVATE_GIT_AUTHOR: 'Renovate Bot <renovate-bot@example.com>',
    RENOVATE_BASE_DIR: join(work, 'renovate'),
    // A cache of its own per run, as a fresh CI job has: Renovate keeps
    // package lookups for 15 minutes, and run 3 must see a new version.
    RENOVATE_CACHE_DIR: join(work, `cache-${run}`),
    RENOVATE_ONBOARDING_CONFIG: JSON.stringify(repoConfig()),
    // Lookups go to the loopback registry; nothing else leaves the machine.
    RENOVATE_NPMRC: `registry=${registry.url}/\n`,
    RENOVATE_FETCH_CHANGE_LOGS: 'off',
    RENOVATE_PR_HOURLY_LIMIT: '0',
    RENOVATE_PR_CONCURRENT_LIMIT: '0',
    // Renovate's own waits for a pipeline the reference never starts (its
    // defaults: 5 attempts with backoff before automerge, 2 before a status).
    RENOVATE_X_GITLAB_AUTO_MERGEABLE_CHECK_ATTEMPS: '1',
    RENOVATE_X_GITLAB_MERGE_REQUEST_DELAY: '10',
    RENOVATE_X_GITLAB_BRANCH_STATUS_CHECK_ATTEMPTS: '0',
    LOG_LEVEL: 'info', LOG_FORMAT: 'json',
    LOG_FILE: logFile, LOG_FILE_LEVEL: 'debug',
    GIT_TERMINAL_PROMPT: '0',
  };
  const start = process.hrtime.bigint();
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [bin], { cwd: work, env });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
    child.stderr.setEncoding('utf8').on('data', (c) => { out += c; });
    child.on('error', reject);
    child.on('exit', (code) => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      times.push(`run ${run}: ${seconds.toFixed(1)} s`);
      const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
      resolveRun({ code, out, log, seconds });
    });
  });
}

// problems lists the warnings and errors of a run's log.
// RE2 is an optional native module of Renovate's, which the install omits
// (it compiles from source where no prebuilt binary downloads): Renovate
// warns once and uses JavaScript's RegExp.
const problems = (log) => log.filter((e) => e.level >= 40 && !e.msg.startsWith('RE2 not usable')).map((e) => `${e.msg} ${e.err ? JSON.stringify(e.err).slice(0, 400) : ''}`);

const mrs = async (query = '') => ref.ok('GET', `/projects/${project.id}/merge_requests?per_page=100${query}`);
const file = async (path, branch = 'main') => {
  const r = await ref.ok('GET', `/projects/${project.id}/repository/files/${encodeURIComponent(path)}?ref=${branch}`);
  return Buffer.from(r.content, 'base64').toString('utf8');
};

before(async () => {
  ref = await startReference();
  registry = await startRegistry();
  work = mkdtempSync(join(tmpdir(), 'v4cert-renovate-'));
  const user = async (username, scopes) => {
    const u = await ref.ok('POST', '/users', { username, name: username, email: `${username}@example.com`, password: 'correct-horse-battery', skip_confirmation: true });
    const t = await ref.ok('POST', `/users/${u.id}/personal_access_tokens`, { name: 'renovate', scopes });
    return { ...u, token: t.token };
  };
  bot = await user('renovate-bot', ['api', 'write_repository']);
  dev = await user('dev', ['api']);
  const group = await ref.ok('POST', '/groups', { name: 'team', path: 'team' });
  project = await ref.ok('POST', '/projects', { name: 'app', namespace_id: group.id, initialize_with_readme: true });
  await ref.ok('POST', `/projects/${project.id}/members`, { user_id: bot.id, access_level: 40 });
  await ref.ok('POST', `/projects/${project.id}/members`, { user_id: dev.id, access_level: 30 });
  await ref.ok('POST', `/projects/${project.id}/repository/commits`, {
    branch: 'main', commit_message: 'add package.json',
    actions: [{
      action: 'create', file_path: 'package.json',
      // The two dependencies apart, so that merging one update leaves the
      // other merge request free of conflicts (git conflicts on adjacent lines).
      content: `${JSON.stringify({
        name: 'app', version: '1.0.0',
        dependencies: { 'v4cert-fixture-a': '1.0.0' },
        scripts: { test: 'node --test' },
        devDependencies: { 'v4cert-fixture-b': '3.1.0' },
      }, null, 2)}\n`,
    }],
  });
  const head = (await ref.ok('GET', `/projects/${project.id}/repository/branches/main`)).commit.id;
  statuses = (await ref.api('GET', `/projects/${project.id}/repository/commits/${head}/statuses`)).status === 200;
  for (const v of ['1.0.0', '1.1.0', '1.2.0', '2.0.0']) registry.publish('v4cert-fixture-a', v);
  for (const v of ['3.0.0', '3.1.0', '3.1.1']) registry.publish('v4cert-fixture-b', v);
});
after(async (t) => {
  t.diagnostic?.(`Renovate against the reference: ${times.join(', ')}`);
  console.log(`# Renovate against the reference: ${times.join(', ')}`);
  await registry?.stop();
  await ref?.stop();
  if (work && !process.env.V4CERT_TOOLS_KEEP) rmSync(work, { recursive: true, force: true });
});

test('onboarding: Renovate proposes its configuration in a merge request', async (t) => {
  if (!statuses) {
    t.diagnostic('PENDING: the reference serves no commit statuses yet; the repository configuration sets ignoreTests');
  }
  const r = await renovate(1);
  t.diagnostic(`renovate (onboarding): ${r.seconds.toFixed(1)} s`);
  assert.equal(r.code, 0, r.out);
  assert.deepEqual(problems(r.log), [], 'no warning or error in Renovate\'s log');
  const open = await mrs('&state=opened');
  assert.equal(open.length, 1, JSON.stringify(open.map((m) => m.title)));
  const [mr] = open;
  assert.equal(mr.title, 'Configure Renovate');
  assert.equal(mr.source_branch, 'renovate/configure');
  assert.equal(mr.target_branch, 'main');
  assert.equal(mr.author.username, 'renovate-bot');
  assert.match(mr.description, /v4cert-fixture-a/, 'the onboarding merge request previews the updates it will open');
  const config = JSON.parse(await file('renovate.json', 'renovate/configure'));
  assert.deepEqual(config.labels, ['dependencies']);
  assert.deepEqual(config.extends, ['config:recommended']);
  assert.equal(config.ignoreTests, statuses ? undefined : true);
  assert.ok(registry.requests.includes('v4cert-fixture-a'), 'Renovate looked the packages up in the loopback registry');
});

test('after onboarding: merge requests with labels, assignees and reviewers, automerge, the dashboard', async (t) => {
  const [onboarding] = await mrs('&state=opened');
  const merged = await ref.ok('PUT', `/projects/${project.id}/merge_requests/${onboarding.iid}/merge`, { should_remove_source_branch: true });
  assert.equal(merged.state, 'merged');

  const r = await renovate(2);
  t.diagnostic(`renovate (updates): ${r.seconds.toFixed(1)} s`);
  assert.equal(r.code, 0, r.out);
  assert.deepEqual(problems(r.log), [], 'no warning or error in Renovate\'s log');

  const all = await mrs('&author_username=renovate-bot');
  const byTitle = Object.fromEntries(all.map((m) => [m.title, m]));
  const major = byTitle['Update dependency v4cert-fixture-a to v2'];
  const minor = byTitle['Update dependency v4cert-fixture-a to v1.2.0'];
  const patch = byTitle['Update dependency v4cert-fixture-b to v3.1.1'];
  assert.ok(major && minor && patch, `merge requests: ${Object.keys(byTitle).join('; ')}`);
  for (const mr of [major, minor, patch]) {
    assert.deepEqual(mr.labels, ['dependencies'], mr.title);
  }
  // Renovate assigns and asks for review only where a person must act
  // (assignAutomerge is false by default).
  assert.deepEqual(major.assignees.map((u) => u.username), ['dev']);
  assert.deepEqual(major.reviewers.map((u) => u.username), ['dev']);
  assert.equal(major.state, 'opened', 'a major update waits for a person');
  assert.equal(minor.state, 'merged', 'minor updates automerge');
  assert.equal(patch.state, 'merged', 'patch updates automerge');
  const pkg = JSON.parse(await file('package.json'));
  assert.deepEqual([pkg.dependencies, pkg.devDependencies], [{ 'v4cert-fixture-a': '1.2.0' }, { 'v4cert-fixture-b': '3.1.1' }]);
  assert.equal(JSON.parse(await file('package.json', major.source_branch)).dependencies['v4cert-fixture-a'], '2.0.0');

  const issues = await ref.ok('GET', `/projects/${project.id}/issues?state=opened`);
  assert.deepEqual(issues.map((i) => i.title), ['Dependency Dashboard']);
  assert.equal(issues[0].author.username, 'renovate-bot');
  assert.match(issues[0].description, /Update dependency v4cert-fixture-a to v2/);
});

test('a newer major version updates the open merge request and the dashboard', async (t) => {
  registry.publish('v4cert-fixture-a', '2.1.0', new Date('2026-02-01T00:00:00Z'));
  const [before] = await mrs('&state=opened');
  const dashboard = (await ref.ok('GET', `/projects/${project.id}/issues?state=opened&search=Dependency%20Dashboard`))[0];

  const r = await renovate(3);
  t.diagnostic(`renovate (update an open merge request): ${r.seconds.toFixed(1)} s`);
  assert.equal(r.code, 0, r.out);
  assert.deepEqual(problems(r.log), [], 'no warning or error in Renovate\'s log');

  const open = await mrs('&state=opened');
  assert.deepEqual(open.map((m) => m.iid), [before.iid], 'the same merge request, no new one');
  assert.notEqual(open[0].sha, before.sha, 'its branch was rewritten');
  assert.equal(JSON.parse(await file('package.json', open[0].source_branch)).dependencies['v4cert-fixture-a'], '2.1.0');
  assert.match(open[0].description, /2\.1\.0/);
  const issues = await ref.ok('GET', `/projects/${project.id}/issues?state=all`);
  assert.deepEqual(issues.map((i) => i.iid), [dashboard.iid], 'the dashboard is kept, not opened again');
});
