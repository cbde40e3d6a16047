"""The platform's Python client, python-gitlab (library and CLI, as Debian
packages them: python3-gitlab and gitlab-cli), against `v4cert serve`,
unchanged.

Each test class starts the reference as its own process, the way a client's
CI job would: `v4cert serve` on a free loopback port with a fixed
administrator token, the address read from the banner it prints. The binary
is $V4CERT_BIN when set (`make clients-python` passes bin/v4cert); otherwise
it is built from this checkout with `go build` into a temporary directory.
V4CERT_PY_LOG=1 copies the server's request log to stderr.

Run: python3 -m unittest -v reference/clients/python/test_python_gitlab.py
"""

import base64
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import gitlab

ROOT_TOKEN = "glpat-python-client-root"
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
LISTENING = re.compile(r"listening on (http://\S+)")


class Reference:
    """One `v4cert serve` process with root alone (--seed none)."""

    def __init__(self):
        self.built = None
        binary = os.environ.get("V4CERT_BIN")
        if not binary:
            self.built = tempfile.mkdtemp(prefix="v4cert-py-")
            binary = os.path.join(self.built, "v4cert")
            subprocess.run(["go", "build", "-o", binary, "./cmd/v4cert"], cwd=REPO_ROOT, check=True)
        args = [binary, "serve", "--addr", "127.0.0.1:0", "--seed", "none", "--root-token", ROOT_TOKEN]
        log = bool(os.environ.get("V4CERT_PY_LOG"))
        if log:
            args += ["--log", "requests"]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=None if log else subprocess.STDOUT, text=True)
        seen = []
        deadline = time.monotonic() + 60
        self.base = None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            m = LISTENING.search(line)
            if m:
                self.base = m.group(1)
                break
        if self.base is None:
            self.stop()
            raise RuntimeError("v4cert serve did not start listening:\n" + "".join(seen))
        # Keep draining the banner so the pipe never fills.
        self.drain = threading.Thread(target=self.proc.stdout.read, daemon=True)
        self.drain.start()
        self.clients = []

    def client(self, token=ROOT_TOKEN, **kw):
        gl = gitlab.Gitlab(self.base, private_token=token, **kw)
        self.clients.append(gl)
        return gl

    def stop(self):
        for gl in self.clients:
            gl.session.close()
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=30)
        if getattr(self, "drain", None):
            self.drain.join(timeout=30)
        self.proc.stdout.close()
        if self.built:
            shutil.rmtree(self.built, ignore_errors=True)


def cli_command():
    """The CLI as installed: gitlab-cli's python-gitlab, else the module's own entry point."""
    exe = shutil.which("python-gitlab") or shutil.which("gitlab")
    return [exe] if exe else [sys.executable, "-m", "gitlab"]


class PythonGitlabTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.ref = Reference()
        cls.gl = cls.ref.client()
        cls.gl.auth()

    @classmethod
    def tearDownClass(cls):
        cls.ref.stop()

    # --- helpers -------------------------------------------------------------

    _n = 0

    @classmethod
    def unique(cls, prefix):
        cls._n += 1
        return "%s-%d" % (prefix, cls._n)

    def new_user(self, name=None):
        name = name or self.unique("user")
        return self.gl.users.create({"username": name, "name": name.title(), "email": name + "@example.com",
                                     "password": "Secret-" + name + "-pass", "skip_confirmation": True})

    def new_project(self, **extra):
        data = {"name": self.unique("proj"), "initialize_with_readme": True}
        data.update(extra)
        return self.gl.projects.create(data)

    def assert_refused(self, status, call, *args, **kw):
        with self.assertRaises(gitlab.exceptions.GitlabError) as cm:
            call(*args, **kw)
        self.assertEqual(cm.exception.response_code, status, cm.exception)
        return cm.exception

    # --- users ----------------------------------------------------------------

    def test_current_user_and_version(self):
        self.assertEqual(self.gl.user.username, "root")
        version, revision = self.gl.version()
        self.assertNotEqual(version, "unknown")
        self.assertTrue(revision)

    def test_users(self):
        u = self.new_user()
        self.assertEqual(self.gl.users.get(u.id).username, u.username)
        found = self.gl.users.list(username=u.username)
        self.assertEqual([x.id for x in found], [u.id])
        # A client acting as that user, with a token root made for it.
        tok = self.gl.http_post("/users/%d/personal_access_tokens" % u.id, post_data={"name": "py", "scopes": ["api"]})
        as_user = self.ref.client(tok["token"])
        as_user.auth()
        self.assertEqual(as_user.user.id, u.id)
        self.assert_refused(403, as_user.users.create, {"username": "nope", "name": "Nope", "email": "nope@example.com", "password": "Secret-nope-pass"})
        u.delete()
        self.assert_refused(404, self.gl.users.get, u.id)

    @unittest.expectedFailure  # beyond the spec and not served: PUT /users/:id answers 405
    def test_user_edit(self):
        u = self.new_user()
        u.name = "Renamed"
        u.save()
        self.assertEqual(self.gl.users.get(u.id).name, "Renamed")

    def test_users_iterator_pages(self):
        for _ in range(3):
            self.new_user()
        seen = [u.id for u in self.gl.users.list(iterator=True, per_page=2)]
        self.assertEqual(len(seen), len(set(seen)))
        self.assertEqual(seen, [u.id for u in self.gl.users.list(get_all=True)])

    # --- groups and members ---------------------------------------------------

    def test_groups_and_members(self):
        path = self.unique("grp")
        g = self.gl.groups.create({"name": path, "path": path})
        self.assertEqual(self.gl.groups.get(g.id).full_path, path)
        self.assertIn(g.id, [x.id for x in self.gl.groups.list(search=path)])
        u = self.new_user()
        m = g.members.create({"user_id": u.id, "access_level": gitlab.const.AccessLevel.DEVELOPER})
        self.assertEqual(m.access_level, 30)
        self.assertIn(u.id, [x.id for x in g.members.list()])
        self.assertEqual(g.members.get(u.id).access_level, 30)
        self.assertIn(u.id, [x.id for x in g.members_all.list(get_all=True)])
        p = self.gl.projects.create({"name": self.unique("inside"), "namespace_id": g.id})
        self.assertEqual([x.id for x in g.projects.list()], [p.id])
        g.delete()

    @unittest.expectedFailure  # beyond the spec and not served: PUT and DELETE .../members/:user_id answer 405
    def test_member_edit_and_delete(self):
        p = self.new_project()
        u = self.new_user()
        m = p.members.create({"user_id": u.id, "access_level": 20})
        m.access_level = 30
        m.save()
        p.members.delete(u.id)
        self.assert_refused(404, p.members.get, u.id)

    # --- projects -------------------------------------------------------------

    def test_projects(self):
        p = self.new_project(description="first")
        got = self.gl.projects.get(p.id)
        self.assertEqual(got.description, "first")
        # The platform's project detail for a signed-in caller: permissions
        # (root made it in its own namespace: its Owner) and readme_url.
        self.assertEqual(got.permissions, {"project_access": {"access_level": 50, "notification_level": 3}, "group_access": None})
        self.assertTrue(got.readme_url.endswith("/-/blob/main/README.md"), got.readme_url)
        self.assertEqual(self.gl.projects.get(p.path_with_namespace).id, p.id)
        got.description = "second"
        got.save()
        self.assertEqual(self.gl.projects.get(p.id).description, "second")
        self.assertIn(p.id, [x.id for x in self.gl.projects.list(search=p.name)])

    def test_projects_list_boolean_filters(self):
        # python-gitlab sends Python booleans as True/False: Grape coerces them.
        p = self.new_project()
        self.assertIn(p.id, [x.id for x in self.gl.projects.list(membership=True, get_all=True)])
        self.assertIn(p.id, [x.id for x in self.gl.projects.list(owned=True, simple=True, get_all=True)])

    def test_project_members(self):
        p = self.new_project()
        u = self.new_user()
        p.members.create({"user_id": u.id, "access_level": gitlab.const.AccessLevel.REPORTER})
        self.assertEqual(p.members.get(u.id).access_level, 20)
        self.assertIn(u.id, [x.id for x in p.members_all.list(get_all=True)])
        self.assertIn(u.id, [x.id for x in p.members.list()])

    # --- repository: files, commits, branches, tags ------------------------------

    def test_files(self):
        p = self.new_project()
        f = p.files.create({"file_path": "dir/hello.txt", "branch": "main", "content": "hello\n", "commit_message": "Add hello"})
        self.assertEqual(f.file_path, "dir/hello.txt")
        got = p.files.get("dir/hello.txt", ref="main")
        self.assertEqual(base64.b64decode(got.content), b"hello\n")
        self.assertEqual(got.decode(), b"hello\n")
        got.content = "hello again\n"
        got.save(branch="main", commit_message="Update hello")
        self.assertEqual(p.files.raw("dir/hello.txt", ref="main"), b"hello again\n")
        # Renovate and others read at HEAD; python-gitlab's head() reads the headers.
        self.assertEqual(p.files.raw("dir/hello.txt", ref="HEAD"), b"hello again\n")
        self.assertEqual(p.files.get("dir/hello.txt", ref="HEAD").decode(), b"hello again\n")
        blame = p.files.blame("dir/hello.txt", ref="main")
        self.assertEqual(blame[0]["lines"], ["hello again"])
        p.files.delete("dir/hello.txt", branch="main", commit_message="Remove hello")
        self.assert_refused(404, p.files.get, "dir/hello.txt", ref="main")

    def test_commits(self):
        p = self.new_project()
        c = p.commits.create({"branch": "main", "commit_message": "Two files", "actions": [
            {"action": "create", "file_path": "a.txt", "content": "a\n"},
            {"action": "create", "file_path": "b.txt", "content": "b\n"}]})
        self.assertEqual(c.title, "Two files")
        listed = p.commits.list(ref_name="main", get_all=True)
        self.assertEqual(listed[0].id, c.id)
        self.assertEqual(len(listed), 2)
        self.assertEqual(p.commits.get(c.id).parent_ids, [listed[1].id])
        self.assertEqual(sorted(d["new_path"] for d in c.diff(get_all=True)), ["a.txt", "b.txt"])
        refs = c.refs()
        self.assertIn({"type": "branch", "name": "main"}, refs)
        self.assertEqual(p.commits.get("HEAD").id, c.id)
        note = c.comments.create({"note": "looks right"})
        self.assertEqual(note.note, "looks right")

    def test_branches_and_tags(self):
        p = self.new_project()
        b = p.branches.create({"branch": "feature", "ref": "main"})
        self.assertEqual(b.name, "feature")
        self.assertEqual(sorted(x.name for x in p.branches.list()), ["feature", "main"])
        self.assertEqual(p.branches.get("feature").commit["id"], p.branches.get("main").commit["id"])
        t = p.tags.create({"tag_name": "v1.0.0", "ref": "main", "message": "first"})
        self.assertEqual(t.name, "v1.0.0")
        self.assertEqual([x.name for x in p.tags.list()], ["v1.0.0"])
        self.assertEqual(p.tags.get("v1.0.0").message, "first")
        self.assertEqual(p.branches.create({"branch": "from-tag", "ref": "v1.0.0"}).name, "from-tag")

    # --- merge requests --------------------------------------------------------

    def test_merge_requests(self):
        p = self.new_project()
        p.branches.create({"branch": "topic", "ref": "main"})
        p.files.create({"file_path": "new.txt", "branch": "topic", "content": "new\n", "commit_message": "New file"})
        p.labels.create({"name": "ready", "color": "#00ff00"})
        reviewer = self.new_user()
        p.members.create({"user_id": reviewer.id, "access_level": 30})
        mr = p.mergerequests.create({"source_branch": "topic", "target_branch": "main", "title": "Add new.txt",
                                      "labels": ["ready"], "reviewer_ids": [reviewer.id]})
        self.assertEqual(mr.labels, ["ready"])
        self.assertEqual([r["id"] for r in mr.reviewers], [reviewer.id])
        self.assertIn(mr.iid, [x.iid for x in p.mergerequests.list(state="opened")])
        self.assertIn(mr.iid, [x.iid for x in self.gl.mergerequests.list(scope="all", get_all=True)])
        got = p.mergerequests.get(mr.iid)
        self.assertEqual(got.title, "Add new.txt")
        self.assertEqual([c["new_path"] for c in got.changes()["changes"]], ["new.txt"])
        note = got.notes.create({"body": "LGTM"})
        self.assertEqual([n.body for n in got.notes.list() if not n.system], ["LGTM"])
        self.assertEqual(got.notes.get(note.id).body, "LGTM")
        got.approve()
        got.description = "adds a file"
        got.save()
        self.assertEqual(p.mergerequests.get(mr.iid).description, "adds a file")
        got.merge()
        self.assertEqual(p.mergerequests.get(mr.iid).state, "merged")
        self.assertEqual(p.files.raw("new.txt", ref="main"), b"new\n")

    @unittest.expectedFailure  # GET .../merge_requests/:iid/approvals (the platform's approvals summary) is not served
    def test_merge_request_approvals_summary(self):
        p = self.new_project()
        p.branches.create({"branch": "topic", "ref": "main"})
        p.files.create({"file_path": "c.txt", "branch": "topic", "content": "c\n", "commit_message": "C"})
        mr = p.mergerequests.create({"source_branch": "topic", "target_branch": "main", "title": "C"})
        self.assertEqual(mr.approvals.get().approved_by, [])

    def test_merge_request_commits(self):
        p = self.new_project()
        p.branches.create({"branch": "topic", "ref": "main"})
        p.files.create({"file_path": "c.txt", "branch": "topic", "content": "c\n", "commit_message": "C"})
        mr = p.mergerequests.create({"source_branch": "topic", "target_branch": "main", "title": "C"})
        self.assertEqual([c.title for c in mr.commits()], ["C"])
        self.assertEqual([u["username"] for u in mr.participants()], ["root"])

    # --- labels, milestones, issues ---------------------------------------------

    def test_labels_and_milestones(self):
        p = self.new_project()
        lbl = p.labels.create({"name": "bug", "color": "#ff0000", "description": "broken"})
        self.assertEqual(p.labels.get(lbl.id).description, "broken")
        self.assertEqual([x.description for x in p.labels.list()], ["broken"])
        ms = p.milestones.create({"title": "v1", "due_date": "2030-01-01"})
        self.assertEqual(p.milestones.get(ms.id).title, "v1")
        self.assertEqual([x.title for x in p.milestones.list()], ["v1"])
        ms.state_event = "close"
        ms.save()
        self.assertEqual(p.milestones.get(ms.id).state, "closed")

    @unittest.expectedFailure  # python-gitlab 3.12 saves a label with PUT /projects/:id/labels (name in the body): not served
    def test_label_save(self):
        p = self.new_project()
        lbl = p.labels.create({"name": "bug", "color": "#ff0000"})
        lbl.description = "very broken"
        lbl.save()
        self.assertEqual([x.description for x in p.labels.list()], ["very broken"])

    @unittest.expectedFailure  # DELETE /projects/:id/labels/:label_id is not served
    def test_label_delete(self):
        p = self.new_project()
        lbl = p.labels.create({"name": "bug", "color": "#ff0000"})
        p.labels.delete(lbl.id)
        self.assertEqual(p.labels.list(), [])

    def test_issue_with_labels_list(self):
        p = self.new_project()
        issue = p.issues.create({"title": "It broke", "labels": ["bug", "ui"]})
        self.assertEqual(sorted(issue.labels), ["bug", "ui"])
        self.assertEqual(issue.issue_type, "issue")
        got = p.issues.get(issue.iid)
        self.assertEqual(got.title, "It broke")
        note = got.notes.create({"body": "seen"})
        self.assertEqual(note.body, "seen")

    def test_issues_list(self):
        p = self.new_project()
        issue = p.issues.create({"title": "listed", "labels": ["bug"]})
        other = p.issues.create({"title": "other"})
        self.assertEqual([x.iid for x in p.issues.list()], [other.iid, issue.iid])
        self.assertEqual([x.iid for x in p.issues.list(labels=["bug"])], [issue.iid])
        self.assertEqual([x.iid for x in p.issues.list(search="list", order_by="title", sort="asc")], [issue.iid])

    def test_issue_edit(self):
        p = self.new_project()
        issue = p.issues.create({"title": "listed", "labels": ["bug"]})
        other = p.issues.create({"title": "other"})
        issue.title = "renamed"
        issue.labels = ["bug", "ui"]
        issue.save()
        got = p.issues.get(issue.iid)
        self.assertEqual(got.title, "renamed")
        self.assertEqual(sorted(got.labels), ["bug", "ui"])
        got.state_event = "close"
        got.save()
        self.assertEqual(p.issues.get(issue.iid).state, "closed")
        self.assertEqual([x.iid for x in p.issues.list(state="opened")], [other.iid])

    # --- todos, topics, runners, jobs -------------------------------------------

    def test_todos(self):
        p = self.new_project()
        u = self.new_user()
        p.members.create({"user_id": u.id, "access_level": 30})
        tok = self.gl.http_post("/users/%d/personal_access_tokens" % u.id, post_data={"name": "py", "scopes": ["api"]})
        as_user = self.ref.client(tok["token"])
        p.branches.create({"branch": "todo", "ref": "main"})
        p.files.create({"file_path": "t.txt", "branch": "todo", "content": "t\n", "commit_message": "t"})
        p.mergerequests.create({"source_branch": "todo", "target_branch": "main", "title": "Needs you", "assignee_id": u.id})
        todos = as_user.todos.list()
        self.assertEqual([t.target["title"] for t in todos], ["Needs you"])
        todos[0].mark_as_done()
        self.assertEqual(as_user.todos.list(), [])

    def test_topics(self):
        name = self.unique("topic")
        t = self.gl.topics.create({"name": name, "title": name.title()})
        self.assertEqual(self.gl.topics.get(t.id).name, name)
        self.assertIn(t.id, [x.id for x in self.gl.topics.list(search=name)])
        t.description = "described"
        t.save()
        self.assertEqual(self.gl.topics.get(t.id).description, "described")
        p = self.new_project(topics=[name])
        self.assertEqual(self.gl.projects.get(p.id).topics, [name])
        self.gl.topics.delete(t.id)

    def test_runners_and_jobs(self):
        p = self.new_project()
        p.files.create({"file_path": ".gitlab-ci.yml", "branch": "main", "content": "test:\n  script: [\"true\"]\n", "commit_message": "CI"})
        # python-gitlab 3.12 has no manager for POST /user/runners (newer ones do).
        r = self.gl.runners.get(self.gl.http_post("/user/runners", post_data={"runner_type": "project_type", "project_id": p.id, "description": "py"})["id"])
        self.assertIn(r.id, [x.id for x in self.gl.runners.list()])
        self.assertIn(r.id, [x.id for x in self.gl.runners.all(get_all=True)])
        self.assertEqual(self.gl.runners.get(r.id).description, "py")
        self.assertIn(r.id, [x.id for x in p.runners.list()])
        self.gl.http_post("/projects/%d/pipeline" % p.id, post_data={"ref": "main"})
        jobs = p.jobs.list(get_all=True)
        self.assertEqual([(j.name, j.status) for j in jobs], [("test", "pending")])
        self.assertEqual(p.jobs.get(jobs[0].id).name, "test")

    def test_pipelines_list(self):
        p = self.new_project()
        p.files.create({"file_path": ".gitlab-ci.yml", "branch": "main", "content": "test:\n  script: [\"true\"]\n", "commit_message": "CI"})
        pl = p.pipelines.create({"ref": "main"})
        self.assertEqual([x.id for x in p.pipelines.list()], [pl.id])
        got = p.pipelines.get(pl.id)
        self.assertEqual((got.status, got.ref, got.source), ("pending", "main", "api"))
        self.assertEqual([j.name for j in got.jobs.list()], ["test"])
        self.assertEqual(p.pipelines.list(status="success"), [])
        self.assertEqual(p.commits.get("main").last_pipeline["id"], pl.id)

    def test_commit_statuses(self):
        p = self.new_project()
        c = p.commits.get("main")
        st = c.statuses.create({"state": "running", "name": "ci/ext", "target_url": "https://ci.example.com/1"})
        self.assertEqual((st.status, st.ref), ("running", "main"))
        # Running twice is a transition the platform's state machine refuses.
        e = self.assert_refused(400, c.statuses.create, {"state": "running", "name": "ci/ext"})
        self.assertIn("Cannot transition status via :run from :running", str(e.error_message))
        c.statuses.create({"state": "success", "name": "ci/ext"})
        self.assertEqual([(s.name, s.status) for s in c.statuses.list()], [("ci/ext", "success")])
        self.assertEqual(p.commits.get("main").status, "success")
        self.assertEqual(p.pipelines.get(st.pipeline_id).source, "external")

    def test_tree_compare_branch_delete_note_edit_subgroups(self):
        p = self.new_project()
        p.files.create({"file_path": "dir/a.txt", "branch": "main", "content": "a\n", "commit_message": "A"})
        self.assertEqual([(e["path"], e["type"]) for e in p.repository_tree()], [("dir", "tree"), ("README.md", "blob")])
        self.assertEqual([e["path"] for e in p.repository_tree(path="dir")], ["dir/a.txt"])
        self.assertEqual([e["path"] for e in p.repository_tree(recursive=True, get_all=True)], ["dir", "README.md", "dir/a.txt"])
        cmp = p.repository_compare("main~1", "main")
        self.assertEqual([c["title"] for c in cmp["commits"]], ["A"])
        self.assertEqual([d["new_path"] for d in cmp["diffs"]], ["dir/a.txt"])
        p.branches.create({"branch": "gone", "ref": "main"})
        p.branches.delete("gone")
        self.assertEqual([b.name for b in p.branches.list()], ["main"])
        # The platform refuses with its pre-receive check, as 400 (docs/tools.md).
        self.assert_refused(400, p.branches.delete, "main")
        issue = p.issues.create({"title": "edited"})
        note = issue.notes.create({"body": "first"})
        note.body = "second"
        note.save()
        self.assertEqual(note.body, "second")  # as the server answered the edit
        top = self.gl.groups.create({"name": self.unique("top"), "path": self.unique("top")})
        sub = self.gl.groups.create({"name": "sub", "path": self.unique("sub"), "parent_id": top.id})
        self.assertEqual([g.id for g in top.subgroups.list()], [sub.id])

    # --- errors ----------------------------------------------------------------

    def test_errors(self):
        self.assert_refused(404, self.gl.projects.get, 999999)
        e = self.assert_refused(400, self.gl.projects.create, {})
        self.assertIn("name", str(e.error_message))
        self.assert_refused(401, self.ref.client("glpat-wrong").auth)

    # --- the CLI -------------------------------------------------------------------

    def cli(self, *args):
        cfg = os.path.join(self.cfgdir, "python-gitlab.cfg")
        out = subprocess.run(cli_command() + ["-c", cfg] + list(args), capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, "%s\n%s%s" % (" ".join(args), out.stdout, out.stderr))
        return out.stdout

    def test_cli(self):
        self.cfgdir = tempfile.mkdtemp(prefix="v4cert-py-cli-")
        self.addCleanup(shutil.rmtree, self.cfgdir, True)
        with open(os.path.join(self.cfgdir, "python-gitlab.cfg"), "w") as f:
            f.write("[global]\ndefault = ref\nssl_verify = false\ntimeout = 30\n\n[ref]\nurl = %s\nprivate_token = %s\napi_version = 4\n" % (self.ref.base, ROOT_TOKEN))
        p = self.new_project()
        self.assertIn("path_with_namespace: %s" % p.path_with_namespace, self.cli("project", "list", "--search", p.name))
        self.assertIn('"name": "%s"' % p.name, self.cli("-o", "json", "project", "get", "--id", str(p.id)))
        # The CLI sends its --all flag's default as all=False, which Grape coerces.
        out = self.cli("-o", "json", "project-commit", "list", "--project-id", str(p.id))
        self.assertIn('"title": "Initial commit"', out)
        out = self.cli("-o", "json", "project-commit", "list", "--project-id", str(p.id), "--get-all")
        self.assertIn('"title": "Initial commit"', out)
        self.cli("project-branch", "create", "--project-id", str(p.id), "--branch", "cli", "--ref", "main")
        self.assertIn("name: cli", self.cli("project-branch", "list", "--project-id", str(p.id)))
        self.cli("project-file", "create", "--project-id", str(p.id), "--file-path", "cli.txt", "--branch", "main",
                 "--content", "from the CLI", "--commit-message", "CLI file")
        self.assertEqual(p.files.raw("cli.txt", ref="main"), b"from the CLI")
        self.assertIn("username: root", self.cli("current-user", "get"))


if __name__ == "__main__":
    unittest.main()
