/**
 * The acceptance line of issue #49's Shared Signals part, every party a `node` process of its own: the app
 * (fixtures/app-process.ts: `ssf` with four receivers, issuer its URL) and three resource servers on
 * `authkoa/verify` (fixtures/resource-server.ts): one the app pushes to, one that polls it, and one whose credential
 * the app does not hold. A revocation is refused by the first two within 2 s, timed from just before the request
 * that revoked; the third refuses the app's pushes (401) and learns nothing. The fourth receiver is this test, which
 * polls the SETs and checks each with jose against the app's key set.
 */
import test from 'ava';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { spawnTs, waitForLine } from '../helpers/cli.js';
import { Client } from '../helpers/http.js';
import { freePort } from '../helpers/ports.js';
import { suiteTempDir } from '../helpers/temp.js';
import {
  AUDIT_CREDENTIAL,
  CREDENTIAL_CHANGE,
  PASSWORD,
  POLL_CREDENTIAL,
  PUSH_CREDENTIAL,
  SESSION_REVOKED,
  poll,
  pollUntil,
  verifiedSets,
} from './fixtures.js';

const APP = fileURLToPath(new URL('./fixtures/app-process.ts', import.meta.url));
const RS = fileURLToPath(new URL('./fixtures/resource-server.ts', import.meta.url));
const WRONG_CREDENTIAL = 'not-the-apps-credential-0123456789abcdef';
const APP_SIDE_CREDENTIAL = 'legacy-receiver-credential-0123456789abcd';

const children: ChildProcess[] = [];
test.after.always(async () => {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'close');
    }),
  );
});
const dir = suiteTempDir(test, 'authkoa-ssf-app-');

/** A child's stderr, kept for a failure's message. */
function started(child: ChildProcess): ChildProcess {
  children.push(child);
  return child;
}

async function resourceServer(env: Record<string, string>): Promise<{ url: string; stderr: () => string }> {
  const child = started(spawnTs(RS, [], env));
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d));
  const line = await waitForLine(child, /^\{"port":(\d+)\}/m);
  return { url: `http://127.0.0.1:${line[1]}`, stderr: () => err };
}

const rig = (async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const common = { JWKS_URL: `${base}/auth/.well-known/jwks.json`, ISSUER: base };
  const [pushed, polling, stranger] = await Promise.all([
    resourceServer({ ...common, AUDIENCE: 'orders', CREDENTIAL: PUSH_CREDENTIAL, PUSH_PATH: '/ssf/events' }),
    resourceServer({ ...common, AUDIENCE: 'reports', CREDENTIAL: POLL_CREDENTIAL, POLL_URL: `${base}/auth/ssf/poll` }),
    resourceServer({ ...common, AUDIENCE: 'legacy', CREDENTIAL: WRONG_CREDENTIAL, PUSH_PATH: '/ssf/events' }),
  ]);
  const receivers = [
    { id: 'orders', credential: PUSH_CREDENTIAL, push: `${pushed.url}/ssf/events`, allowPrivate: true },
    { id: 'reports', credential: POLL_CREDENTIAL, poll: true },
    { id: 'legacy', credential: APP_SIDE_CREDENTIAL, push: `${stranger.url}/ssf/events`, allowPrivate: true },
    { id: 'audit', credential: AUDIT_CREDENTIAL, poll: true },
  ];
  const app = started(spawnTs(APP, [dir], { PORT: String(port), SSF_RECEIVERS: JSON.stringify(receivers) }));
  await waitForLine(app, /^listening /m);
  return { base, pushed, polling, stranger };
})();

/** The resource server's answer to `token`: `200 <name>`, or the status and code. */
async function call(rs: { url: string }, token: string): Promise<string> {
  const res = await fetch(`${rs.url}/whoami`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { user?: { name: string }; code?: string };
  return res.status === 200 ? `200 ${body.user!.name}` : `${res.status} ${body.code}`;
}

/** Asks every 20 ms until the resource server refuses `token`; the ms from `since` to that first refusal. */
async function refusedAfter(rs: { url: string }, token: string, since: number, deadlineMs = 5_000): Promise<number> {
  for (;;) {
    const answer = await call(rs, token);
    const at = performance.now();
    if (answer === '401 session_revoked') return at - since;
    if (at - since > deadlineMs) {
      const stats = await (await fetch(`${rs.url}/stats`)).text();
      throw new Error(`still "${answer}" after ${deadlineMs} ms; the resource server: ${stats}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A login through `path` with `json`: the client and its session token. */
async function login(base: string, path: string, json: object): Promise<{ c: Client; token: string; sid: string }> {
  const c = new Client(base);
  const res = await c.fetch(path, { method: 'POST', json });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  const token = c.jar.get('JWT')!;
  return {
    c,
    token,
    sid: (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid,
  };
}

test.serial(
  'an ended session: the pushed and the polling resource server refuse its token within 2 s; the other session of the user stays accepted',
  async (t) => {
    const { base, pushed, polling, stranger } = await rig;
    const a = await login(base, '/auth/direct/login', { user: 'alice', passwd: 'alice-pw' });
    const b = await login(base, '/auth/direct/login', { user: 'alice', passwd: 'alice-pw' });
    for (const rs of [pushed, polling, stranger]) t.is(await call(rs, b.token), '200 alice');
    const since = performance.now();
    const ended = await a.c.fetch(`/auth/sessions/${b.sid}`, { method: 'DELETE', headers: a.c.xsrf() });
    t.is(ended.status, 204);
    const [push, pull] = await Promise.all([
      refusedAfter(pushed, b.token, since),
      refusedAfter(polling, b.token, since),
    ]);
    t.log(`refused after ${Math.round(push)} ms (push), ${Math.round(pull)} ms (poll)`);
    t.true(push < 2000, `push: ${push} ms`);
    t.true(pull < 2000, `poll: ${pull} ms`);
    for (const rs of [pushed, polling]) t.is(await call(rs, a.token), '200 alice', 'the session that ended the other');
    t.is(await call(stranger, b.token), '200 alice', 'the stranger learned nothing');
  },
);

test.serial(
  'a resource server whose credential the app does not hold refuses its pushes with 401 and holds no revocation',
  async (t) => {
    const { base, stranger } = await rig;
    const a = await login(base, '/auth/direct/login', { user: 'dave', passwd: 'dave-pw' });
    await a.c.fetch('/auth/logout');
    const stats = async () => (await (await fetch(`${stranger.url}/stats`)).json()) as Record<string, any>;
    for (const end = Date.now() + 10_000; !((await stats()).pushed['401'] >= 1) && Date.now() < end;)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const s = await stats();
    t.true(s.pushed['401'] >= 1, JSON.stringify(s));
    t.is(s.pushed['202'], undefined, 'no push taken');
    t.is(s.revoked, 0);
    t.is(s.signals, 0);
    t.is(await call(stranger, a.token), '200 dave', 'its token is still accepted there');
  },
);

test.serial(
  "a password change: both resource servers refuse the user's other sessions within 2 s, and accept the session that made it, as the app does; a new login passes",
  async (t) => {
    const { base, pushed, polling } = await rig;
    const carol = await login(base, '/auth/members/login', { user: 'carol@example.com', passwd: PASSWORD });
    const laptop = await login(base, '/auth/members/login', { user: 'carol@example.com', passwd: PASSWORD });
    for (const rs of [pushed, polling]) t.is(await call(rs, laptop.token), '200 carol@example.com');
    const since = performance.now();
    const changed = await carol.c.fetch('/auth/members/password', {
      method: 'POST',
      json: { current: PASSWORD, password: 'another horse battery' },
      headers: carol.c.xsrf(),
    });
    t.is(changed.status, 200);
    const [push, pull] = await Promise.all([
      refusedAfter(pushed, laptop.token, since),
      refusedAfter(polling, laptop.token, since),
    ]);
    t.log(`refused after ${Math.round(push)} ms (push), ${Math.round(pull)} ms (poll)`);
    t.true(push < 2000 && pull < 2000);
    // The session that changed the password goes on in the app, and so here (the SET names it as kept).
    const mine = carol.c.jar.get('JWT')!;
    for (const rs of [pushed, polling]) t.is(await call(rs, mine), '200 carol@example.com', 'the kept session');
    const again = await login(base, '/auth/members/login', {
      user: 'carol@example.com',
      passwd: 'another horse battery',
    });
    for (const rs of [pushed, polling]) t.is(await call(rs, again.token), '200 carol@example.com');
  },
);

test.serial(
  "the SETs the audit receiver polls validate with jose against the app's key set (typ secevent+jwt, iss the app's URL); a wrong credential gets 401 and no SET",
  async (t) => {
    const { base } = await rig;
    const url = `${base}/auth/ssf/poll`;
    const wrong = await poll(url, WRONG_CREDENTIAL);
    t.is(wrong.status, 401);
    t.deepEqual(Object.keys(wrong.body).sort(), ['code', 'error']);
    const sets = await pollUntil(url, AUDIT_CREDENTIAL, (s) => Object.keys(s).length >= 1);
    const payloads = await verifiedSets(sets, `${base}/auth/.well-known/jwks.json`, base, 'audit');
    t.true(payloads.length >= 1);
    for (const p of payloads) {
      const [type] = Object.keys(p.events as object);
      t.true(type === SESSION_REVOKED || type === CREDENTIAL_CHANGE, type);
      t.is((p.sub_id as { format: string }).format, 'complex');
    }
    const doc = (await (await fetch(`${base}/.well-known/ssf-configuration`)).json()) as Record<string, any>;
    t.like(doc, { spec_version: '1_0', issuer: base, jwks_uri: `${base}/auth/.well-known/jwks.json` });
    for (const field of ['issuer', 'jwks_uri', 'delivery_methods_supported', 'configuration_endpoint'])
      t.truthy(doc[field], field);
  },
);
