// Starts the v4cert reference for one test file of the JavaScript client
// (@gitbeaker/rest): the server as ../serve.mjs starts it for every Node test,
// with gitbeaker clients pointed at it.

import { Gitlab } from '@gitbeaker/rest';
import { startReference as startServer } from '../serve.mjs';

export const rootToken = 'glpat-js-client-root';

// startReference serves a world with root alone (--seed none) and answers
// {base, root, client(token), stop()}. V4CERT_JS_LOG=1 copies the server's
// request log to stderr, for finding which request a failing call sent.
export async function startReference() {
  const server = await startServer({ token: rootToken, logVar: 'V4CERT_JS_LOG', tmpPrefix: 'v4cert-js-' });
  // client(token) sends PRIVATE-TOKEN; client(undefined, {oauthToken}) a bearer token.
  const client = (token, options = {}) => new Gitlab({ host: server.base, ...(token === undefined ? {} : { token }), ...options });
  return { base: server.base, root: client(rootToken), client, stop: server.stop };
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
