// Starts the v4cert reference as its own process for the Node tests: the
// tools' (reference/clients/renovate, reference/clients/semantic-release)
// directly, the JavaScript client's (reference/clients/js/reference.mjs) with
// gitbeaker on top. It runs the way a tool's CI job would: `v4cert serve` on a
// free loopback port with a fixed administrator token, the address read from
// the banner it prints. No dependency of its own: the tools' tests seed their
// world through plain fetch, so what the tools send is all that is under test.
//
// The binary is $V4CERT_BIN when set (the make targets pass bin/v4cert);
// otherwise it is built from this checkout with `go build` into a temporary
// directory that is removed when the server stops. V4CERT_TOOLS_LOG=1 copies
// the server's request log to stderr.

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const listening = /listening on (http:\/\/\S+)/;

export const rootToken = 'glpat-tools-root';

// startReference serves a world with root alone (--seed none) and answers
// {base, token, api(method, path, body, token), ok(...), log(), stop()}; log()
// is what the server printed (its request log when the log variable is set).
// Options: token (the administrator's), logVar (the environment variable that
// turns the request log on), tmpPrefix (the build directory's name).
export async function startReference({ token = rootToken, logVar = 'V4CERT_TOOLS_LOG', tmpPrefix = 'v4cert-tools-' } = {}) {
  let bin = process.env.V4CERT_BIN;
  let built;
  if (!bin) {
    built = mkdtempSync(join(tmpdir(), tmpPrefix));
    bin = join(built, 'v4cert');
    execFileSync('go', ['build', '-o', bin, './cmd/v4cert'], { cwd: repoRoot, stdio: 'inherit' });
  }
  const args = ['serve', '--addr', '127.0.0.1:0', '--seed', 'none', '--root-token', token];
  const verbose = !!process.env[logVar];
  if (verbose) args.push('--log', 'requests');
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', verbose ? 'inherit' : 'pipe'] });
  let output = '';
  const exited = once(child, 'exit');
  const base = await new Promise((resolveBase, reject) => {
    const onData = (chunk) => {
      output += chunk;
      const m = listening.exec(output);
      if (m) {
        child.stdout.off('data', onData);
        resolveBase(m[1]);
      }
    };
    child.stdout.setEncoding('utf8').on('data', onData);
    child.stderr?.setEncoding('utf8').on('data', (chunk) => { output += chunk; });
    exited.then(([code]) => reject(new Error(`v4cert serve exited (${code}) before listening:\n${output}`)));
  });
  child.stdout.resume(); // keep draining the banner so the pipe never fills

  // api sends one request to /api/v4 and answers {status, body, headers};
  // a status other than 2xx is the caller's to judge.
  async function api(method, path, body, as = token) {
    const res = await fetch(`${base}/api/v4${path}`, {
      method,
      headers: { 'PRIVATE-TOKEN': as, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON: keep the text */ }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  return {
    base,
    token,
    api,
    // ok is api that fails on anything but 2xx, for seeding.
    async ok(method, path, body, token) {
      const r = await api(method, path, body, token);
      if (r.status < 200 || r.status > 299) {
        throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
      }
      return r.body;
    },
    log: () => output,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      if (built) rmSync(built, { recursive: true, force: true });
    },
  };
}
