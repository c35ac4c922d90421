/**
 * Issue #62's "two processes": the app as an authorization server run as two separate `node` processes
 * (fixtures/app-process.ts) on one real redis-server, and on one real PostgreSQL server, as two workers behind a load
 * balancer run. The user logs in and answers the authorization request at process A; the client (oauth4webapi)
 * redeems the code and refreshes at process B; both processes are stopped and started again on the same stores, and
 * the last refresh token still works; the user revokes the grant at A, and a resource server (protectedResource() in
 * this test, told through the apps' `ssf` option) refuses the access token.
 *
 * One issuer for both, across the restart: the issuer is the app's `url` option, and it is what the metadata, the
 * `iss` of the authorization response and every access token say, so every process must be given the same one, and
 * it must be an address that reaches them. That is what a deployment has: a load balancer at the public URL in front
 * of the processes. Here it is the front door, an HTTP proxy on a port of its own that lives for the whole test, so
 * the processes may come back on new ports as a restarted deployment's workers do. The test, standing in for the
 * balancer's routing, names the process a request goes to with the `x-backend` header (which the door takes off);
 * a request without it (the resource server's discovery, key fetches and polls) goes to each in turn. The door
 * records where each request went, so the test checks that the halves of the flow really were served apart.
 */
import { once } from 'node:events';
import http from 'node:http';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import Koa from 'koa';
import * as oauth from 'oauth4webapi';
import { protectedResource, type ProtectedResourceEventsOptions } from '../../lib/verify/index.js';
import { linkIn, PASSWORD, post, tokenOf } from '../accounts/rig.js';
import { spawnTs, waitForLine } from '../helpers/cli.js';
import { Client, serve } from '../helpers/http.js';
import { startPostgres, type PostgresPeer } from '../helpers/postgres.js';
import { startRedis, type RedisPeer } from '../helpers/redis.js';
import { startSmtp } from '../helpers/smtp.js';
import { tempDir } from '../helpers/temp.js';
import { authorizationURL, insecure, REDIRECT, userAnswers } from './app-rig.js';
import type { AppConfig } from './fixtures/app-process.js';

const APP = fileURLToPath(new URL('./fixtures/app-process.ts', import.meta.url));
/** Every process's clock, and the resource server's: one instant, so none depends on when each started. */
const CLOCK = Math.ceil(Date.now() / 1000) * 1000;
/** Issue #62: a grant revoked at one process is refused at a resource server within this. */
const REVOCATION_BOUND_MS = 2_000;
const ROUTE = 'x-backend';
const RECEIVER = 'notes-api';
const agent: oauth.Client = { client_id: 'agent' };

let redis: RedisPeer;
let postgres: PostgresPeer;
test.before(async () => {
  [redis, postgres] = await Promise.all([startRedis(), startPostgres()]);
});
test.after.always(() => Promise.all([redis?.stop(), postgres?.destroy()]));

type Backend = 'a' | 'b';

/** The public URL: a proxy to the process the request names (`x-backend`), or to each in turn. */
async function frontDoor(t: ExecutionContext) {
  const backends: Partial<Record<Backend, string>> = {};
  /** `<backend> <method> <path>` of every request forwarded. */
  const log: string[] = [];
  let turn = 0;
  const agentPool = new http.Agent({ keepAlive: true });
  const door = await serve((req, res) => {
    const named = req.headers[ROUTE];
    const to: Backend = named === 'a' || named === 'b' ? named : turn++ % 2 === 0 ? 'a' : 'b';
    const target = backends[to];
    const fail = () => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: `process ${to} is not there` }));
    };
    if (!target) return fail();
    log.push(`${to} ${req.method} ${req.url!.split('?')[0]}`);
    const headers = { ...req.headers };
    delete headers[ROUTE];
    const { hostname, port } = new URL(target);
    const upstream = http.request({ hostname, port, method: req.method, path: req.url, headers, agent: agentPool });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode!, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', fail);
    req.pipe(upstream);
  });
  t.teardown(async () => {
    await door.close();
    agentPool.destroy();
  });
  return { url: door.url, backends, log };
}

/** One app process on `config`; stop() ends it with SIGTERM and rejects unless it exits 0 (also at teardown). */
async function appProcess(t: ExecutionContext, config: AppConfig) {
  const child = spawnTs(APP, [JSON.stringify(config)]);
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const [code] = (await once(child, 'close')) as [number | null]; // 'close': its output read to the end
    if (code !== 0) throw new Error(`app process exited ${code}: ${stderr}`);
  };
  t.teardown(stop);
  const url = (await waitForLine(child, /^listening (http:\/\/\S+)/m))[1]!;
  return { url, stop };
}

/** A browser whose requests the front door sends to one process. */
class Browser extends Client {
  constructor(
    base: string,
    readonly backend: Backend,
  ) {
    super(base);
  }
  override fetch(path: string, init: Parameters<Client['fetch']>[1] = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    headers.set(ROUTE, this.backend);
    return super.fetch(path, { ...init, headers });
  }
}

/** oauth4webapi's options for a request the front door sends to `backend`. */
const at = (backend: Backend) => ({
  ...insecure,
  [oauth.customFetch]: (url: string, init: oauth.CustomFetchOptions<string, unknown>) => {
    const headers = new Headers(init.headers);
    headers.set(ROUTE, backend);
    return fetch(url, { ...init, headers } as RequestInit);
  },
});

/** The resource server: a Koa app on its own port answering `/notes` with the token's auth, once `protect` is set. */
async function resourceServer(t: ExecutionContext) {
  const app = new Koa();
  app.silent = true;
  let guard: Koa.Middleware | undefined;
  app.use((ctx, next) => (guard ? guard(ctx, next) : next()));
  app.use((ctx) => {
    ctx.body = { auth: ctx.state.auth };
  });
  const served = await serve(app.callback());
  t.teardown(() => served.close());
  const get = async (token: string) => {
    const res = await fetch(`${served.url}/notes`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as { code?: string; auth?: { sub: string } } };
  };
  return { url: served.url, resource: `${served.url}/notes`, get, protect: (m: Koa.Middleware) => void (guard = m) };
}

/**
 * Asks the resource server until it refuses `token`, until `deadline` at most (the bound under test, counted by the
 * caller from when it asked for the revocation): the refusal, or a throw once the deadline has passed.
 */
async function refusal(
  get: (token: string) => Promise<{ status: number; body: { code?: string } }>,
  token: string,
  deadline: number,
) {
  for (;;) {
    const answer = await get(token);
    if (answer.status !== 200) return answer;
    if (Date.now() > deadline) throw new Error('the token is still accepted past the deadline of the revocation');
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Variant {
  label: string;
  stores: (t: ExecutionContext) => { stateStore: string; accountsStore: string };
  /** How the resource server hears of revocations. */
  delivery: 'push' | 'poll';
}

const hex = () => randomBytes(5).toString('hex');
const VARIANTS: Variant[] = [
  {
    label: 'one redis-server (accounts in one LMDB file), SETs pushed',
    stores: (t) => ({
      stateStore: `${redis.uri}/0?prefix=asp${hex()}:`,
      accountsStore: `lmdb://${join(tempDir(t), 'accounts')}`,
    }),
    delivery: 'push',
  },
  {
    label: 'one PostgreSQL server (accounts there too), SETs polled',
    stores: () => {
      const prefix = `asp${hex()}`;
      return {
        stateStore: `${postgres.uri}?prefix=${prefix}_s_&timeout=30000`,
        accountsStore: `${postgres.uri}?prefix=${prefix}_a_&timeout=30000`,
      };
    },
    delivery: 'poll',
  },
];

for (const v of VARIANTS) {
  test(`two processes on ${v.label}: authorized at A, redeemed and refreshed at B; both restarted, the refresh token still works; revoked at A, refused at the resource server`, async (t) => {
    const door = await frontDoor(t);
    const smtp = await startSmtp();
    t.teardown(() => smtp.close());
    const rs = await resourceServer(t);
    const credential = randomBytes(24).toString('base64url');
    const receiver =
      v.delivery === 'push'
        ? { id: RECEIVER, credential, push: `${rs.url}/ssf/events`, allowPrivate: true }
        : { id: RECEIVER, credential, poll: true as const };
    const config: AppConfig = {
      ...v.stores(t),
      url: door.url,
      smtpPort: smtp.port,
      signingKey: generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString(),
      clock: CLOCK,
      resource: rs.resource,
      redirectURI: REDIRECT,
      receiver,
    };
    const start = async () => {
      const [a, b] = await Promise.all([appProcess(t, config), appProcess(t, config)]);
      door.backends.a = a.url;
      door.backends.b = b.url;
      return [a, b] as const;
    };
    let [a, b] = await start();
    t.not(a.url, b.url);

    // The resource server trusts the issuer (the public URL) and hears of revocations the way this variant says.
    const events: ProtectedResourceEventsOptions =
      v.delivery === 'push'
        ? { push: '/ssf/events', credential, audience: RECEIVER }
        : { poll: `${door.url}/auth/ssf/poll`, credential, audience: RECEIVER, interval: '500ms' };
    const pr = protectedResource({
      resource: rs.resource,
      authorizationServers: [door.url],
      scopes: ['notes:read'],
      clock: () => CLOCK,
      events,
      // Polled, the app's events are out of reach while both processes are down: one warning, expected.
      logger: { warn: () => {} },
    });
    t.teardown(() => pr.close());
    rs.protect(pr);

    // At A: the user signs up, confirms the mailed link, and answers the authorization request.
    const browser = new Browser(door.url, 'a');
    t.is((await post(browser, '/auth/local/signup', { email: 'ann@example.com', password: PASSWORD })).status, 202);
    const confirmed = await post(browser, '/auth/local/confirm', { token: tokenOf(linkIn(await smtp.next())) });
    t.is(confirmed.status, 200, await confirmed.clone().text());
    const user = (await confirmed.json()) as { id: string };
    const issuer = new URL(door.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
    const { url, state, verifier } = await authorizationURL(as, {
      client_id: 'agent',
      scope: 'notes:read',
      resource: rs.resource,
    });
    const params = oauth.validateAuthResponse(as, agent, await userAnswers(browser, url), state);

    // At B: the code redeemed, the refresh token rotated.
    const redeemed = await oauth.processAuthorizationCodeResponse(
      as,
      agent,
      await oauth.authorizationCodeGrantRequest(as, agent, oauth.None(), params, REDIRECT, verifier, at('b')),
    );
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      agent,
      await oauth.refreshTokenGrantRequest(as, agent, oauth.None(), redeemed.refresh_token!, at('b')),
    );
    t.not(refreshed.refresh_token, redeemed.refresh_token, 'rotated at B');
    t.is((await rs.get(refreshed.access_token)).status, 200);
    const served = (what: RegExp) => [...new Set(door.log.filter((l) => what.test(l)).map((l) => l[0]))];
    t.deepEqual(served(/ GET \/auth\/oauth2\/authorize$| POST \/auth\/oauth2\/consent$/), ['a'], 'authorized at A');
    t.deepEqual(served(/ POST \/auth\/oauth2\/token$/), ['b'], 'redeemed and refreshed at B');

    // Both taken out of the door and stopped (each exits 0: its answers conformed to its OpenAPI document), then
    // started again on the same stores, on new ports behind the same door: the issuer has not changed.
    delete door.backends.a;
    delete door.backends.b;
    await Promise.all([a.stop(), b.stop()]);
    [a, b] = await start();
    const after = await oauth.processRefreshTokenResponse(
      as,
      agent,
      await oauth.refreshTokenGrantRequest(as, agent, oauth.None(), refreshed.refresh_token!, at('b')),
    );
    t.is(after.scope, 'notes:read', 'the last refresh token works after the restart');
    const ok = await rs.get(after.access_token);
    t.is(ok.status, 200);
    t.is(ok.body.auth?.sub, user.id, 'the token speaks for the user who logged in at A');

    // At A, with the session from before the restart: the grant revoked; from the moment it is asked for, the
    // resource server has the bound of issue #62 to refuse the access token.
    const deadline = Date.now() + REVOCATION_BOUND_MS;
    const revoked = await browser.fetch('/auth/oauth2/grants/agent', {
      method: 'DELETE',
      headers: { ...browser.xsrf(), origin: issuer.origin },
    });
    t.is(revoked.status, 204, await revoked.clone().text());
    const refused = await refusal(rs.get, after.access_token, deadline);
    t.is(refused.status, 401);
    t.is(refused.body.code, 'session_revoked', 'refused as a session ended: the grant is the token’s sid');
    const again = await oauth.refreshTokenGrantRequest(as, agent, oauth.None(), after.refresh_token!, at('b'));
    t.is(again.status, 400, 'and its refresh token at B');
    t.true(pr.events!.reachable, 'the resource server hears from the processes started again');
    t.deepEqual(served(/ DELETE \/auth\/oauth2\/grants\/agent$/), ['a'], 'revoked at A');
  });
}
