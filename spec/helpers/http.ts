import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { authKoa, getUserInfo, type AuthKoa, type AuthKoaOptions } from '../../lib/index.js';
import { contractRecorder, type Answer } from './answers.js';

export type { Answer } from './answers.js';

/** A real HTTP server on 127.0.0.1 with a random port; close() stops it. */
export interface Served {
  url: string;
  port: number;
  server: http.Server;
  close(): Promise<void>;
}

/** Listens with any request handler on 127.0.0.1:0. */
export async function serve(handler: http.RequestListener, listenPort = 0): Promise<Served> {
  const server = http.createServer(handler);
  // Longer than undici's 4 s client keep-alive: otherwise, on a loaded machine, the server may close an
  // idle pooled socket just as fetch reuses it, and the request fails with "other side closed".
  server.keepAliveTimeout = 60_000;
  server.listen(listenPort, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    server,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return closed;
    },
  };
}

/** A response read whole by rawGet(). */
export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body as UTF-8 text. */
  text: string;
}

/**
 * GET `path` on 127.0.0.1:`port` with the request line exactly as given. fetch() (WHATWG URL parsing)
 * resolves dot segments first, so `/avatar/../../etc/passwd` would leave as `/etc/passwd`; node:http
 * sends the path option untouched, as an attacker's client would.
 */
export function rawGet(port: number, path: string, headers: http.OutgoingHttpHeaders = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method: 'GET', headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body, text: body.toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** An app the way a user wires it: authkoa mounted, then protected routes on a router. */
export interface TestApp extends Served {
  auth: AuthKoa;
  app: Koa;
  /** Every answer of the auth and avatar routes so far: close() checks them against auth.openapi() (answers.ts). */
  answers: Answer[];
}

/**
 * Starts a Koa app with authKoa(opts) and the routes the core tests use:
 * /private (auth), /admin (admin), /open (trace), /editors (rbac editor, admin), /updated (trace + updateUser).
 * `url` in opts is filled with the server's own address when omitted; `extra` adds routes to `router`, or
 * middleware in front of authkoa to `app`. Every answer of the auth and
 * avatar routes is recorded, and close() rejects, naming them, when any does not conform to
 * `auth.openapi()` (spec/helpers/answers.ts): the HTTP contract is checked by every test that uses it.
 */
/**
 * The logger of the test apps that give none: silent. Without one authkoa prints warnings and errors
 * (its default, spec/core/default-logger.test.ts), and tests that fail on purpose would fill the output.
 */
export const quiet = () => {};

/**
 * What startApp() and started() add unless a test says otherwise: the quiet logger; memory stores
 * allowed for second factors and passkeys (a test app forgets everything by design; the refusal without
 * this opt-in is spec/core/volatile-stores.test.ts's); and a start-up bound on the stores that a loaded
 * machine's first connection and table creation stay well within (the stores that are down are refused at once).
 */
const TEST_DEFAULTS = { logger: quiet, allowVolatileStores: true, storeCheckTimeout: '30s' } as const;

export async function startApp(
  opts: Omit<AuthKoaOptions, 'url'> & { url?: string },
  extra?: (router: Router, auth: AuthKoa, app: Koa) => void,
): Promise<TestApp> {
  const app = new Koa();
  // authkoa emits every 5xx on the app (Koa's convention), which Koa prints: tests that fail on purpose
  // would fill the output with stacks. spec/core/unexpected-errors.test.ts turns it back on to check it.
  app.silent = true;
  const router = new Router();
  let auth!: AuthKoa;
  const served = await serve((req, res) => app.callback()(req, res));
  auth = authKoa({ ...TEST_DEFAULTS, ...opts, url: opts.url ?? served.url } as AuthKoaOptions);
  await auth.ready.catch(async (err: unknown) => {
    await served.close();
    throw err;
  });
  const echo = (ctx: Koa.Context) => {
    ctx.status = 201;
    ctx.body = { user: getUserInfo(ctx) ?? null };
  };
  router.get('/private', auth.middleware.auth, echo);
  router.post('/private', auth.middleware.auth, echo);
  router.get('/admin', auth.middleware.admin, echo);
  router.get('/open', auth.middleware.trace, echo);
  router.get('/editors', auth.middleware.rbac('editor', 'admin'), echo);
  router.get('/updated', auth.middleware.trace, auth.middleware.updateUser, echo);
  // The recorder comes first, so it sees each answer as it leaves the server, after any middleware
  // `extra` puts in front of authkoa.
  const contract = contractRecorder(auth);
  app.use(contract.use);
  extra?.(router, auth, app);
  app.use(auth);
  app.use(router.routes());
  return {
    ...served,
    auth,
    app,
    answers: contract.answers,
    // contract.closed() runs the close once, however often it is called.
    close: () =>
      contract.closed(async () => {
        await auth.close();
        await served.close();
      }),
  };
}

/** One parsed Set-Cookie line. */
export interface SetCookie {
  name: string;
  value: string;
  attrs: Record<string, string | true | undefined>;
  raw: string;
}

export function parseSetCookie(raw: string): SetCookie {
  const [pair, ...rest] = raw.split(';');
  const eq = pair!.indexOf('=');
  const attrs: Record<string, string | true> = {};
  for (const a of rest) {
    const i = a.indexOf('=');
    const k = (i < 0 ? a : a.slice(0, i)).trim().toLowerCase();
    attrs[k] = i < 0 ? true : a.slice(i + 1).trim();
  }
  return { name: pair!.slice(0, eq).trim(), value: pair!.slice(eq + 1).trim(), attrs, raw };
}

/**
 * A fetch client with a cookie jar, as a browser would keep it (Max-Age=0 deletes), that never follows
 * redirects so tests can look at them.
 */
export class Client {
  readonly jar = new Map<string, string>();
  lastCookies: SetCookie[] = [];

  constructor(readonly base: string) {}

  /** The XSRF header a page script would copy from the XSRF-TOKEN cookie. */
  xsrf(cookie = 'XSRF-TOKEN', header = 'X-XSRF-TOKEN'): Record<string, string> {
    const v = this.jar.get(cookie);
    return v ? { [header]: v } : {};
  }

  async fetch(
    path: string,
    init: RequestInit & { json?: unknown; form?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.jar.size > 0 && !headers.has('cookie')) {
      headers.set('cookie', [...this.jar].map(([k, v]) => `${k}=${v}`).join('; '));
    }
    let body = init.body;
    if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    } else if (init.form) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      body = new URLSearchParams(init.form).toString();
    }
    const url = /^https?:/.test(path) ? path : this.base + path;
    const res = await fetch(url, { ...init, headers, body, redirect: 'manual' });
    this.lastCookies = res.headers.getSetCookie().map(parseSetCookie);
    for (const c of this.lastCookies) {
      if (c.attrs['max-age'] === '0' || c.value === '') this.jar.delete(c.name);
      else this.jar.set(c.name, c.value);
    }
    return res;
  }

  cookie(name: string): SetCookie | undefined {
    return this.lastCookies.find((c) => c.name === name);
  }
}

/** Decodes a JWT payload without verifying it (to look at claims in tests). */
export function decodeJwt(token: string): Record<string, any> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8'));
}

/**
 * A clock tests move by hand: no sleeps. It starts at the real time (on a whole second, so `iat` and
 * `exp` arithmetic has no fraction), not at a fixed date: a part a test builds without this clock (a
 * store, a peer) then agrees with it until the test moves it, whatever the date the suite runs on.
 */
export function manualClock(start = Math.ceil(Date.now() / 1000) * 1000) {
  let now = start;
  const clock = () => now;
  clock.advance = (ms: number) => {
    now += ms;
  };
  return clock;
}

/** authKoa(opts) once started: rejects with the start-up error, whether authKoa() threw it or `ready` rejected with it. */
export async function started(opts: AuthKoaOptions): Promise<AuthKoa> {
  const auth = authKoa({ ...TEST_DEFAULTS, ...opts });
  await auth.ready;
  return auth;
}
