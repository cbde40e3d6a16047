// Users and tokens, groups, projects and members through the platform's
// JavaScript client (@gitbeaker/rest), unchanged, against `v4cert serve`.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startReference, rootToken, status } from '../reference.mjs';

let ref;
before(async () => { ref = await startReference(); });
after(async () => { await ref?.stop(); });

test('users, personal access tokens and sudo', async () => {
  const { root } = ref;
  const me = await root.Users.showCurrentUser();
  assert.equal(me.username, 'root');
  assert.equal(me.is_admin, true);

  const owner = await root.Users.create({
    username: 'js-owner', name: 'JS Owner', email: 'js-owner@example.com',
    password: 'correct-horse-battery', skipConfirmation: true, canCreateGroup: true,
  });
  assert.equal(owner.username, 'js-owner');
  assert.equal(owner.state, 'active');
  const dev = await root.Users.create({
    username: 'js-dev', name: 'JS Dev', email: 'js-dev@example.com', forceRandomPassword: true,
  });

  const tok = await root.Users.createPersonalAccessToken(owner.id, 'ci', ['api', 'read_user']);
  assert.ok(tok.token, 'the token is given once, at creation');
  assert.equal(tok.active, true);
  assert.deepEqual(tok.scopes, ['api', 'read_user']);
  assert.equal(tok.user_id, owner.id);

  const asOwner = ref.client(tok.token);
  assert.equal((await asOwner.Users.showCurrentUser()).id, owner.id);
  const asBearer = ref.client(undefined, { oauthToken: tok.token });
  assert.equal((await asBearer.Users.showCurrentUser()).id, owner.id, 'a personal access token as Authorization: Bearer');

  // sudo both ways the client offers it: per client (a header on every call) and per call.
  const asDevBySudo = ref.client(rootToken, { sudo: 'js-dev' });
  assert.equal((await asDevBySudo.Users.showCurrentUser()).id, dev.id);
  assert.equal((await root.Users.showCurrentUser({ sudo: dev.id })).id, dev.id);
  assert.equal(await status(asOwner.Users.showCurrentUser({ sudo: dev.id })), 403, 'sudo needs an administrator');

  const found = await root.Users.all({ username: 'JS-DEV' });
  assert.deepEqual(found.map((u) => u.id), [dev.id], 'username matches case-insensitively');
  const shown = await root.Users.show(owner.id);
  assert.equal(shown.email, 'js-owner@example.com', 'administrators see the e-mail address');

  // all() follows the Link header to the end: three users, one a page.
  const everyone = await root.Users.all({ perPage: 1 });
  assert.deepEqual(everyone.map((u) => u.username).sort(), ['js-dev', 'js-owner', 'root']);
  const page = await root.Users.all({ perPage: 2, page: 1, showExpanded: true });
  assert.equal(page.data.length, 2);
  assert.deepEqual(page.paginationInfo, { total: 3, next: 2, current: 1, previous: null, perPage: 2, totalPages: 2 });
  const keyset = await root.Users.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 1 });
  assert.deepEqual(keyset.map((u) => u.id), [me.id, owner.id, dev.id], 'keyset pages followed through rel=next');

  assert.equal(await root.Users.block(dev.id), true);
  assert.equal((await root.Users.show(dev.id)).state, 'blocked');
  await root.Users.unblock(dev.id);
  assert.equal((await root.Users.show(dev.id)).state, 'active');

  await root.UserCustomAttributes.set(dev.id, 'team', 'clients');
  const withAttrs = await root.Users.all({ customAttributes: { team: 'clients' } });
  assert.deepEqual(withAttrs.map((u) => u.id), [dev.id]);

  const gone = await root.Users.create({ username: 'js-gone', name: 'Gone', email: 'gone@example.com', forceRandomPassword: true });
  await root.Users.remove(gone.id);
  assert.equal(await status(root.Users.show(gone.id)), 404);

  assert.equal(await status(ref.client('glpat-not-a-token').Users.showCurrentUser()), 401);
});

test('groups, subgroups, members and shares', async () => {
  const { root } = ref;
  const owner = await root.Users.create({ username: 'g-owner', name: 'G Owner', email: 'g-owner@example.com', forceRandomPassword: true, canCreateGroup: true });
  const dev = await root.Users.create({ username: 'g-dev', name: 'G Dev', email: 'g-dev@example.com', forceRandomPassword: true });
  const asOwner = ref.client((await root.Users.createPersonalAccessToken(owner.id, 'ci', ['api'])).token);

  const top = await asOwner.Groups.create('JS Top', 'js-top', { visibility: 'public', description: 'from gitbeaker', requestAccessEnabled: true });
  assert.equal(top.full_path, 'js-top');
  assert.equal(top.visibility, 'public');
  const sub = await asOwner.Groups.create('JS Sub', 'js-sub', { parentId: top.id });
  assert.equal(sub.full_path, 'js-top/js-sub');
  assert.equal(sub.parent_id, top.id);
  assert.equal((await asOwner.Groups.show('js-top/js-sub')).id, sub.id, 'a full path as :id is encoded by the client');

  const listed = await asOwner.Groups.all({ search: 'js-', orderBy: 'path' });
  assert.deepEqual(listed.map((g) => g.full_path), ['js-top/js-sub', 'js-top'], 'ordered by path: js-sub before js-top');

  const member = await asOwner.GroupMembers.add(top.id, 30, { userId: dev.id });
  assert.equal(member.id, dev.id);
  assert.equal(member.access_level, 30);
  assert.deepEqual((await asOwner.GroupMembers.all(sub.id)).map((m) => m.id), [owner.id]);
  const inherited = await asOwner.GroupMembers.all(sub.id, { includeInherited: true });
  assert.deepEqual(inherited.map((m) => m.id).sort(), [owner.id, dev.id].sort());
  assert.equal((await asOwner.GroupMembers.show(sub.id, dev.id, { includeInherited: true })).access_level, 30);

  const invited = await asOwner.Groups.create('JS Invited', 'js-invited', {});
  await asOwner.Groups.share(top.id, invited.id, 20, {});
  const shared = await asOwner.Groups.show(top.id);
  assert.deepEqual(shared.shared_with_groups.map((s) => [s.group_id, s.group_access_level]), [[invited.id, 20]]);

  await root.GroupCustomAttributes.set(top.id, 'tier', 'gold');

  await asOwner.Groups.remove(invited.id);
  assert.equal(await status(asOwner.Groups.show(invited.id)), 404);
});

test('projects: create, read by path, edit, list by topic, star, archive, members, share, delete', async () => {
  const { root } = ref;
  const group = await root.Groups.create('JS Projects', 'js-projects', { visibility: 'internal' });
  const dev = await root.Users.create({ username: 'p-dev', name: 'P Dev', email: 'p-dev@example.com', forceRandomPassword: true });
  const asDev = ref.client((await root.Users.createPersonalAccessToken(dev.id, 'ci', ['api'])).token);

  const proj = await root.Projects.create({
    name: 'JS App', path: 'js-app', namespaceId: group.id, visibility: 'private', description: 'made by gitbeaker',
    initializeWithReadme: true, defaultBranch: 'trunk', topics: ['gitbeaker', 'compat'],
  });
  assert.equal(proj.path_with_namespace, 'js-projects/js-app');
  assert.equal(proj.default_branch, 'trunk');
  assert.deepEqual([...proj.topics].sort(), ['compat', 'gitbeaker']);
  assert.equal(proj.visibility, 'private');

  const byPath = await root.Projects.show('js-projects/js-app');
  assert.equal(byPath.id, proj.id);
  const edited = await root.Projects.edit(proj.id, { description: 'edited', containerRegistryAccessLevel: 'private' });
  assert.equal(edited.description, 'edited');
  assert.equal(edited.container_registry_access_level, 'private');

  const tagged = await root.Projects.all({ topic: 'gitbeaker' });
  assert.deepEqual(tagged.map((p) => p.id), [proj.id]);
  const searched = await root.Projects.all({ search: 'JS App', orderBy: 'id', sort: 'asc' });
  assert.deepEqual(searched.map((p) => p.id), [proj.id]);
  const second = await root.Projects.create({ name: 'JS Second', namespaceId: group.id });
  const keyset = await root.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'desc', perPage: 1 });
  assert.deepEqual(keyset.map((p) => p.id), [second.id, proj.id], 'keyset pages by id (Limits 4), followed through rel=next');
  const groups = await root.Groups.all({ pagination: 'keyset', orderBy: 'name', sort: 'asc', perPage: 1 });
  assert.deepEqual(groups.map((g) => g.name), ['JS Projects', 'JS Sub', 'JS Top'], 'groups page by keyset on name');

  assert.equal(await status(asDev.Projects.show(proj.id)), 404, 'a private project is hidden from non-members');
  const m = await root.ProjectMembers.add(proj.id, 30, { userId: dev.id });
  assert.equal(m.access_level, 30);
  assert.equal((await asDev.Projects.show(proj.id)).id, proj.id);
  assert.deepEqual((await root.ProjectMembers.all(proj.id)).map((x) => x.id), [dev.id]);

  const starred = await asDev.Projects.star(proj.id);
  assert.equal(starred.star_count, 1);

  const archived = await root.Projects.archive(proj.id);
  assert.equal(archived.archived, true);
  assert.equal((await root.Projects.unarchive(proj.id)).archived, false);

  const team = await root.Groups.create('JS Team', 'js-team', {});
  await root.Projects.share(proj.id, team.id, 30, {});
  assert.deepEqual((await root.Projects.show(proj.id)).shared_with_groups.map((s) => s.group_id), [team.id]);

  await root.ProjectCustomAttributes.set(proj.id, 'owner-team', 'clients');
  const gproj = await root.Groups.allProjects(group.id, { simple: true, orderBy: 'id', sort: 'asc' });
  assert.deepEqual(gproj.map((p) => p.id), [proj.id, second.id]);
  assert.equal(gproj[0].visibility, undefined, 'simple=true answers the short form');

  await root.Projects.remove(proj.id);
  assert.equal(await status(root.Projects.show(proj.id)), 404);
});
