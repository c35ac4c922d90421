/**
 * `authkoa/verify` as a Shared Signals receiver (issue #49), in this process against SETs jose signs with a key a
 * JWKS server publishes: the push path (RFC 8935 answers), what each CAEP event refuses and for how long, the poll
 * loop through an outage of the app (one event and one warning, tokens not known revoked accepted meanwhile, then
 * restored), close(), and the option's errors.
 */
import test, { type ExecutionContext } from 'ava';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import Koa from 'koa';
import { verifier, type VerifierEvent, type VerifierOptions } from '../../lib/verify/index.js';
import { manualClock, serve } from '../helpers/http.js';
import { keyOf, keyServer, mint, outcome, type Key } from '../verify/fixtures/jwks.js';
import { CAEP, CREDENTIAL_CHANGE, KEPT_SID, SESSION_REVOKED } from './fixtures.js';

const CREDENTIAL = 'receiver-credential-0123456789abcdefghij';
const ISS = 'https://app.example';
const AUD = 'orders-api';

interface SetInput {
  event?: string;
  fields?: Record<string, unknown>;
  sub_id?: Record<string, unknown>;
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  time?: number;
}

let n = 0;
/** A SET as the app makes one, signed by jose with `key`; every part can be overridden. */
function makeSet(key: Key, s: SetInput = {}): Promise<string> {
  const time = s.time ?? Date.now();
  const payload = {
    iss: ISS,
    jti: `jti-${++n}`,
    iat: Math.floor(time / 1000),
    aud: AUD,
    sub_id: s.sub_id ?? { format: 'complex', user: { format: 'opaque', id: 'direct_alice' } },
    events: { [s.event ?? SESSION_REVOKED]: { ...s.fields, event_timestamp: time / 1000 } },
    ...s.claims,
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'secevent+jwt', ...s.header })
    .sign(key.privateKey);
}

const session = (sid: string, user = 'direct_alice') => ({
  format: 'complex',
  session: { format: 'opaque', id: sid },
  user: { format: 'opaque', id: user },
});

/** A Koa service behind a verifier with `events: { push: '/ssf/events' }`; push(set) POSTs one. */
async function pushService(t: ExecutionContext, more: Partial<VerifierOptions> = {}) {
  const key = await keyOf();
  const keys = await keyServer(t, [key.jwk]);
  const clock = manualClock(Date.now());
  const auth = verifier({
    jwks: keys.url,
    issuer: ISS,
    audiences: ['api'],
    clock,
    events: { push: '/ssf/events', credential: CREDENTIAL, audience: AUD, tokenLifetime: '10m' },
    ...more,
  });
  t.teardown(() => auth.close());
  const app = new Koa();
  app.use(auth);
  app.use((ctx) => (ctx.body = { user: ctx.state.user }));
  const served = await serve(app.callback());
  t.teardown(() => served.close());
  const push = async (set: string, credential = CREDENTIAL, type = 'application/secevent+jwt') => {
    const res = await fetch(`${served.url}/ssf/events`, {
      method: 'POST',
      headers: { 'content-type': type, authorization: `Bearer ${credential}`, accept: 'application/json' },
      body: set,
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as { err?: string }) };
  };
  return { key, auth, clock, push, url: served.url };
}

test('the push path answers as RFC 8935 says: 202 for a SET taken, 401 without the credential, 400 and its err for a bad SET, 503 for a key not (yet) in the set', async (t) => {
  const { key, push } = await pushService(t);
  const other = await keyOf();
  t.deepEqual(await push(await makeSet(key)), { status: 202, body: undefined });
  t.is((await push(await makeSet(key), 'x'.repeat(40))).status, 401);
  t.is((await push(await makeSet(key), `${CREDENTIAL}x`)).body?.err, 'authentication_failed');
  const bad: Array<[string, string]> = [
    [await makeSet(key, { header: { typ: 'JWT' } }), 'invalid_request'],
    [await makeSet(key, { header: { typ: undefined } }), 'invalid_request'],
    [await makeSet(key, { claims: { iss: 'https://elsewhere.example' } }), 'invalid_issuer'],
    [await makeSet(key, { claims: { aud: 'billing' } }), 'invalid_audience'],
    [await makeSet({ ...other, kid: key.kid }), 'invalid_key'],
    [await makeSet(key, { claims: { sub: 'direct_alice' } }), 'invalid_request'],
    [await makeSet(key, { claims: { exp: Math.floor(Date.now() / 1000) + 60 } }), 'invalid_request'],
    ['not.a.set', 'invalid_request'],
  ];
  for (const [set, err] of bad) t.like(await push(set), { status: 400, body: { err } }, err);
  t.like(
    await push(await makeSet(other)),
    { status: 503, body: { err: 'temporarily_unavailable' } },
    'a key the set does not have (yet): the app tries again later, it does not bury the SET',
  );
  t.like(await push(await makeSet(key), CREDENTIAL, 'application/json'), {
    status: 400,
    body: { err: 'invalid_request' },
  });
  const session = await mint(key, { iss: ISS, aud: 'api' });
  t.like(await push(session), { status: 400, body: { err: 'invalid_request' } }, 'a session token is no SET');
});

test('session-revoked of a session refuses its tokens from its arrival; of a user, the tokens issued before it but the kept session; credential-change refuses nothing by itself', async (t) => {
  const { key, auth, clock, push } = await pushService(t);
  const token = (sid: string, user = 'direct_alice', issued = clock()) =>
    mint(key, { iss: ISS, aud: 'api', sid, iat_ms: issued, user: { name: user, id: user, picture: '' } }, issued);
  const signals: VerifierEvent<'signal'>[] = [];
  auth.on('signal', (e) => signals.push(e));
  const [s1, s2] = [await token('s1'), await token('s2')];
  t.is(await outcome(auth, s1), 'accepted');
  t.is((await push(await makeSet(key, { sub_id: session('s1'), time: clock() }))).status, 202);
  t.is(await outcome(auth, s1), 'session_revoked');
  t.is(await outcome(auth, s2), 'accepted', 'another session of the user');
  t.like(signals[0], { type: 'signal', event: 'session-revoked', sid: 's1', userId: 'direct_alice' });

  clock.advance(1000);
  const cutoff = clock();
  const before = await token('s3', 'direct_alice', cutoff - 1);
  await push(await makeSet(key, { time: cutoff }));
  t.is(await outcome(auth, before), 'session_revoked', "a user's token from before");
  t.is(await outcome(auth, await token('s4', 'direct_alice', cutoff)), 'accepted', 'from the moment of the event on');
  t.is(await outcome(auth, await token('s5', 'direct_bob', cutoff - 1)), 'accepted', 'another user');

  // "Everyone else": the session the app kept is named, and goes on here too.
  clock.advance(1000);
  const [kept, other] = [await token('k1', 'direct_frank'), await token('k2', 'direct_frank')];
  clock.advance(1);
  await push(
    await makeSet(key, {
      sub_id: { format: 'complex', user: { format: 'opaque', id: 'direct_frank' } },
      fields: { [KEPT_SID]: 'k1' },
      time: clock(),
    }),
  );
  t.is(await outcome(auth, other), 'session_revoked', 'every other session of the user');
  t.is(await outcome(auth, kept), 'accepted', 'the session the app kept');

  const change = (fields: Record<string, string>, user: string) =>
    makeSet(key, {
      event: CREDENTIAL_CHANGE,
      fields,
      sub_id: { format: 'complex', user: { format: 'opaque', id: user } },
      time: clock(),
    });
  const [carol, dave, erin] = [
    await token('c', 'direct_carol', clock() - 1),
    await token('d', 'direct_dave', clock() - 1),
    await token('e', 'direct_erin', clock() - 1),
  ];
  await push(await change({ credential_type: 'password', change_type: 'update' }, 'direct_carol'));
  await push(await change({ credential_type: 'fido2-platform', change_type: 'create' }, 'direct_dave'));
  await push(await change({ credential_type: 'authkoa-personal-token', change_type: 'revoke' }, 'direct_erin'));
  // The app sends session-revoked for the sessions a credential change ends; the change itself refuses nothing.
  t.is(await outcome(auth, carol), 'accepted', 'a password changed: its session-revoked does the refusing');
  t.is(await outcome(auth, dave), 'accepted', 'a credential added takes nothing away');
  t.is(await outcome(auth, erin), 'accepted', 'a personal token is no session token');
  t.is((await push(await makeSet(key, { event: `${CAEP}assurance-level-change`, time: clock() }))).status, 202);
  t.is(auth.events!.revoked, 3, 'held: a session, two users; the other events are taken and told');
});

test('a revocation is kept for tokenLifetime and then dropped: the set holds what one token lifetime revoked', async (t) => {
  const { key, auth, clock, push } = await pushService(t);
  for (let i = 0; i < 50; i++) await push(await makeSet(key, { sub_id: session(`s${i}`), time: clock() }));
  t.is(auth.events!.revoked, 50);
  clock.advance(10 * 60_000 - 1);
  await push(await makeSet(key, { sub_id: session('late'), time: clock() }));
  t.is(auth.events!.revoked, 51, 'still within the lifetime');
  clock.advance(1);
  await push(await makeSet(key, { sub_id: session('later'), time: clock() }));
  t.is(auth.events!.revoked, 2, 'the first fifty are past any token they could refuse');
});

/** A poll endpoint the test controls: `down` answers 503; else it hands out `queue` until acknowledged. */
async function pollEndpoint(t: ExecutionContext) {
  const state = { down: false, queue: new Map<string, string>(), acks: [] as string[], polls: 0, auth: [] as string[] };
  const served = await serve((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      state.polls++;
      state.auth.push(req.headers.authorization ?? '');
      if (state.down) return void res.writeHead(503).end();
      const ask = JSON.parse(body) as { ack: string[] };
      for (const jti of ask.ack) state.queue.delete(jti);
      state.acks.push(...ask.ack);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ sets: Object.fromEntries(state.queue), moreAvailable: false }));
    });
  });
  t.teardown(() => served.close());
  return Object.assign(state, { url: `${served.url}/auth/ssf/poll` });
}

test('polling through an outage of the app: one unavailable event and one warning, tokens not known revoked accepted meanwhile; back up, restored and the SETs arrive', async (t) => {
  const key = await keyOf();
  const keys = await keyServer(t, [key.jwk]);
  const app = await pollEndpoint(t);
  const clock = manualClock(Date.now());
  const warnings: string[] = [];
  const auth = verifier({
    jwks: keys.url,
    issuer: ISS,
    audiences: [AUD],
    clock,
    logger: { warn: (m) => warnings.push(m), info: () => {} },
    events: { poll: app.url, credential: CREDENTIAL, interval: '1h' },
  });
  t.teardown(() => auth.close());
  const events: string[] = [];
  for (const type of ['unavailable', 'restored', 'signal'] as const) auth.on(type, (e) => events.push(e.type));
  const tok = (sid: string) => mint(key, { iss: ISS, aud: AUD, sid, iat_ms: clock() }, clock());
  const [a, b] = [await tok('a'), await tok('b')];
  app.queue.set('j1', await makeSet(key, { sub_id: session('a'), claims: { jti: 'j1' } }));
  t.false(await auth.events!.poll());
  t.is(await outcome(auth, a), 'session_revoked');
  t.is(app.auth.at(-1), `Bearer ${CREDENTIAL}`);

  app.down = true;
  for (let i = 0; i < 3; i++) await t.throwsAsync(auth.events!.poll());
  t.false(auth.events!.reachable);
  t.deepEqual(events, ['signal', 'unavailable'], 'one event for the outage');
  t.is(warnings.length, 1, 'one warning for the outage');
  t.regex(warnings[0]!, /cannot be polled .*503.*accepted until they expire/);
  t.is(await outcome(auth, b), 'accepted', 'not known revoked: accepted, as without events');
  t.is(await outcome(auth, a), 'session_revoked', 'what arrived before stays refused');

  app.queue.set('j2', await makeSet(key, { sub_id: session('b'), claims: { jti: 'j2' } }));
  app.down = false;
  clock.advance(5_000);
  await auth.events!.poll();
  t.true(auth.events!.reachable);
  t.deepEqual(events, ['signal', 'unavailable', 'restored', 'signal']);
  t.is(await outcome(auth, b), 'session_revoked');
  await auth.events!.poll();
  t.deepEqual(app.acks, ['j1', 'j2'], 'each SET acknowledged by the next poll (j1 once: before the outage)');
  t.is(app.queue.size, 0);
});

test('close() stops the polling; the poll timer never keeps a process alive', async (t) => {
  const app = await pollEndpoint(t);
  const key = await keyOf();
  const auth = verifier({
    jwks: { keys: [key.jwk] },
    issuer: ISS,
    audiences: [AUD],
    events: { poll: app.url, credential: CREDENTIAL, interval: 20 },
  });
  for (const end = Date.now() + 5000; app.polls < 3 && Date.now() < end;) await new Promise((r) => setTimeout(r, 10));
  t.true(app.polls >= 3, 'it polls every interval');
  await auth.close();
  const after = app.polls;
  await new Promise((r) => setTimeout(r, 100));
  t.is(app.polls, after, 'no poll after close()');

  const script = `import { verifier } from './lib/verify/index.ts';
    verifier({ jwks: ${JSON.stringify({ keys: [key.jwk] })}, audiences: ['${AUD}'],
      events: { poll: '${app.url}', credential: '${CREDENTIAL}', interval: '1s' } });`;
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const child = spawn(process.execPath, ['--import=tsx', '--input-type=module', '-e', script], { cwd: root });
  const started = Date.now();
  const [code] = (await once(child, 'exit')) as [number];
  t.is(code, 0);
  t.true(Date.now() - started < 15_000, 'the process ended on its own');
});

test('events options: each mistake is a TypeError naming verifier: events.<field>', (t) => {
  const jwks = 'https://app.example/auth/.well-known/jwks.json';
  const cases: Array<[unknown, RegExp]> = [
    [{ credential: CREDENTIAL }, /one of poll .* or push/],
    [{ poll: 'ftp://x', credential: CREDENTIAL }, /events\.poll must be an http\(s\) URL/],
    [{ push: 'ssf/events', credential: CREDENTIAL }, /events\.push must be a path/],
    [{ push: '/ssf/events', credential: 'short' }, /events\.credential must be/],
    [{ push: '/ssf/events', credential: CREDENTIAL, intervall: 1 }, /unknown option "events\.intervall"/],
    [{ push: '/ssf/events', credential: CREDENTIAL, interval: 'soon' }, /events\.interval must be/],
  ];
  for (const [events, message] of cases)
    t.throws(() => verifier({ jwks, audiences: [AUD], events } as VerifierOptions), { instanceOf: TypeError, message });
  t.throws(() => verifier({ jwks, audiences: ['a', 'b'], events: { push: '/e', credential: CREDENTIAL } }), {
    instanceOf: TypeError,
    message: /events\.audience must be/,
  });
  t.throws(() => verifier({ jwks }).on('signal', () => {}), { instanceOf: TypeError, message: /no events option/ });
});
