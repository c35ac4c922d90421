/**
 * What authkoa's middleware itself costs per request, measured in-process with no network in the way:
 * each variant runs the real middleware on a real Koa context (built by app.createContext over node:http
 * request and response objects) and the time of a no-op middleware on the same context is subtracted.
 * On a machine where HTTP throughput moves by ±20 % between seconds, this is how a cost of a few
 * microseconds against Koa's tens becomes visible.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { calculateJwkThumbprint, SignJWT, type JWK } from 'jose';
import Koa from 'koa';
import {
  AUTH_EVENT_TYPES,
  authKoa,
  memoryStateStore,
  mintToken,
  protectedResource,
  statePersonalTokenStore,
  tokenHash,
  verifier,
} from './built.js';
import { BENCH_KEYS } from './keys.js';

export interface MiddlewareCost {
  name: string;
  /** Microseconds per request on top of a no-op middleware. */
  us: number;
}

const SECRET = 'bench-secret-0123456789abcdef0123456789';
const LOGIN_ROW = 'direct login (token, cookies, session list)';
/** Users revoked in the live revocation channel's row. */
const REVOKED = 1000;
const CHANNEL_OFF_ROW = 'auth: JWT cookie + XSRF header, revocation channel off (a store without broadcast)';
const CHANNEL_LIVE_ROW = `auth: JWT cookie + XSRF header, revocation channel live (${REVOKED} revoked)`;
const VERIFIER_ROW = 'verifier() of authkoa/verify: EdDSA session token (Bearer)';
const RESOURCE_ROW = 'protectedResource() of authkoa/verify: EdDSA access token (Bearer)';

/**
 * The two middleware of `authkoa/verify`, each on a token of the same EdDSA key, held as a JWK set (no HTTP): a
 * session token for verifier(), an RFC 9068 access token for protectedResource(). Neither caches a verified token, so
 * both rows pay a signature check per request: what sets them apart is their own work around it.
 */
async function verifyRows(app: Koa): Promise<Array<[string, () => Koa.Context, Koa.Middleware]>> {
  const privateKey = createPrivateKey(BENCH_KEYS.EdDSA);
  const publicJwk = createPublicKey(privateKey).export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(publicJwk);
  const jwks = { keys: [{ ...publicJwk, kid, alg: 'EdDSA', use: 'sig' }] };
  const now = Math.floor(Date.now() / 1000);
  const sign = (claims: object, typ: string) =>
    new SignJWT({ iat: now, exp: now + 3600, jti: 'f'.repeat(40), ...claims })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ })
      .sign(privateKey);
  const session = await sign(
    {
      iss: 'authkoa',
      aud: 'api',
      user: { name: 'bench user', id: 'bench_0123456789abcdef0123456789abcdef01234567', picture: '' },
    },
    'JWT',
  );
  const resource = 'https://api.example/mcp';
  const access = await sign(
    {
      iss: 'https://app.example',
      aud: resource,
      sub: 'bench_0123456789abcdef0123456789abcdef01234567',
      client_id: 'bench-agent',
      scope: 'tools:read tools:write',
      sid: 'grant-0123456789abcdef',
    },
    'at+jwt',
  );
  return [
    [
      VERIFIER_ROW,
      request(app, '/mcp/tools', { authorization: `Bearer ${session}` }),
      verifier({ jwks, audiences: ['api'] }),
    ],
    [
      RESOURCE_ROW,
      request(app, '/mcp/tools', { authorization: `Bearer ${access}` }),
      protectedResource({ resource, authorizationServers: ['https://app.example'], jwks }),
    ],
  ];
}

/**
 * Builds a fresh context per call, with header names and values decoded from bytes each time as node's
 * HTTP parser does: a header string reused across calls would carry its hash from the first call and
 * hide what a real request pays to look its token up.
 */
function request(app: Koa, path: string, headers: Record<string, string>) {
  const socket = new net.Socket();
  const raw = Object.entries(headers).map(([k, v]) => [Buffer.from(k), Buffer.from(v)] as const);
  return () => {
    const req = new http.IncomingMessage(socket);
    req.method = 'GET';
    req.url = path;
    const fresh: Record<string, string> = {};
    for (const [k, v] of raw) fresh[k.toString('latin1')] = v.toString('latin1');
    req.headers = fresh;
    return app.createContext(req, new http.ServerResponse(req));
  };
}

/** The same for a POST with a JSON body, pushed into the request stream as the socket would. */
export function post(app: Koa, path: string, body: string) {
  const socket = new net.Socket();
  const bytes = Buffer.from(body);
  return () => {
    const req = new http.IncomingMessage(socket);
    req.method = 'POST';
    req.url = path;
    req.headers = {
      host: '127.0.0.1:8080',
      'content-type': 'application/json',
      'content-length': String(bytes.length),
      'user-agent': 'bench',
    };
    req.push(bytes);
    req.push(null);
    return app.createContext(req, new http.ServerResponse(req));
  };
}

/**
 * Microseconds of the process's CPU time (user + system) per call, over `ms` of wall time: the time the process
 * was not running (a shared machine's other work) is not counted, as wall time would count it.
 */
async function timePerCall(make: () => Koa.Context, mw: Koa.Middleware, ms: number): Promise<number> {
  const next = async () => {};
  const end = performance.now() + ms / 5;
  while (performance.now() < end) for (let i = 0; i < 200; i++) await mw(make(), next);
  let n = 0;
  const cpu = process.cpuUsage();
  const stop = performance.now() + ms;
  while (performance.now() < stop) {
    for (let i = 0; i < 500; i++) await mw(make(), next);
    n += 500;
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / n;
}

/** Per-request cost of each middleware path, in microseconds, fastest measurement of `rounds`. */
export async function middlewareBench(ms = 1500, rounds = 3, only?: RegExp): Promise<MiddlewareCost[]> {
  const url = 'http://127.0.0.1:8080';
  // OpenTelemetry is installed here (for the tests): off in the plain rows, on (no SDK: the API's no-ops) in its own.
  const auth = authKoa({
    secret: SECRET,
    url,
    telemetry: false,
    providers: [{ kind: 'direct', name: 'bench', checker: () => true }],
  });
  const traced = authKoa({
    secret: SECRET,
    url,
    telemetry: true,
    providers: [{ kind: 'direct', name: 'bench', checker: () => true }],
  });
  const listened = authKoa({
    secret: SECRET,
    url,
    telemetry: false,
    providers: [{ kind: 'direct', name: 'bench', checker: () => true }],
  });
  for (const type of AUTH_EVENT_TYPES) listened.on(type, () => {});
  // Accounts and a password provider configured: a protected route must not pay for them.
  const withAccounts = authKoa({
    secret: SECRET,
    url,
    telemetry: false,
    allowVolatileStores: true,
    accounts: { store: 'memory://' },
    providers: [
      { kind: 'direct', name: 'bench', checker: () => true },
      { kind: 'password', name: 'local', sender: () => {} },
    ],
  });
  // Webhooks configured for every event type: a route that emits no event must pay nothing for them.
  const withWebhooks = authKoa({
    secret: SECRET,
    url,
    telemetry: false,
    allowVolatileStores: true,
    webhooks: [{ url: 'http://127.0.0.1:9/in', secret: `whsec_${'A'.repeat(43)}=`, events: ['*'], allowPrivate: true }],
    providers: [{ kind: 'direct', name: 'bench', checker: () => true }],
  });
  // The revocation channel: on by default (the memory store has a broadcast, strictRevocation is off), so the plain
  // row has it too, with nothing revoked. Here explicitly: off (a store without a broadcast: no channel, the
  // revocations read at refresh only), and live with REVOKED users in its set, each request checked against
  // it in memory. The live one's store counts its reads: a live channel reads none per request.
  const channelOff = authKoa({
    secret: SECRET,
    url,
    telemetry: false,
    stateStore: { ...memoryStateStore(), broadcast: undefined },
    providers: [{ kind: 'direct', name: 'bench', checker: () => true }],
  });
  const onStore = memoryStateStore();
  let storeReads = 0;
  const channelLive = authKoa({
    secret: SECRET,
    url,
    telemetry: false,
    stateStore: { ...onStore, get: (ns, key) => (storeReads++, onStore.get(ns, key)) },
    providers: [{ kind: 'direct', name: 'bench', checker: () => true }],
  });
  // Personal tokens: a bearer token of the same user, verified from the per-process cache after its first use.
  const stateStore = memoryStateStore();
  const withTokens = authKoa({
    secret: SECRET,
    url,
    telemetry: false,
    allowVolatileStores: true,
    stateStore,
    accounts: { store: 'memory://' },
    tokens: true,
    providers: [{ kind: 'direct', name: 'bench', checker: () => true }],
  });
  const personal = mintToken();
  await statePersonalTokenStore(stateStore).create({
    ...{ id: 'pat_bench', userId: 'bench_0123456789abcdef0123456789abcdef01234567', name: 'bench', scopes: [] },
    user: { name: 'bench user', id: 'bench_0123456789abcdef0123456789abcdef01234567', picture: '' },
    ...{ created: Date.now(), hash: tokenHash(personal) },
  });
  await Promise.all([
    auth.ready,
    traced.ready,
    listened.ready,
    withAccounts.ready,
    withTokens.ready,
    withWebhooks.ready,
    channelOff.ready,
    channelLive.ready,
  ]);
  for (let i = 0; i < REVOKED; i++) await channelLive.revokeSessions(`bench_revoked${i}`);
  const basic = authKoa({
    secret: SECRET,
    url,
    telemetry: false,
    providers: [{ kind: 'direct', name: 'bench', checker: () => true }],
    basicAuthChecker: (user, passwd) => ({
      ok: passwd === 'pw',
      user: { id: `basic_${user}`, name: user, picture: '' },
    }),
  });
  const token = await auth.tokens.create({
    aud: '',
    jti: 'a'.repeat(40),
    user: { name: 'bench user', id: 'bench_0123456789abcdef0123456789abcdef01234567', picture: '' },
    auth_provider: { name: 'bench' },
  });
  const app = new Koa();
  // The shape of authkoa's own middleware: a plain function returning next()'s promise.
  const noop: Koa.Middleware = (_ctx, next) => next();
  const variants: Array<[string, () => Koa.Context, Koa.Middleware]> = [
    [
      'auth: JWT cookie + XSRF header',
      request(app, '/private', { cookie: `JWT=${token}`, 'x-xsrf-token': 'a'.repeat(40) }),
      auth.middleware.auth,
    ],
    [
      CHANNEL_OFF_ROW,
      request(app, '/private', { cookie: `JWT=${token}`, 'x-xsrf-token': 'a'.repeat(40) }),
      channelOff.middleware.auth,
    ],
    [
      CHANNEL_LIVE_ROW,
      request(app, '/private', { cookie: `JWT=${token}`, 'x-xsrf-token': 'a'.repeat(40) }),
      channelLive.middleware.auth,
    ],
    ['auth: X-JWT header', request(app, '/private', { 'x-jwt': token }), auth.middleware.auth],
    [
      'auth: JWT cookie + XSRF header, accounts configured',
      request(app, '/private', { cookie: `JWT=${token}`, 'x-xsrf-token': 'a'.repeat(40) }),
      withAccounts.middleware.auth,
    ],
    [
      'auth: JWT cookie + XSRF header, OpenTelemetry API on, no SDK',
      request(app, '/private', { cookie: `JWT=${token}`, 'x-xsrf-token': 'a'.repeat(40) }),
      traced.middleware.auth,
    ],
    [
      'auth: JWT cookie + XSRF header, every event type subscribed',
      request(app, '/private', { cookie: `JWT=${token}`, 'x-xsrf-token': 'a'.repeat(40) }),
      listened.middleware.auth,
    ],
    [
      'auth: JWT cookie + XSRF header, webhooks configured',
      request(app, '/private', { cookie: `JWT=${token}`, 'x-xsrf-token': 'a'.repeat(40) }),
      withWebhooks.middleware.auth,
    ],
    [
      'auth: personal access token (Bearer, cache hit)',
      request(app, '/private', { authorization: `Bearer ${personal}` }),
      withTokens.middleware.auth,
    ],
    [
      'auth: basic auth via checker',
      request(app, '/private', { authorization: `Basic ${Buffer.from('u:pw').toString('base64')}` }),
      basic.middleware.auth,
    ],
    ['app.use(auth) on a route outside /auth', request(app, '/public', { cookie: `JWT=${token}` }), auth],
    // A whole login, as the HTTP row's: the throttle's reservations, the token, the cookies and the user's
    // session list, which one user logging in again and again keeps at its cap (each login ends the oldest).
    [LOGIN_ROW, post(app, '/auth/bench/login', '{"user":"u","passwd":"pw"}'), auth],
    ...(await verifyRows(app)),
  ];
  const rows = variants.filter(([name]) => !only || only.test(name));
  for (const [name, make, mw] of rows) {
    const ctx = make();
    await mw(ctx, async () => {});
    if ((name.startsWith('auth') || name === VERIFIER_ROW) && !ctx.state.user)
      throw new Error(`${name}: the request was not authenticated (${String(ctx.body)})`);
    if (name === RESOURCE_ROW && ctx.state.auth?.method !== 'oauth')
      throw new Error(`${name}: the access token was not taken (${String(ctx.body)})`);
    if (name === LOGIN_ROW && ctx.status !== 200)
      throw new Error(`${name}: answered ${ctx.status} (${JSON.stringify(ctx.body)})`);
    if (name === CHANNEL_LIVE_ROW) {
      const before = storeReads;
      await mw(make(), async () => {});
      if (storeReads !== before) throw new Error(`${name}: the request read the store: the channel is not live`);
    }
  }
  // The fastest of several rounds for each, then the difference: a difference per round, minimised, would
  // pick the round where noise slowed the no-op most. Round by round over all the rows, not row after row: a
  // slow spell of a shared machine then falls on every row alike, and rows a few tenths of a µs apart (the
  // revocation channel's, beside the plain cookie row) can be told apart.
  const mine = rows.map(() => Infinity);
  const none = rows.map(() => Infinity);
  for (let r = 0; r < rounds; r++) {
    for (const [i, [, make, mw]] of rows.entries()) {
      mine[i] = Math.min(mine[i], await timePerCall(make, mw, ms));
      none[i] = Math.min(none[i], await timePerCall(make, noop, ms));
    }
  }
  const out: MiddlewareCost[] = rows.map(([name], i) => ({ name, us: Math.max(0, mine[i] - none[i]) }));
  await Promise.all([auth.close(), basic.close(), traced.close(), listened.close(), withAccounts.close()]);
  await Promise.all([withTokens.close(), withWebhooks.close(), channelOff.close(), channelLive.close()]);
  return out;
}

/**
 * Alone: `node --import=tsx bench/middleware.ts [--only REGEXP] [--rounds N]` (after `npm run build`), e.g.
 * `--only 'header$|revocation'` for the cookie row beside the revocation channel's, off and live.
 */
if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const only = arg('--only');
  for (const r of await middlewareBench(1500, Number(arg('--rounds') ?? 3), only ? new RegExp(only) : undefined))
    console.log(`${r.name.padEnd(42)} ${r.us.toFixed(2).padStart(7)} µs/request`);
}
