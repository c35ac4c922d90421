/**
 * The Shared Signals transmitter (issue #49) over real HTTP, the app in this process on a clock by hand: its
 * configuration document and the receivers' streams (SSF 1.0), the SETs a poll receiver gets for ended sessions and
 * a password change (CAEP 1.0), each verified by jose against the app's key set, the credential on every route,
 * a push retried after the receiver was down, and the option's start-up errors.
 */
import test from 'ava';
import { authKoa, type AuthKoaOptions, type SsfAdmin } from '../../lib/index.js';
import { serve } from '../helpers/http.js';
import { pemKey, signingWith } from '../verify/fixtures.js';
import {
  AUDIT_CREDENTIAL,
  CREDENTIAL_CHANGE,
  PASSWORD,
  POLL_CREDENTIAL,
  PUSH_CREDENTIAL,
  SECRET,
  SESSION_REVOKED,
  poll,
  pollUntil,
  startSsfApp,
  verifiedSets,
} from './fixtures.js';

const POLLER = { id: 'orders-api', credential: POLL_CREDENTIAL, poll: true };
const PUSH = 'urn:ietf:rfc:8935';
const POLL = 'urn:ietf:rfc:8936';

test('the configuration document has what SSF 1.0 §7.1 asks, under /auth and by the one-line root route at the site root; jwks_uri serves the key set', async (t) => {
  const app = await startSsfApp(t, [POLLER]);
  const under = await fetch(`${app.url}/auth/.well-known/ssf-configuration`);
  const root = await fetch(`${app.url}/.well-known/ssf-configuration`);
  t.is(under.status, 200);
  t.regex(under.headers.get('content-type')!, /^application\/json/);
  const doc = (await under.json()) as Record<string, any>;
  t.deepEqual(await root.json(), doc, 'the same document at the site root');
  t.like(doc, {
    spec_version: '1_0',
    issuer: 'authkoa',
    jwks_uri: `${app.url}/auth/.well-known/jwks.json`,
    configuration_endpoint: `${app.url}/auth/ssf/stream`,
    delivery_methods_supported: [PUSH, POLL],
    authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6750' }],
  });
  for (const field of ['issuer', 'jwks_uri', 'delivery_methods_supported', 'configuration_endpoint'])
    t.truthy(doc[field], `${field} is there`);
  const keys = (await (await fetch(doc.jwks_uri)).json()) as { keys: Array<{ kty: string }> };
  t.is(keys.keys[0]!.kty, 'OKP');
});

test('each receiver reads its own stream with its credential; a wrong or missing one is 401 JSON and nothing else, on every SSF route', async (t) => {
  const push = { id: 'billing', credential: PUSH_CREDENTIAL, push: 'http://127.0.0.1:9/ssf', allowPrivate: true };
  const app = await startSsfApp(t, [POLLER, push]);
  const stream = (credential?: string, query = '') =>
    fetch(`${app.url}/auth/ssf/stream${query}`, {
      headers: credential ? { authorization: `Bearer ${credential}` } : {},
    });
  const [polled] = (await (await stream(POLL_CREDENTIAL)).json()) as Array<Record<string, any>>;
  t.like(polled, {
    iss: 'authkoa',
    aud: 'orders-api',
    delivery: { method: POLL, endpoint_url: `${app.url}/auth/ssf/poll` },
    events_delivered: [SESSION_REVOKED, CREDENTIAL_CHANGE],
  });
  const one = await stream(POLL_CREDENTIAL, `?stream_id=${polled!.stream_id}`);
  t.deepEqual(await one.json(), polled, 'by its stream_id');
  const pushed = (await (await stream(PUSH_CREDENTIAL)).json()) as Array<Record<string, any>>;
  t.like(pushed[0], { aud: 'billing', delivery: { method: PUSH, endpoint_url: 'http://127.0.0.1:9/ssf' } });
  t.false(JSON.stringify(pushed).includes(PUSH_CREDENTIAL), 'the credential is never echoed');
  t.is((await stream(POLL_CREDENTIAL, `?stream_id=${pushed[0]!.stream_id}`)).status, 404, "another's stream");

  await (await app.login()).c.fetch('/auth/logout');
  const wrong = 'x'.repeat(40);
  for (const [method, path] of [
    ['GET', '/auth/ssf/stream'],
    ['POST', '/auth/ssf/poll'],
    ['GET', '/auth/ssf/anything'],
    ['DELETE', '/auth/ssf/stream'],
  ] as const) {
    for (const credential of [undefined, wrong, `${POLL_CREDENTIAL}x`]) {
      const res = await fetch(`${app.url}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(credential && { authorization: `Bearer ${credential}` }) },
        ...(method === 'POST' && { body: '{}' }),
      });
      const body = (await res.json()) as Record<string, unknown>;
      t.is(res.status, 401, `${method} ${path}`);
      t.deepEqual(Object.keys(body).sort(), ['code', 'error'], 'the error and nothing else');
      t.is(body.code, 'ssf_unauthorized');
      t.is(res.headers.get('www-authenticate'), 'Bearer realm="ssf"');
    }
  }
});

test('a poll receiver gets session-revoked for a logout and for an ended session, each SET verified by jose (typ secevent+jwt); what it acknowledged is not sent again', async (t) => {
  const audit = { id: 'audit', credential: AUDIT_CREDENTIAL, poll: true };
  const app = await startSsfApp(t, [POLLER, audit]);
  const url = `${app.url}/auth/ssf/poll`;
  const a = await app.login('alice');
  const b = await app.login('alice');
  await a.c.fetch(`/auth/sessions/${b.sid}`, { method: 'DELETE', headers: a.c.xsrf() });
  await a.c.fetch('/auth/logout');
  const first = await poll(url, POLL_CREDENTIAL);
  t.is(first.status, 200);
  t.false(first.body.moreAvailable);
  const payloads = await verifiedSets(
    first.body.sets,
    `${app.url}/auth/.well-known/jwks.json`,
    'authkoa',
    'orders-api',
  );
  t.is(payloads.length, 2);
  const bySid = Object.fromEntries(payloads.map((p) => [(p.sub_id as any).session.id, p]));
  for (const s of [a, b]) {
    const p = bySid[s.sid]!;
    t.deepEqual(p.sub_id, {
      format: 'complex',
      session: { format: 'opaque', id: s.sid },
      user: { format: 'opaque', id: s.userId },
    });
    const event = (p.events as Record<string, { event_timestamp: number }>)[SESSION_REVOKED]!;
    t.is(event.event_timestamp, app.clock() / 1000);
    t.is(p.iat, Math.floor(app.clock() / 1000));
    t.is(typeof p.jti, 'string');
    t.is(p.sub, undefined);
    t.is(p.exp, undefined);
  }
  t.deepEqual(Object.keys(first.body.sets).sort(), payloads.map((p) => p.jti).sort(), 'keyed by jti');
  const again = await poll(url, POLL_CREDENTIAL, { maxEvents: 1 });
  t.is(Object.keys(again.body.sets).length, 1, 'not acknowledged: sent again, maxEvents at a time');
  t.true(again.body.moreAvailable);
  const acked = await poll(url, POLL_CREDENTIAL, { ack: Object.keys(first.body.sets) });
  t.deepEqual(acked.body, { sets: {}, moreAvailable: false }, 'acknowledged: gone');
  const other = await poll(url, AUDIT_CREDENTIAL);
  t.is(Object.keys(other.body.sets).length, 2, 'each receiver has its own SETs');
  const txns = (await verifiedSets(other.body.sets, `${app.url}/auth/.well-known/jwks.json`, 'authkoa', 'audit')).map(
    (p) => p.txn,
  );
  t.deepEqual(txns.sort(), payloads.map((p) => p.txn).sort(), "one txn per event, shared by the receivers' SETs");
});

test('a password change sends credential-change (password, update) for the user; the ended other sessions a user-wide session-revoked', async (t) => {
  const app = await startSsfApp(t, [POLLER]);
  const account = await app.auth.accounts!.create({ email: 'carol@example.com', password: PASSWORD, confirmed: true });
  const { Client } = await import('../helpers/http.js');
  const c = new Client(app.url);
  const login = await c.fetch('/auth/members/login', {
    method: 'POST',
    json: { user: 'carol@example.com', passwd: PASSWORD },
  });
  t.is(login.status, 200);
  const userId = ((await login.json()) as { id: string }).id;
  t.is(userId, `members_${account.id}`);
  const changed = await c.fetch('/auth/members/password', {
    method: 'POST',
    json: { current: PASSWORD, password: 'another horse battery' },
    headers: c.xsrf(),
  });
  t.is(changed.status, 200);
  const sets = await pollUntil(`${app.url}/auth/ssf/poll`, POLL_CREDENTIAL, (s) => Object.keys(s).length >= 2);
  const payloads = await verifiedSets(sets, `${app.url}/auth/.well-known/jwks.json`, 'authkoa', 'orders-api');
  const change = payloads.find((p) => CREDENTIAL_CHANGE in (p.events as object))!;
  t.deepEqual(change.sub_id, { format: 'complex', user: { format: 'opaque', id: userId } });
  t.deepEqual((change.events as Record<string, unknown>)[CREDENTIAL_CHANGE], {
    credential_type: 'password',
    change_type: 'update',
    initiating_entity: 'user',
    event_timestamp: app.clock() / 1000,
  });
  const revoked = payloads.find((p) => SESSION_REVOKED in (p.events as object))!;
  t.deepEqual(revoked.sub_id, { format: 'complex', user: { format: 'opaque', id: userId } });
});

test('a push to a receiver that is down is tried again: 503, then 202 with the same SET, its credential as Bearer, as application/secevent+jwt', async (t) => {
  const seen: Array<{ status: number; body: string; type?: string; auth?: string }> = [];
  const receiver = await serve((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      const status = seen.length === 0 ? 503 : 202;
      seen.push({ status, body, type: req.headers['content-type'], auth: req.headers.authorization });
      res.writeHead(status).end();
    });
  });
  t.teardown(() => receiver.close());
  const push = { id: 'billing', credential: PUSH_CREDENTIAL, push: `${receiver.url}/ssf`, allowPrivate: true };
  const app = await startSsfApp(t, [push]);
  const failed = new Promise((resolve) => app.auth.on('ssf_delivery_failed', resolve));
  await (await app.login()).c.fetch('/auth/logout');
  const until = async (n: number) => {
    for (const end = Date.now() + 10_000; seen.length < n && Date.now() < end;)
      await new Promise((resolve) => setTimeout(resolve, 20));
    t.is(seen.length, n);
  };
  await until(1);
  t.is(seen[0]!.status, 503);
  t.like(await failed, {
    receiver: 'billing',
    event: 'session-revoked',
    attempt: 1,
    reason: 'status 503',
    dead: false,
  });
  app.clock.advance(6_001); // past the first retry's delay (5 s, a fifth either way), counted from the failure
  await until(2);
  t.is(seen[1]!.body, seen[0]!.body, 'the same SET');
  t.is(seen[1]!.type, 'application/secevent+jwt');
  t.is(seen[1]!.auth, `Bearer ${PUSH_CREDENTIAL}`);
  const admin = app.auth.features.get('ssf') as SsfAdmin;
  t.deepEqual(await admin.dead(), []);
});

test('ssf options: each mistake is a start-up TypeError naming ssf.receivers[i].<field>; without signing it says so', (t) => {
  const base = {
    secret: SECRET,
    url: 'http://127.0.0.1:1',
    stateStore: 'lmdb:///tmp/never-opened',
    signing: signingWith(pemKey('EdDSA')),
    providers: [{ kind: 'direct', name: 'direct', checker: () => false }],
    logger: { info() {}, warn() {}, error() {} },
  };
  const make =
    (ssf: unknown, more: object = {}) =>
    () =>
      authKoa({ ...base, ...more, ssf } as unknown as AuthKoaOptions);
  const ok = { id: 'a', credential: POLL_CREDENTIAL, poll: true };
  const cases: Array<[unknown, RegExp]> = [
    [{ receivers: [{ ...ok, id: '' }] }, /ssf\.receivers\[0\]\.id must be/],
    [{ receivers: [ok, { ...ok, id: 'b', credential: 'short' }] }, /ssf\.receivers\[1\]\.credential must be/],
    [{ receivers: [{ id: 'a', credential: POLL_CREDENTIAL }] }, /ssf\.receivers\[0\] needs one of push/],
    [{ receivers: [{ ...ok, push: 'ftp://x' }] }, /ssf\.receivers\[0\] needs one of push/],
    [{ receivers: [{ id: 'a', credential: POLL_CREDENTIAL, push: 'ftp://x' }] }, /ssf\.receivers\[0\]\.push must be/],
    [{ receivers: [{ ...ok, pol: true }] }, /ssf\.receivers\[0\]: .*"pol".*poll/],
    [{ receivers: [ok, { ...ok, id: 'b' }] }, /a credential of its own/],
    [{ receivers: [ok, ok] }, /each id may be listed once/],
    [{ receiver: [] }, /ssf must be/],
  ];
  for (const [ssf, message] of cases) t.throws(make(ssf), { instanceOf: TypeError, message }, JSON.stringify(ssf));
  t.throws(make({ receivers: [ok] }, { signing: undefined }), {
    instanceOf: TypeError,
    message: /ssf needs the signing option/,
  });
  t.throws(make({ receivers: [ok] }, { stateStore: 'memory' }), { instanceOf: TypeError, message: /stateStore/ });
  t.throws(make({ receivers: [ok] }, { ssfx: 1 }), { instanceOf: TypeError, message: /ssfx.*ssf/ });
});
