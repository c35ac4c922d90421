import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import Router from '@koa/router';
import Koa from 'koa';
import { authKoa, getUserInfo, type AuthKoa } from '../lib/index.js';

/** How to run the reference application. */
export interface ExampleOptions {
  port: number;
  host: string;
  /** Folder for the generated secret (and the avatar store). */
  varDir: string;
  log?: (line: string) => void;
}

export interface RunningExample {
  url: string;
  auth: AuthKoa;
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

const DEMO_USER = { name: 'demo', passwd: 'demo' };

/**
 * The reference wiring: authkoa mounted at /auth, a protected API under /api, and a page at /.
 * Listens first, so the public URL (and a port of 0) is known before authkoa is built.
 */
export async function startExample(o: ExampleOptions): Promise<RunningExample> {
  const app = new Koa();
  // Koa composes its middleware when callback() is called, so the handler is bound once the routes exist.
  let handle: http.RequestListener = (_req, res) => res.writeHead(503).end();
  const server = http.createServer((req, res) => handle(req, res));
  server.listen(o.port, o.host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const url = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${port}`;

  const auth = authKoa({
    secret: loadSecret(o.varDir),
    url,
    issuer: 'authkoa-example',
    tokenDuration: '5m',
    cookieDuration: '24h',
    providers: [
      { kind: 'direct', name: 'local', checker: (user: string, passwd: string) => user === DEMO_USER.name && passwd === DEMO_USER.passwd },
    ],
    claimsUpdater: (claims) => {
      // The demo user is an admin and an editor, so every protected route of the page can be tried.
      if (claims.user?.name === DEMO_USER.name) claims.user = { ...claims.user, role: 'editor', attrs: { ...claims.user.attrs, admin: true } };
      return claims;
    },
  });

  const router = new Router();
  router.get('/', (ctx) => {
    ctx.type = 'html';
    ctx.body = `<!doctype html><meta charset="utf-8"><title>authkoa example</title>
<h1>authkoa example</h1>
<p>Log in: <code>curl -c jar -X POST ${url}/auth/local/login -H 'content-type: application/json' -d '{"user":"demo","passwd":"demo"}'</code></p>
<p>Providers: <a href="/auth/list">/auth/list</a>; protected: <code>/api/private</code> (send the XSRF-TOKEN cookie as X-XSRF-TOKEN).</p>`;
  });
  router.get('/api/private', auth.middleware.auth, (ctx) => {
    ctx.body = { message: 'private', user: getUserInfo(ctx) };
  });
  router.get('/api/admin', auth.middleware.admin, (ctx) => {
    ctx.body = { message: 'admin only', user: getUserInfo(ctx) };
  });
  router.get('/api/editors', auth.middleware.rbac('editor'), (ctx) => {
    ctx.body = { message: 'editors only', user: getUserInfo(ctx) };
  });
  app.use(auth);
  app.use(router.routes());
  app.use(router.allowedMethods());
  handle = app.callback();

  o.log?.(`authkoa example listening on ${url}`);
  o.log?.(`  page:      ${url}/`);
  o.log?.(`  providers: ${url}/auth/list`);
  o.log?.(`  demo user: ${DEMO_USER.name} / ${DEMO_USER.passwd} (provider "local")`);
  return {
    url,
    auth,
    async close() {
      await auth.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
