/**
 * Sessions per device over real HTTP: browsers that each send their own User-Agent, an app with a
 * `direct` provider on a hand-moved clock, and the session list's routes as a page script calls them.
 */
import type { ExecutionContext } from 'ava';
import type { AuthKoaOptions } from '../../lib/index.js';
import { Client, decodeJwt, manualClock, startApp, type TestApp } from '../helpers/http.js';
import { SoftAuthenticator } from '../helpers/webauthn.js';

export const SECRET = 'sessions-test-secret-0123456789abcdef';
export const MIN = 60_000;
/** The rig's tokenDuration: a request this long after a token's issue refreshes it. */
export const TOKEN_MS = 10 * MIN;

/** Real User-Agent headers, and the label the session list gives each. */
export const UA = {
  chromeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
  edgeWindows:
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.2478.51',
} as const;

export const LABEL: Record<keyof typeof UA, string> = {
  chromeMac: 'Chrome on macOS',
  firefoxLinux: 'Firefox on Linux',
  safariIphone: 'Safari on iOS',
  edgeWindows: 'Edge on Windows',
};

/** A Client that sends its browser's User-Agent with every request, as a real browser does. */
export class Browser extends Client {
  constructor(
    base: string,
    readonly userAgent: string,
  ) {
    super(base);
  }

  override fetch(path: string, init: Parameters<Client['fetch']>[1] = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (!headers.has('user-agent')) headers.set('user-agent', this.userAgent);
    return super.fetch(path, { ...init, headers });
  }
}

/** One logged-in browser: its client, its session id (the token's `sid`) and its user's id. */
export interface Device {
  c: Browser;
  sid: string;
  userId: string;
}

/** One entry of `GET /auth/sessions`. */
export interface SessionView {
  sid: string;
  current: boolean;
  provider: string;
  device: string;
  created: string;
  lastSeen: string;
}

export interface SessionsApp extends TestApp {
  clock: ReturnType<typeof manualClock>;
  /** Logs `user` in (password `<user>-pw`) from a new browser with `userAgent`. */
  login(user?: string, userAgent?: string): Promise<Device>;
}

/** The direct provider the rigs use: the password of `alice` is `alice-pw`. */
export const DIRECT = {
  kind: 'direct',
  name: 'direct',
  checker: (user: string, pw: string) => pw === `${user}-pw`,
} as const;

export const quiet = { info() {}, warn() {}, error() {} };

/** An app with a direct provider, tokenDuration TOKEN_MS and a clock by hand (or `opts.clock`); closed at teardown. */
export async function startSessionsApp(t: ExecutionContext, opts: Partial<AuthKoaOptions> = {}): Promise<SessionsApp> {
  const clock = (opts.clock as ReturnType<typeof manualClock> | undefined) ?? manualClock();
  const app = await startApp({
    secret: SECRET,
    tokenDuration: TOKEN_MS,
    logger: quiet,
    providers: [DIRECT],
    ...opts,
    clock,
  } as AuthKoaOptions);
  t.teardown(() => app.close());
  const login = async (user = 'alice', userAgent: string = UA.chromeMac): Promise<Device> => {
    const c = new Browser(app.url, userAgent);
    const res = await c.fetch('/auth/direct/login', { method: 'POST', json: { user, passwd: `${user}-pw` } });
    if (res.status !== 200) throw new Error(`login of ${user}: ${res.status} ${await res.text()}`);
    const jwt = c.jar.get('JWT');
    if (!jwt) throw new Error(`login of ${user}: no session cookie`);
    return { c, sid: decodeJwt(jwt).sid, userId: ((await res.json()) as { id: string }).id };
  };
  return Object.assign(app, { clock, login });
}

/** A protected request (GET /private) as a page script sends it. */
export function me(c: Client): Promise<Response> {
  return c.fetch('/private', { headers: c.xsrf() });
}

/** `GET /auth/sessions`, failing loudly on anything but 200. */
export async function listOf(c: Client): Promise<SessionView[]> {
  const res = await c.fetch('/auth/sessions', { headers: c.xsrf() });
  if (res.status !== 200) throw new Error(`GET /auth/sessions: ${res.status} ${await res.text()}`);
  return (await res.json()) as SessionView[];
}

/** `DELETE /auth/sessions/<sid>`. */
export function endSession(c: Client, sid: string, headers: Record<string, string> = {}): Promise<Response> {
  return c.fetch(`/auth/sessions/${encodeURIComponent(sid)}`, {
    method: 'DELETE',
    headers: { ...c.xsrf(), ...headers },
  });
}

/** `POST /auth/sessions/revoke-others`. */
export function revokeOthers(c: Client, headers: Record<string, string> = {}): Promise<Response> {
  return c.fetch('/auth/sessions/revoke-others', { method: 'POST', headers: { ...c.xsrf(), ...headers } });
}

/** The `{"error","code"}` body's code, checking the answer is JSON. */
export async function codeOf(res: Response): Promise<string | undefined> {
  if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
    throw new Error(`not JSON: ${res.status} ${res.headers.get('content-type')}`);
  return ((await res.json()) as { code?: string }).code;
}

/** A browser holding a copy of `c`'s cookies: what an ended session's old cookie looks like when replayed. */
export function copyOf(c: Browser): Browser {
  const other = new Browser(c.base, c.userAgent);
  for (const [k, v] of c.jar) other.jar.set(k, v);
  return other;
}

/** Registers a new passkey for `c`'s user over HTTP (options, then the attestation); answers its credential id. */
export async function registerPasskey(c: Client): Promise<string> {
  const authenticator = new SoftAuthenticator(c.base, new URL(c.base).hostname);
  const options = await c.fetch('/auth/passkey/register/options', { method: 'POST', headers: c.xsrf(), json: {} });
  if (options.status !== 200) throw new Error(`register/options: ${options.status} ${await options.text()}`);
  const created = await c.fetch('/auth/passkey/register', {
    method: 'POST',
    headers: c.xsrf(),
    json: authenticator.register((await options.json()) as { challenge: string; user: { id: string } }),
  });
  if (created.status !== 201) throw new Error(`register: ${created.status} ${await created.text()}`);
  return ((await created.json()) as { id: string }).id;
}
