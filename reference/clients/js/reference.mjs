// Starts the v4cert reference as its own process for one test file, the way a
// client's CI job would: `v4cert serve` on a free loopback port with a fixed
// administrator token, the address read from the banner it prints.
//
// The binary is $V4CERT_BIN when set (`make clients-js` passes bin/v4cert);
// otherwise it is built from this checkout with `go build` into a temporary
// directory that is removed when the server stops.

import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { Gitlab } from '@gitbeaker/rest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const listening = /listening on (http:\/\/\S+)/;

export const rootToken = 'glpat-js-client-root';

// startReference serves a world with root alone (--seed none) and answers
// {base, root, client(token), stop()}. V4CERT_JS_LOG=1 copies the server's
// request log to stderr, for finding which request a failing call sent.
export async function startReference() {
  let bin = process.env.V4CERT_BIN;
  let built;
  if (!bin) {
    built = mkdtempSync(join(tmpdir(), 'v4cert-js-'));
    bin = join(built, 'v4cert');
    execFileSync('go', ['build', '-o', bin, './cmd/v4cert'], { cwd: repoRoot, stdio: 'inherit' });
  }
  const args = ['serve', '--addr', '127.0.0.1:0', '--seed', 'none', '--root-token', rootToken];
  if (process.env.V4CERT_JS_LOG) args.push('--log', 'requests');
  const child = spawn(bin, args, { stdio: ['ignore', 'pipe', process.env.V4CERT_JS_LOG ? 'inherit' : 'pipe'] });
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

  // client(token) sends PRIVATE-TOKEN; client(undefined, {oauthToken}) a bearer token.
  const client = (token, options = {}) => new Gitlab({ host: base, ...(token === undefined ? {} : { token }), ...options });
  return {
    base,
    root: client(rootToken),
    client,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      if (built) rmSync(built, { recursive: true, force: true });
    },
  };
}

// refused answers {status, message} of a call the client refused: gitbeaker
// throws GitbeakerRequestError with the Response as cause.response and the
// body's `error` or `message` as cause.description (the body itself is read by
// then). A call that succeeded fails the test.
export async function refused(promise) {
  try {
    await promise;
  } catch (err) {
    if (err?.cause?.response) return { status: err.cause.response.status, message: err.cause.description };
    throw err;
  }
  throw new Error('the call succeeded; it should have been refused');
}

// status is the status of refused(promise).
export async function status(promise) {
  return (await refused(promise)).status;
}
