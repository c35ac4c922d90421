import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { noopLogger, type Logger } from '../../logger.js';
import { randomId } from '../../session/claims.js';
import { Expiring } from './store.js';
import { readBody } from '../../http/body.js';
import { identicon } from '../../avatar/identicon.js';

/**
 * The development-only OAuth2 server (reference §5.5): any user name logs in through a form. It exists
 * so an application can be built and demonstrated without registering with a real provider. Unlike
 * the original it redirects to the `redirect_uri` the client sent (checked against allowed origins,
 * so any mount prefix works), keeps one remembered user per login rather than per process, and
 * honours PKCE.
 */

export interface DevOAuthServerOptions {
  /** Interface to listen on (default 127.0.0.1: the server lets anyone in, so it stays local). */
  host?: string;
  /** Port (default 8084; 0 picks a free one). */
  port?: number;
  /** Adds `email: <name>@<emailDomain>` to the user. */
  emailDomain?: string;
  /** Makes the user's email from the name; wins over emailDomain. */
  emailFunc?: (name: string) => string;
  /** Origins `redirect_uri` may point at; default any loopback host (localhost, 127.0.0.1, ::1). */
  redirectOrigins?: string[];
  logger?: Logger;
}

export interface DevOAuthServer {
  /** Base URL, e.g. http://127.0.0.1:8084. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

const CODE_TTL_MS = 10 * 60_000;
const TOKEN_TTL_MS = 60 * 60_000;
const MAX_BODY = 16 * 1024;

/** Throws when NODE_ENV is production: a server where any name logs in must never run there. */
export function refuseInProduction(): void {
  if (process.env.NODE_ENV === 'production') {
    throw new Error('the dev OAuth2 server lets anyone log in and refuses to start with NODE_ENV=production');
  }
}

/** Starts the server; resolves once it listens. */
export async function startDevOAuthServer(opts: DevOAuthServerOptions = {}): Promise<DevOAuthServer> {
  refuseInProduction();
  const log = opts.logger ?? noopLogger;
  const host = opts.host ?? '127.0.0.1';
  const codes = new Expiring<{ user: string; redirectURI: string; clientId: string; challenge?: string }>(CODE_TTL_MS, Date.now);
  const tokens = new Expiring<{ user: string }>(TOKEN_TTL_MS, Date.now);
  let base = '';

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      const tooLarge = (err as { status?: number }).status === 413;
      if (!tooLarge) log.error(`dev oauth server: ${(err as Error).message}`);
      if (!res.headersSent) send(res, tooLarge ? 413 : 500, 'text/plain', tooLarge ? 'request body too large\n' : 'internal error\n');
      else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://dev.invalid');
    const body = req.method === 'POST' ? await readForm(req) : new URLSearchParams();
    switch (url.pathname) {
      case '/login/oauth/authorize':
        return authorize(url, body, res);
      case '/login/oauth/access_token':
        return req.method === 'POST' ? accessToken(req, body, res) : send(res, 405, 'text/plain', 'POST only\n');
      case '/user':
        return userInfo(req, res);
      case '/avatar':
        return send(res, 200, 'image/png', identicon(url.searchParams.get('user') ?? '', 120), { 'Cache-Control': 'max-age=3600' });
      default:
        return send(res, 400, 'text/plain', 'unknown route\n');
    }
  }

  function authorize(url: URL, body: URLSearchParams, res: http.ServerResponse): void {
    const q = url.searchParams;
    const redirectURI = q.get('redirect_uri') ?? '';
    // A bad redirect_uri is answered here, never redirected to (RFC 6749 §4.1.2.1).
    if (!redirectAllowed(redirectURI, opts.redirectOrigins)) return send(res, 400, 'text/plain', 'redirect_uri is missing or not allowed\n');
    if (q.get('response_type') !== 'code' || !q.get('client_id')) return send(res, 400, 'text/plain', 'response_type=code and client_id are required\n');
    const method = q.get('code_challenge_method');
    if (q.get('code_challenge') && method !== 'S256') return send(res, 400, 'text/plain', 'only S256 PKCE is supported\n');
    const user = (body.get('username') ?? '').trim();
    if (!user || user.length > 64 || /[\u0000-\u001f\u007f]/.test(user)) return send(res, 200, 'text/html; charset=utf-8', loginPage(url.search), { 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'" });
    const code = randomId();
    codes.set(code, { user, redirectURI, clientId: q.get('client_id')!, challenge: q.get('code_challenge') ?? undefined });
    const target = new URL(redirectURI);
    target.searchParams.set('code', code);
    const state = q.get('state');
    if (state) target.searchParams.set('state', state);
    log.info(`dev oauth server: ${JSON.stringify(user)} logged in`);
    res.writeHead(302, { Location: target.href, 'Content-Length': 0 }).end();
  }

  function accessToken(req: http.IncomingMessage, body: URLSearchParams, res: http.ServerResponse): void {
    const fail = (error: string) => send(res, 400, 'application/json', JSON.stringify({ error }) + '\n');
    if (body.get('grant_type') !== 'authorization_code') return fail('unsupported_grant_type');
    const code = body.get('code') ?? '';
    const grant = codes.take(code);
    if (!grant) return fail('invalid_grant');
    if (body.get('redirect_uri') !== grant.redirectURI) return fail('invalid_grant');
    const clientId = body.get('client_id') ?? basicUser(req.headers.authorization);
    if (clientId && clientId !== grant.clientId) return fail('invalid_client');
    if (grant.challenge) {
      const verifier = body.get('code_verifier') ?? '';
      const expected = Buffer.from(grant.challenge);
      const got = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
      if (expected.length !== got.length || !timingSafeEqual(expected, got)) return fail('invalid_grant');
    }
    const accessToken = randomId();
    tokens.set(accessToken, { user: grant.user });
    send(res, 200, 'application/json', JSON.stringify({ access_token: accessToken, token_type: 'bearer', expires_in: TOKEN_TTL_MS / 1000, scope: 'user:email' }) + '\n', { 'Cache-Control': 'no-store' });
  }

  function userInfo(req: http.IncomingMessage, res: http.ServerResponse): void {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    const entry = m ? tokens.get(m[1]!) : undefined;
    if (!entry) return send(res, 401, 'application/json', JSON.stringify({ error: 'invalid_token' }) + '\n');
    const name = entry.user;
    const email = opts.emailFunc ? opts.emailFunc(name) : opts.emailDomain ? `${name}@${opts.emailDomain}` : undefined;
    const user = { id: name, name, picture: `${base}/avatar?user=${encodeURIComponent(name)}`, ...(email ? { email } : {}) };
    send(res, 200, 'application/json', JSON.stringify(user) + '\n');
  }

  server.listen(opts.port ?? 8084, host);
  await Promise.race([once(server, 'listening'), once(server, 'error').then(([err]) => Promise.reject(err))]);
  const port = (server.address() as AddressInfo).port;
  base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log.warn(`*** DEV OAUTH2 SERVER listening on ${base}: ANY user name logs in. Development only, never in production. ***`);
  let closing: Promise<void> | undefined;
  return {
    url: base,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Absolute http(s) redirect URIs without credentials or fragment, on an allowed origin. */
function redirectAllowed(value: string, origins: readonly string[] | undefined): boolean {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return false;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.username || u.password || u.hash) return false;
  if (origins) return origins.includes(u.origin);
  const h = u.hostname;
  return h === 'localhost' || h.endsWith('.localhost') || h === '127.0.0.1' || h === '[::1]';
}

function basicUser(header: string | undefined): string | undefined {
  const m = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return decodeURIComponent(i < 0 ? decoded : decoded.slice(0, i));
}

async function readForm(req: http.IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams((await readBody(req, MAX_BODY)).toString('utf8'));
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'X-Content-Type-Options': 'nosniff', ...headers });
  res.end(body);
}

const escapeHTML = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function loginPage(search: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Dev OAuth2 login</title>
<style>body{font:16px sans-serif;max-width:26em;margin:4em auto}p.warn{color:#b00}input,button{font-size:1em}</style></head>
<body><h1>Dev OAuth2 server</h1>
<p class="warn">Development only: any user name logs in.</p>
<form method="post" action="/login/oauth/authorize${escapeHTML(search)}">
<label>User name <input name="username" value="dev_user" autofocus required maxlength="64"></label>
<button type="submit">Log in</button>
</form></body></html>
`;
}
