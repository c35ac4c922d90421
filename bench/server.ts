/**
 * One benchmark server per process: `node --import=tsx bench/server.ts <case>` listens on
 * 127.0.0.1:0 and prints `ready <port>` once it can take load. Every case answers the same small
 * JSON on its measured route, so the differences are the authentication work alone.
 */
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import koaJwt from 'koa-jwt';
import passport from 'koa-passport';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import serveStatic from 'koa-static';
import {
  AUTH_EVENT_TYPES,
  authKoa,
  avatarId,
  internalsOf,
  openStore,
  readCookie,
  safeEqual,
  type AuthKoaOptions,
  type User,
} from './built.js';

import { BENCH_KEYS } from './keys.js';

export const BENCH_SECRET = 'bench-secret-0123456789abcdef0123456789';
const PAYLOAD = { ok: true, message: 'hello' };

const directProvider = {
  kind: 'direct' as const,
  name: 'bench',
  checker: (user: string, passwd: string) => passwd === 'pw' && user.length > 0,
};

/**
 * authkoa as the rows measure it: OpenTelemetry off unless a case turns it on (the package is installed
 * here, for the tests, and would otherwise be used by default).
 */
function baseAuth(url: string, extra: Partial<AuthKoaOptions> = {}) {
  return authKoa({ secret: BENCH_SECRET, url, providers: [directProvider], telemetry: false, ...extra });
}

type CaseBuilder = (app: Koa, router: Router, url: string, dir: string) => Promise<void> | void;

const cases: Record<string, CaseBuilder> = {
  baseline(app, router) {
    router.get('/private', (ctx) => void (ctx.body = PAYLOAD));
    // The login request, answered without authkoa: the reference for the direct-login case.
    router.post('/auth/bench/login', (ctx) => void (ctx.body = PAYLOAD));
    app.use(router.routes());
  },
  authkoa(app, router, url) {
    const auth = baseAuth(url);
    router.get('/private', auth.middleware.auth, (ctx) => void (ctx.body = PAYLOAD));
    app.use(auth);
    app.use(router.routes());
  },
  // The same with OpenTelemetry on and no SDK registered: the API's own no-op tracer and meter.
  'authkoa-otel'(app, router, url) {
    const auth = baseAuth(url, { telemetry: true });
    router.get('/private', auth.middleware.auth, (ctx) => void (ctx.body = PAYLOAD));
    app.use(auth);
    app.use(router.routes());
  },
  // The same with a listener on every event type.
  'authkoa-events'(app, router, url) {
    const auth = baseAuth(url);
    for (const type of AUTH_EVENT_TYPES) auth.on(type, () => {}); // a listener that does nothing, on every type
    router.get('/private', auth.middleware.auth, (ctx) => void (ctx.body = PAYLOAD));
    app.use(auth);
    app.use(router.routes());
  },
  // The same with session tokens signed by a public-key algorithm (the `signing` option).
  'authkoa-eddsa'(app, router, url) {
    const auth = baseAuth(url, { signing: { alg: 'EdDSA', key: BENCH_KEYS.EdDSA } });
    router.get('/private', auth.middleware.auth, (ctx) => void (ctx.body = PAYLOAD));
    app.use(auth);
    app.use(router.routes());
  },
  'authkoa-es256'(app, router, url) {
    const auth = baseAuth(url, { signing: { alg: 'ES256', key: BENCH_KEYS.ES256 } });
    router.get('/private', auth.middleware.auth, (ctx) => void (ctx.body = PAYLOAD));
    app.use(auth);
    app.use(router.routes());
  },
  // The x- cases take authkoa's cookie path apart, one step each, for `npm run bench -- --variants ...`:
  // app.use(auth) alone; reading the cookie and XSRF headers; app.use(auth) plus reading the token
  // (TokenService.peek), with and without the XSRF check; the whole case without it; the route middleware
  // without app.use(auth); and computations of a known size (x-spin), to read the other rows against.
  'x-noauth'(app, router, url) {
    const auth = baseAuth(url);
    router.get('/private', (ctx) => void (ctx.body = PAYLOAD));
    app.use(auth);
    app.use(router.routes());
  },
  'x-headers'(app, router) {
    router.get(
      '/private',
      (ctx, next) => {
        const h = ctx.req.headers;
        if (!readCookie(h.cookie ?? '', 'JWT') || !h['x-xsrf-token']) throw new Error('the cookie case sends both');
        return next();
      },
      (ctx) => void (ctx.body = PAYLOAD),
    );
    app.use(router.routes());
  },
  'x-peek'(app, router, url) {
    peekCase(app, router, baseAuth(url));
  },
  'x-peek-noxsrf'(app, router, url) {
    peekCase(app, router, baseAuth(url, { disableXSRF: true }));
  },
  // Fixed computations on the route, of a known size on this machine (see spinFor): how a cost of known size
  // reads under HTTP load (x-spin, x-spin10), and the hot path's target itself (x-spin2, 2 µs), which the
  // cookie case is paired with so that both sides of the pair are read by the method alike.
  'x-spin'(app, router) {
    spinRoute(router, 0.33);
    app.use(router.routes());
  },
  'x-spin10'(app, router) {
    spinRoute(router, 3.3);
    app.use(router.routes());
  },
  'x-spin2'(app, router) {
    spinRoute(router, 2);
    app.use(router.routes());
  },
  // The least a cookie check can do, written by hand for this bench, with app.use(auth) in front as in the
  // authkoa case: the JWT cookie looked up among the tokens already verified (keyed by the signature's end,
  // the whole token compared, like authkoa's cache), the XSRF header compared in constant time, the expiry
  // checked against the clock, a copy of the user put on the request. No options, no query or header
  // token, no provider check. Paired with x-spin2, it shows where the 2 µs target sits for any implementation.
  'floor-cookie'(app, router, url) {
    floorCookieCase(app, router, baseAuth(url));
  },
  'x-noxsrf'(app, router, url) {
    const auth = baseAuth(url, { disableXSRF: true });
    router.get('/private', auth.middleware.auth, (ctx) => void (ctx.body = PAYLOAD));
    app.use(auth);
    app.use(router.routes());
  },
  'x-route-only'(app, router, url) {
    const auth = baseAuth(url);
    router.get('/private', auth.middleware.auth, (ctx) => void (ctx.body = PAYLOAD));
    app.use(router.routes());
  },
  'authkoa-basic'(app, router, url) {
    const auth = baseAuth(url, {
      basicAuthChecker: (user, passwd) => ({
        ok: passwd === 'pw',
        user: { id: `basic_${user}`, name: user, picture: '' },
      }),
    });
    router.get('/private', auth.middleware.auth, (ctx) => void (ctx.body = PAYLOAD));
    app.use(auth);
    app.use(router.routes());
  },
  // What any middleware in authkoa's two places costs: app.use() in front of the router, and one more
  // middleware on the route. The same plain-function shape authkoa's own middleware has.
  'noop-middleware'(app, router) {
    app.use((_ctx, next) => next());
    router.get(
      '/private',
      (_ctx, next) => next(),
      (ctx) => void (ctx.body = PAYLOAD),
    );
    app.use(router.routes());
  },
  'koa-jwt'(app, router) {
    router.get('/private', koaJwt({ secret: BENCH_SECRET, algorithms: ['HS256'] }), (ctx) => void (ctx.body = PAYLOAD));
    app.use(router.routes());
  },
  'passport-jwt'(app, router) {
    passport.use(
      new JwtStrategy(
        { jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: BENCH_SECRET, algorithms: ['HS256'] },
        (payload, done) => done(null, payload.user),
      ),
    );
    app.use(passport.initialize());
    router.get('/private', passport.authenticate('jwt', { session: false }), (ctx) => void (ctx.body = PAYLOAD));
    app.use(router.routes());
  },
  'passthrough-without'(app, router) {
    router.get('/public', (ctx) => void (ctx.body = PAYLOAD));
    app.use(router.routes());
  },
  'passthrough-with'(app, router, url) {
    app.use(baseAuth(url));
    router.get('/public', (ctx) => void (ctx.body = PAYLOAD));
    app.use(router.routes());
  },
  async 'avatar-file'(app, _router, url, dir) {
    await avatarCase(app, url, join(dir, 'files'), (p) => p);
  },
  async 'avatar-lmdb'(app, _router, url, dir) {
    await avatarCase(app, url, join(dir, 'lmdb'), (p) => `lmdb://${p}`);
  },
  'koa-static'(app, _router, _url, dir) {
    // The same bytes the avatar cases serve, as a plain static file under the same kind of path.
    mkdirSync(join(dir, 'static', 'avatar'), { recursive: true });
    writeFileSync(join(dir, 'static', 'avatar', `${AVATAR_ID}`), avatarBytes());
    app.use(serveStatic(join(dir, 'static'), { maxage: 604800000 }));
  },
};

/** app.use(auth), and on the route only the token read (TokenService.peek), none of the route middleware. */
function peekCase(app: Koa, router: Router, auth: ReturnType<typeof baseAuth>): void {
  const tokens = internalsOf(auth).tokenService;
  router.get(
    '/private',
    (ctx, next) => {
      const read = tokens.peek(ctx);
      return read instanceof Promise ? read.then(() => next()) : next();
    },
    (ctx) => void (ctx.body = PAYLOAD),
  );
  app.use(auth);
  app.use(router.routes());
}

function floorCookieCase(app: Koa, router: Router, auth: ReturnType<typeof baseAuth>): void {
  const tokens = internalsOf(auth).tokenService;
  interface Known {
    token: string;
    jti: string;
    exp: number;
    user: User;
  }
  const known = new Map<number, Known>();
  const keyOf = (token: string) =>
    (token.charCodeAt(token.length - 1) << 16) |
    (token.charCodeAt(token.length - 2) << 8) |
    token.charCodeAt(token.length - 3);
  const admit = (ctx: Koa.Context, next: Koa.Next, k: Known) => {
    const xsrf = ctx.req.headers['x-xsrf-token'];
    if (typeof xsrf !== 'string' || !safeEqual(xsrf, k.jti) || Date.now() / 1000 >= k.exp)
      return void (ctx.status = 401);
    const u = k.user;
    ctx.state.user = { name: u.name, id: u.id, picture: u.picture, aud: '' };
    return next();
  };
  router.get(
    '/private',
    (ctx, next) => {
      const token = readCookie(ctx.req.headers.cookie ?? '', 'JWT');
      const k = known.get(keyOf(token));
      if (k && k.token === token) return admit(ctx, next, k);
      return tokens.parse(token).then(
        (c) => {
          const fresh = { token, jti: c.jti ?? '', exp: c.exp ?? 0, user: c.user! };
          known.set(keyOf(token), fresh);
          return admit(ctx, next, fresh);
        },
        () => void (ctx.status = 401),
      );
    },
    (ctx) => void (ctx.body = PAYLOAD),
  );
  app.use(auth);
  app.use(router.routes());
}

/** A route that computes for `us` microseconds before it answers. */
function spinRoute(router: Router, us: number): void {
  const n = spinFor(us);
  router.get(
    '/private',
    (_ctx, next) => (spin(n) === 1 ? next() : next()),
    (ctx) => void (ctx.body = PAYLOAD),
  );
}

/**
 * The spin length that takes `us` microseconds of CPU in this process. Timed by CPU time, not the clock:
 * a pair's two servers start at the same time on one core, and wall time would count the other's turns.
 */
function spinFor(us: number): number {
  const n = 10_000;
  let best = Infinity;
  for (let round = 0; round < 7; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < 2000; i++) spin(n);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 2000);
  }
  return Math.max(1, Math.round((us * n) / best));
}

function spin(n: number): number {
  let h = 2166136261;
  for (let i = 0; i < n; i++) h = Math.imul(h ^ i, 16777619);
  return h;
}

/** A fixed 64×64 PNG-sized payload: avatars are small images, a few KB. */
export function avatarBytes(): Buffer {
  const png = Buffer.alloc(4096, 7);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
  return png;
}
export const AVATAR_USER = 'bench_user';
export const AVATAR_ID = avatarId(AVATAR_USER);

async function avatarCase(app: Koa, url: string, path: string, uri: (p: string) => string) {
  mkdirSync(path, { recursive: true });
  const store = await openStore(uri(path));
  await store.put(AVATAR_USER, avatarBytes());
  await store.close();
  app.use(baseAuth(url, { avatarStore: uri(path) }));
}

export const CASES = Object.keys(cases);

async function main() {
  const name = process.argv[2] ?? '';
  const dir = process.argv[3] ?? '';
  const build = cases[name];
  if (!build) throw new Error(`unknown case ${name}; known: ${CASES.join(', ')}`);
  const app = new Koa();
  // autocannon ends each run by closing its sockets, mid-response for the avatar and static cases; Koa
  // would print every such "premature close".
  app.silent = true;
  let handle: http.RequestListener = (_q, s) => void s.writeHead(503).end();
  const server = http.createServer((q, s) => handle(q, s));
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await build(app, new Router(), `http://127.0.0.1:${port}`, dir);
  handle = app.callback();
  // A clean exit on SIGTERM lets `node --cpu-prof bench/server.ts <case>` write its profile.
  process.once('SIGTERM', () => process.exit(0));
  // The process's own CPU time, on a side port: the runner reads it before and after each load run, so
  // CPU per request is measured even when other work on the machine makes req/s jump around. The same
  // port starts and stops a sampling profile (bench/profile.ts reads authkoa's share out of it).
  const profiler = new Session();
  profiler.connect();
  const stats = http.createServer((q, s) => {
    // The CPU profiler is driven from here so that a profile covers the measured load and nothing else.
    if (q.url === '/profile/start') {
      void profiler
        .post('Profiler.enable')
        .then(() => profiler.post('Profiler.setSamplingInterval', { interval: 100 }))
        .then(() => profiler.post('Profiler.start'))
        .then(() => s.end('started'));
    } else if (q.url === '/profile/stop') {
      void profiler.post('Profiler.stop').then(({ profile }) => s.end(JSON.stringify(profile)));
    } else {
      s.end(JSON.stringify(process.cpuUsage()));
    }
  });
  stats.listen(0, '127.0.0.1');
  await once(stats, 'listening');
  process.stdout.write(`ready ${port} ${(stats.address() as AddressInfo).port}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    process.stderr.write(`bench server: ${(err as Error).stack}\n`);
    process.exit(1);
  });
}
