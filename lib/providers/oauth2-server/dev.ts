import type http from 'node:http';
import { noopLogger, type Logger } from '../../logger.js';
import { readBody } from '../../http/body.js';
import { identicon } from '../../avatar/identicon.js';
import { GrantBook } from './grants.js';
import { basicText, firstValues, formDecoded, withParams } from './http.js';
import { escapeHTML } from './page.js';
import { listen, MAX_FORM } from './listener.js';

/**
 * The development-only OAuth2 server, as the original shipped one: any user name logs in through a form. It exists
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
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'";

/** A running dev server as its route handlers see it. */
interface DevServer {
  opts: DevOAuthServerOptions;
  log: Logger;
  /** Codes and tokens stand for a user name. */
  grants: GrantBook<string>;
  /** Base URL, known once the server listens. */
  base: string;
}

/** Throws when NODE_ENV is production: a server where any name logs in must never run there. */
export function refuseInProduction(): void {
  if (process.env.NODE_ENV === 'production') {
    throw new Error('the dev OAuth2 server lets anyone log in and refuses to start with NODE_ENV=production');
  }
}

/** The endpoints of a dev server at `url` (GitHub's paths). */
export function devEndpoints(url: string): { authURL: string; tokenURL: string; infoURL: string } {
  return {
    authURL: `${url}/login/oauth/authorize`,
    tokenURL: `${url}/login/oauth/access_token`,
    infoURL: `${url}/user`,
  };
}

/** Starts the server; resolves once it listens. */
export async function startDevOAuthServer(opts: DevOAuthServerOptions = {}): Promise<DevOAuthServer> {
  refuseInProduction();
  const log = opts.logger ?? noopLogger;
  const host = opts.host ?? '127.0.0.1';
  const grants = new GrantBook<string>({
    codeTTL: CODE_TTL_MS,
    tokenTTL: TOKEN_TTL_MS,
    clock: Date.now,
    strict: false,
    log,
    label: 'dev oauth server',
  });
  const dev: DevServer = { opts, log, grants, base: '' };
  const listener = await listen((req, res) => answer(dev, req, res), opts.port ?? 8084, host);
  dev.base = `http://${host.includes(':') ? `[${host}]` : host}:${listener.port}`;
  log.warn(
    `*** DEV OAUTH2 SERVER listening on ${dev.base}: ANY user name logs in. Development only, never in production. ***`,
  );
  return { url: dev.base, port: listener.port, close: () => listener.close() };
}

/** Answers one request; a failure is a plain-text 413 or 500 (logged), or a dropped connection once answering began. */
function answer(dev: DevServer, req: http.IncomingMessage, res: http.ServerResponse): void {
  route(dev, req, res).catch((err) => {
    const tooLarge = (err as { status?: number }).status === 413;
    if (!tooLarge) dev.log.error(`dev oauth server: ${(err as Error).message}`);
    if (!res.headersSent)
      send(res, tooLarge ? 413 : 500, 'text/plain', tooLarge ? 'request body too large\n' : 'internal error\n');
    else res.destroy();
  });
}

async function route(dev: DevServer, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://dev.invalid');
  const body = req.method === 'POST' ? await readForm(req) : (Object.create(null) as Record<string, string>);
  switch (url.pathname) {
    case '/login/oauth/authorize':
      return authorize(dev, url, body, res);
    case '/login/oauth/access_token':
      return req.method === 'POST' ? accessToken(dev, req, body, res) : send(res, 405, 'text/plain', 'POST only\n');
    case '/user':
      return userInfo(dev, req, res);
    case '/avatar':
      return send(res, 200, 'image/png', identicon(url.searchParams.get('user') ?? '', 120), {
        'Cache-Control': 'max-age=3600',
      });
    default:
      return send(res, 400, 'text/plain', 'unknown route\n');
  }
}

/** The login form, and once a user name is posted to it, the code for that name sent to the client. */
function authorize(dev: DevServer, url: URL, body: Record<string, string>, res: http.ServerResponse): void {
  const q = url.searchParams;
  const redirectURI = q.get('redirect_uri') ?? '';
  // A bad redirect_uri is answered here, never redirected to (RFC 6749 §4.1.2.1).
  if (!redirectAllowed(redirectURI, dev.opts.redirectOrigins))
    return send(res, 400, 'text/plain', 'redirect_uri is missing or not allowed\n');
  const clientId = q.get('client_id');
  if (q.get('response_type') !== 'code' || !clientId)
    return send(res, 400, 'text/plain', 'response_type=code and client_id are required\n');
  const challenge = q.get('code_challenge') ?? undefined;
  if (!dev.grants.challengeAccepted(challenge, q.get('code_challenge_method') ?? undefined, false))
    return send(res, 400, 'text/plain', 'only S256 PKCE is supported\n');
  const user = (body.username ?? '').trim();
  if (!user || user.length > 64 || /[\u0000-\u001f\u007f]/.test(user))
    return send(res, 200, 'text/html; charset=utf-8', loginPage(url.search), { 'Content-Security-Policy': PAGE_CSP });
  const code = dev.grants.issueCode({ user, redirectURI, clientId, challenge });
  dev.log.info(`dev oauth server: ${JSON.stringify(user)} logged in`);
  res
    .writeHead(302, {
      Location: withParams(redirectURI, { code, state: q.get('state') || undefined }),
      'Content-Length': 0,
    })
    .end();
}

/** The token endpoint. Clients need no secret; one that names itself must be the one the code was issued to. */
function accessToken(
  dev: DevServer,
  req: http.IncomingMessage,
  body: Record<string, string>,
  res: http.ServerResponse,
): void {
  const result = dev.grants.exchange(body, {
    id: body.client_id ?? basicUser(req.headers.authorization),
    authenticated: false,
  });
  if ('error' in result) return send(res, 400, 'application/json', JSON.stringify({ error: result.error }) + '\n');
  const token = {
    access_token: result.token,
    token_type: 'bearer',
    expires_in: TOKEN_TTL_MS / 1000,
    scope: 'user:email',
  };
  send(res, 200, 'application/json', JSON.stringify(token) + '\n', { 'Cache-Control': 'no-store' });
}

/** The user a token stands for: id and name are the user name, the picture its identicon. */
function userInfo(dev: DevServer, req: http.IncomingMessage, res: http.ServerResponse): void {
  const grant = dev.grants.bearer(req.headers.authorization ?? '');
  if (!grant) return send(res, 401, 'application/json', JSON.stringify({ error: 'invalid_token' }) + '\n');
  const name = grant.user;
  const { emailFunc, emailDomain } = dev.opts;
  const email = emailFunc ? emailFunc(name) : emailDomain ? `${name}@${emailDomain}` : undefined;
  const user = {
    id: name,
    name,
    picture: `${dev.base}/avatar?user=${encodeURIComponent(name)}`,
    ...(email ? { email } : {}),
  };
  send(res, 200, 'application/json', JSON.stringify(user) + '\n');
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

/** The user part of an HTTP Basic header: the client id a client names there. */
function basicUser(header: string | undefined): string | undefined {
  const decoded = basicText(header ?? '');
  if (decoded === undefined) return undefined;
  const i = decoded.indexOf(':');
  return formDecoded(i < 0 ? decoded : decoded.slice(0, i));
}

async function readForm(req: http.IncomingMessage): Promise<Record<string, string>> {
  return firstValues(new URLSearchParams((await readBody(req, MAX_FORM)).toString('utf8')));
}

function send(
  res: http.ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(body);
}

function loginPage(search: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, \
initial-scale=1"><title>Dev OAuth2 login</title>
<style>body{font:16px sans-serif;max-width:26em;margin:4em \
auto}p.warn{color:#b00}input,button{font-size:1em}</style></head>
<body><h1>Dev OAuth2 server</h1>
<p class="warn">Development only: any user name logs in.</p>
<form method="post" action="/login/oauth/authorize${escapeHTML(search)}">
<label>User name <input name="username" value="dev_user" autofocus required maxlength="64"></label>
<button type="submit">Log in</button>
</form></body></html>
`;
}
