/**
 * Issue #37: nothing secret is in any event or log line. One app with every kind of activity (password
 * logins, a lock-out, a verified login, an OAuth2 login through the dev server, TOTP and recovery codes,
 * a passkey, a refresh, a logout, revocations) writes its audit file and logs every line to the test;
 * then every event and line is scanned for every secret the run used or was handed: passwords, the
 * session and XSRF cookies and their `jti`s, the confirmation token, the OAuth2 code and access token,
 * TOTP and recovery codes, the `secret` option and the TOTP secret.
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { emailSender, type AuthKoaOptions, type ProviderEntry } from '../../lib/index.js';
import { devEndpoints, startDevOAuthServer } from '../../lib/providers/oauth2-server/dev.js';
import { Client, decodeJwt, serve } from '../helpers/http.js';
import { startSmtp, type SmtpPeer } from '../helpers/smtp.js';
import { tempDir } from '../helpers/temp.js';
import { SECRET, appCode, enrollTotp, startMfaApp, verify, wrongCode, type MfaApp } from '../mfa/fixtures.js';
import { devAuthorize, startLogin } from '../oauth2/fixtures.js';
import { checker, signIn, submitLogin } from '../server/fixtures.js';
import { Browser, registerPasskey } from '../sessions/fixtures.js';
import { TEMPLATE, tokenIn } from '../verified/fixtures.js';
import { EVERY_EVENT_TYPE, UA, record } from './fixtures.js';

const PASSWORDS: Record<string, string> = { alice: 'pw-Alice-q7Rk2vX9wL', bob: 'pw-Bob-M3nT8zP1cQ' };
const CLIENT_SECRET = 'fb-client-secret-H6yW2eR9';

/** Every secret the run used or was handed, and what it is. */
const secrets = new Map<string, string>();

/** Keeps `values` as secrets of the kind `what`. */
function keep(what: string, ...values: string[]): void {
  for (const value of values) secrets.set(value, what);
}
keep('the secret option', SECRET);
keep('a client secret', CLIENT_SECRET);

/** A browser that keeps every cookie value it is sent, and every token's jti, as secrets. */
class Watched extends Browser {
  override async fetch(path: string, init: Parameters<Browser['fetch']>[1] = {}): Promise<Response> {
    const res = await super.fetch(path, init);
    for (const { value } of this.lastCookies) {
      if (!value) continue;
      keep('a cookie', value);
      if (/^[\w-]+\.[\w-]+\.[\w-]+$/.test(value) && typeof decodeJwt(value).jti === 'string')
        keep('a jti', decodeJwt(value).jti);
    }
    return res;
  }
}

/** A real forwarder in front of the dev server's token endpoint, keeping the access tokens it hands out. */
async function tokenTap(t: ExecutionContext, tokenURL: string): Promise<string> {
  const body = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
  const tap = await serve(async (req, res) => {
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => ['authorization', 'content-type', 'accept'].includes(k)),
    ) as Record<string, string>;
    const answer = await fetch(tokenURL, {
      method: req.method,
      headers,
      body: req.method === 'POST' ? await body(req) : undefined,
    });
    const text = await answer.text();
    const token = (JSON.parse(text) as { access_token?: string }).access_token;
    if (token) keep('an access token', token);
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(text);
  });
  t.teardown(() => tap.close());
  return tap.url;
}

async function login(c: Browser, user: string, passwd = PASSWORDS[user]!): Promise<Response> {
  keep('a password', passwd);
  return c.fetch('/auth/direct/login', { method: 'POST', json: { user, passwd } });
}

/** Five wrong passwords for carol: a lock-out; a sixth is refused. */
async function lockOut(app: MfaApp): Promise<void> {
  const c = new Watched(app.url, UA);
  for (let i = 0; i < 6; i++) await login(c, 'carol', `wrong-guess-${i}-Zx81kQ`);
}

async function verifiedLogin(app: MfaApp, smtp: SmtpPeer): Promise<void> {
  const c = new Watched(app.url, UA);
  await c.fetch('/auth/email/login?user=alice&address=alice@example.com');
  const token = tokenIn((await smtp.next()).mail.text);
  keep('a confirmation token', token);
  await c.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
  if (!c.jar.has('JWT')) throw new Error('verified login failed');
  await c.fetch(`/auth/email/login?token=${token}`, { method: 'POST' });
}

async function oauth2Login(app: MfaApp): Promise<void> {
  const c = new Watched(app.url, UA);
  const callback = new URL(await devAuthorize(await startLogin(c, 'facebook'), 'alice'));
  keep('an OAuth2 code', callback.searchParams.get('code')!);
  const r = await c.fetch(callback.pathname + callback.search);
  if (!c.jar.has('JWT')) throw new Error(`oauth2 login failed ${r.status} ${await r.text()}`);
}

/** A login through the local OAuth2 server's own page, after a wrong password there. */
async function serverLogin(app: MfaApp): Promise<void> {
  const c = new Watched(app.url, UA);
  const authorize = await startLogin(c, 'server');
  keep('a password', 'wonderland', 'wrong-server-pw-Jd72Lx');
  await submitLogin(new Client(authorize.origin), authorize.href, 'alice', 'wrong-server-pw-Jd72Lx');
  const callback = await signIn(new Client(authorize.origin), authorize.href, 'alice', 'wonderland');
  keep('an OAuth2 code', callback.searchParams.get('code')!);
  await c.fetch(callback.pathname + callback.search);
  if (!c.jar.has('JWT')) throw new Error('server login failed');
}

/** TOTP on for alice, logins with a code (after a wrong one) and a recovery code, new codes, TOTP off. */
async function secondFactor(app: MfaApp, c: Watched): Promise<void> {
  const { otpauthUrl, secret, recoveryCodes } = await enrollTotp(app, c);
  keep('the TOTP secret', secret);
  keep('a TOTP code', appCode(otpauthUrl, app.clock() - 30_000));
  for (const code of recoveryCodes) keep('a recovery code', code, code.replace(/-/g, ''));
  const second = new Watched(app.url, UA);
  await login(second, 'alice');
  const wrong = wrongCode(otpauthUrl, app.clock());
  const code = appCode(otpauthUrl, app.clock());
  keep('a TOTP code', wrong, code);
  await verify(second, { code: wrong });
  if ((await verify(second, { code })).status !== 200) throw new Error('totp login failed');
  const third = new Watched(app.url, UA);
  await login(third, 'alice');
  if ((await verify(third, { recoveryCode: recoveryCodes[0] })).status !== 200)
    throw new Error('recovery login failed');
  const fresh = (await (
    await third.fetch('/auth/mfa/recovery-codes', { method: 'POST', headers: third.xsrf() })
  ).json()) as { recoveryCodes: string[] };
  for (const newCode of fresh.recoveryCodes) keep('a recovery code', newCode, newCode.replace(/-/g, ''));
  if ((await third.fetch('/auth/mfa/totp', { method: 'DELETE', headers: third.xsrf() })).status !== 200)
    throw new Error('totp off failed');
}

/** Where `secret` appears in `text`: digits only as a whole number (a code inside a timestamp is not it). */
function leaks(text: string, secret: string): boolean {
  if (/^\d+$/.test(secret)) return new RegExp(`(?<!\\d)${secret}(?!\\d)`).test(text);
  return text.includes(secret);
}

async function startApp(t: ExecutionContext, audit: string, logs: string[]): Promise<{ app: MfaApp; smtp: SmtpPeer }> {
  const smtp = await startSmtp();
  t.teardown(() => smtp.close());
  const dev = await startDevOAuthServer({ port: 0 });
  t.teardown(() => dev.close());
  const { authURL, tokenURL, infoURL } = devEndpoints(dev.url);
  const line = (level: string) => (msg: string, fields?: unknown) =>
    logs.push(`${level} ${msg} ${JSON.stringify(fields ?? {})}`);
  const providers = [
    { kind: 'direct', name: 'direct', checker: (user: string, pw: string) => PASSWORDS[user] === pw },
    {
      kind: 'verified',
      name: 'email',
      template: TEMPLATE,
      sender: emailSender({
        host: '127.0.0.1',
        port: smtp.port,
        secure: false,
        from: 'login@example.com',
        subject: 'Login',
        timeout: '30s',
      }),
    },
    {
      name: 'facebook',
      cid: 'fb-cid',
      csecret: CLIENT_SECRET,
      endpoint: { authURL, tokenURL: await tokenTap(t, tokenURL) },
      infoURL,
    },
    { kind: 'passkey', rpName: 'events tests' },
    { kind: 'server', url: 'http://127.0.0.1:0', checker },
  ];
  const logger = { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
  const app = await startMfaApp(
    { logger, audit, tokenDuration: '10m' } as Partial<AuthKoaOptions>,
    providers as ProviderEntry[],
  );
  t.teardown(() => app.close());
  return { app, smtp };
}

test('no password, token, jti, code, recovery code or secret is in any event (listener or audit line) or log line of a run of every activity', async (t) => {
  const audit = join(tempDir(t), 'audit.log');
  const logs: string[] = [];
  const { app, smtp } = await startApp(t, audit, logs);
  const events = record(app.auth);

  const alice = new Watched(app.url, UA);
  const aliceId = ((await (await login(alice, 'alice')).json()) as { id: string }).id;
  await lockOut(app);
  await verifiedLogin(app, smtp);
  await oauth2Login(app);
  await serverLogin(app);
  await secondFactor(app, alice);
  const bob = new Watched(app.url, UA);
  await login(bob, 'bob');
  const passkey = await registerPasskey(bob);
  await bob.fetch(`/auth/passkey/${passkey}`, { method: 'DELETE', headers: bob.xsrf() });
  app.clock.advance(11 * 60_000);
  if ((await bob.fetch('/private', { headers: bob.xsrf() })).status !== 201) throw new Error('refresh failed');
  await bob.fetch('/auth/logout', { headers: bob.xsrf() });
  await app.auth.revokeSessions(aliceId);
  // Ended others at TOTP on and off, at the passkey's adding and removal; then the revocation.
  await events.until('session_revoked', 5);
  await app.auth.close();

  const lines = readFileSync(audit, 'utf8').trim().split('\n');
  t.deepEqual(
    [...new Set(lines.map((l) => JSON.parse(l).type as string))].sort(),
    [...EVERY_EVENT_TYPE].sort(),
    'every event type was fired and audited',
  );
  t.is(lines.length, events.all.length);
  t.true(logs.length > 0, 'something was logged');
  const kinds = [
    'the secret option',
    'a client secret',
    'a password',
    'a cookie',
    'a jti',
    'a confirmation token',
    'an OAuth2 code',
    'an access token',
    'the TOTP secret',
    'a TOTP code',
    'a recovery code',
  ];
  t.deepEqual([...new Set(secrets.values())].sort(), kinds.sort(), 'a secret of each kind was collected');
  const texts = [...lines, ...events.all.map((e) => JSON.stringify(e)), ...logs];
  const found = [...secrets]
    .filter(([secret]) => secret.length >= 6)
    .flatMap(([secret, what]) =>
      texts.filter((text) => leaks(text, secret)).map((text) => `${what} ${secret} in ${text}`),
    );
  t.deepEqual(found, []);
});
