import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { authKoa, getUserInfo, type AuthKoa } from '../lib/index.js';
import { RecentEvents } from './events.js';
import { demoFeatures, devPortProblem, featureOn, isInstalled, type DemoFeature, type Installed } from './features.js';
import { Outbox } from './outbox.js';
import { ACCOUNTS_PROVIDER, DEMO_USER, demoProviders, telegramToken } from './providers.js';
import { publicHostOnly } from './public-host.js';
import { mountStatic } from './static.js';

/** How to run the reference application. */
export interface ExampleOptions {
  /** Port of the app (default 8080; 0 picks a free one). */
  port: number;
  /** Address to listen on; 127.0.0.1 and ::1 are published as http://localhost:<port> (see publicUrl). */
  host: string;
  /** Port of the dev OAuth2 server (default 8084; 0 picks a free one). */
  devPort?: number;
  /** Folder for the generated secret and the LMDB stores: avatars, accounts, passkeys, second factors. */
  varDir: string;
  log?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** authkoa's clock, ms since the epoch (default Date.now): tests move it past the 5-minute tokenDuration instead of waiting. */
  clock?: () => number;
  /**
   * A middleware placed right before authkoa, once it is started (the tests' recorder of authkoa's answers;
   * after the demo's own host check, whose 421 is the demo's answer, not authkoa's).
   */
  beforeAuth?: (auth: AuthKoa) => Koa.Middleware;
  /** Whether an optional package is installed (default: it resolves): the tests run the demo as an install without one. */
  installed?: Installed;
}

export interface RunningExample {
  url: string;
  auth: AuthKoa;
  outbox: Outbox;
  close(): Promise<void>;
}

/** The secret lives in <varDir>/secret, made on first run, so sessions survive restarts. */
function loadSecret(varDir: string): string {
  const file = join(varDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(varDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/**
 * The demo's public URL for a listen address, and whether passkeys can work there. WebAuthn refuses IP
 * addresses as relying party ids, so a loopback address becomes `localhost` (browsers resolve it to
 * loopback and treat it as a secure context over plain http); the app still listens on the address given.
 * Any other IP address stays as it is, without passkeys; a host name stays as it is, with them.
 */
export function publicUrl(host: string, port: number): { url: string; passkeys: boolean } {
  if (host === '127.0.0.1' || host === '::1') return { url: `http://localhost:${port}`, passkeys: true };
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, passkeys: isIP(host) === 0 };
}

/** The lines the demo prints once it listens: where to open it, what it offers, what is off and why. */
function banner(
  log: (line: string) => void,
  b: { host: string; port: number; url: string; features: DemoFeature[]; providers: string[]; varDir: string },
): void {
  // A loopback address is published as localhost (passkeys need a host name): say which address it
  // listens on, and that this address answers too, with a redirect to the public URL (publicHostOnly).
  const aliased = publicUrl(b.host, b.port).passkeys && isIP(b.host) !== 0;
  log(`authkoa example listening on ${b.url}${aliased ? ` (address ${b.host})` : ''}`);
  const direct = aliased ? ` (http://${b.host.includes(':') ? `[${b.host}]` : b.host}:${b.port}/ redirects here)` : '';
  log(`  open:      ${b.url}/${direct}`);
  log(`  providers: ${b.providers.join(', ')}`);
  for (const f of b.features) if (!f.available) log(`  ${`${f.name}:`.padEnd(10)} off: ${f.reason}`);
  // Its own folder: not ./var/accounts and the like, which an app beside it (docs/getting-started.md) uses.
  log(`  data:      ${b.varDir} (--var <dir> or AUTHKOA_VAR moves it)`);
  log(`  demo user: ${DEMO_USER.name} / ${DEMO_USER.passwd} (provider "local"); email login messages: ${b.url}/outbox`);
  log(
    `  accounts:  sign up on the page (provider "${ACCOUNTS_PROVIDER}"); ` +
      'the confirmation and reset links land in the outbox',
  );
}

/**
 * The reference wiring: authkoa at /auth, avatars at /avatar in an LMDB store, a protected API under
 * /api, the page at /. Listens first, so the public URL (and a port of 0) is known before authkoa is built.
 */
export async function startExample(o: ExampleOptions): Promise<RunningExample> {
  const log = o.log ?? (() => {});
  const app = new Koa();
  // Koa composes its middleware when callback() is called, so the handler is bound once the routes exist.
  let handle: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => handle(req, res));
  server.listen(o.port, o.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const { url, passkeys } = publicUrl(o.host, port);
  const varDir = resolve(o.varDir);
  const outbox = new Outbox(log);
  const env = o.env ?? process.env;
  const devPort = o.devPort ?? 8084;
  const features = demoFeatures({
    devPortProblem: await devPortProblem('127.0.0.1', devPort),
    installed: o.installed ?? isInstalled,
    host: o.host,
    passkeyHost: passkeys,
    telegramToken: !!telegramToken(env),
  });

  const auth = authKoa({
    secret: loadSecret(varDir),
    url,
    issuer: 'authkoa-example',
    tokenDuration: '5m',
    cookieDuration: '24h',
    avatarStore: `lmdb://${join(varDir, 'avatars')}`,
    // Resizing needs jimp; without it the demo keeps avatars as sent (features.ts).
    ...(featureOn(features, 'avatars') ? { avatarResizeLimit: 200 } : {}),
    // The dev OAuth2 server serves its pictures from 127.0.0.1; a real deployment leaves this off.
    avatarAllowPrivate: true,
    providers: demoProviders({
      devPort,
      dev: !features.some((f) => f.name === 'dev'),
      outbox,
      env,
      // Passkeys sit beside the avatars, so they survive a restart like the secret and the avatars do.
      passkeyCredentials: featureOn(features, 'passkeys') ? `lmdb://${join(varDir, 'passkeys')}` : undefined,
      telegram: featureOn(features, 'telegram'),
    }),
    // Two-step login: TOTP keys (sealed) and hashed recovery codes beside the passkeys, so they survive a restart too.
    mfa: { store: `lmdb://${join(varDir, 'mfa')}`, issuer: 'authkoa demo' },
    // The password provider's accounts, in LMDB beside the rest (the path is absolute: lmdb:///…).
    accounts: { store: `lmdb://${join(varDir, 'accounts')}` },
    // Personal access tokens for the page's "Tokens" card; their hashes live in the state store, in LMDB too.
    tokens: true,
    stateStore: `lmdb://${join(varDir, 'state')}`,
    claimsUpdater: (claims) => {
      // The demo user is an admin and an editor, so every protected route of the page can be tried. Not an
      // account that signed up with the name "demo": anyone may sign up, and a name is what they type.
      if (claims.user?.name === DEMO_USER.name && !claims.user.id.startsWith(`${ACCOUNTS_PROVIDER}_`))
        claims.user = { ...claims.user, role: 'editor', attrs: { ...claims.user.attrs, admin: true } };
      return claims;
    },
    logger: { info: () => {}, warn: (m: string) => log(`warn: ${m}`), error: (m: string) => log(`error: ${m}`) },
    ...(o.clock ? { clock: o.clock } : {}),
  });
  // Subscribed before anything can log in: the page's "Recent auth events" and the terminal's event lines.
  const recentEvents = new RecentEvents(auth, log);
  // Provider kinds and the LMDB store load here; a bad option or a missing package rejects, naming it.
  await auth.ready;

  const router = new Router();
  await mountStatic(router);
  // The optional features and why any is off, for the page to say so beside the logins.
  router.get('/features', (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = { features };
  });
  router.get('/outbox', (ctx) => {
    ctx.type = 'html';
    ctx.body = outbox.html(url);
  });
  router.get('/api/private', auth.middleware.auth, (ctx) => {
    ctx.body = { message: 'private: any logged-in user', user: getUserInfo(ctx) };
  });
  router.get('/api/events', auth.middleware.auth, (ctx) => {
    // The user's own events and others' refused logins: nothing a shared cache may keep or hand on.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = recentEvents.visibleTo(getUserInfo(ctx)!.id);
  });
  router.get('/api/admin', auth.middleware.admin, (ctx) => {
    ctx.body = { message: 'admin only', user: getUserInfo(ctx) };
  });
  router.get('/api/editors', auth.middleware.rbac('editor'), (ctx) => {
    ctx.body = { message: 'editors only (rbac)', user: getUserInfo(ctx) };
  });
  app.use(publicHostOnly(url));
  if (o.beforeAuth) app.use(o.beforeAuth(auth));
  app.use(auth);
  app.use(router.routes());
  app.use(router.allowedMethods());
  const koaHandle = app.callback();
  // Koa's handler answers its own errors (ctx.onerror), so its promise is left to settle as before.
  handle = (req, res) => void koaHandle(req, res);

  banner(log, { host: o.host, port, url, features, varDir, providers: auth.providers.list().map((p) => p.name) });
  return {
    url,
    auth,
    outbox,
    async close() {
      recentEvents.close();
      await auth.close();
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}
