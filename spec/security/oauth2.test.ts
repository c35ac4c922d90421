/**
 * RFC 9700 attacks on the OAuth2 flow, over real HTTP with a provider stand-in on 127.0.0.1: state
 * forged, reused (a callback replayed with its captured handshake cookie) and missing; PKCE downgrade
 * (no challenge, `plain`, a verifier that does not match).
 */
import { createHash } from 'node:crypto';
import test from 'ava';
import { Client, startApp, type TestApp } from '../helpers/http.js';
import { startLogin } from '../oauth2/fixtures.js';
import { startStandin, type Standin } from '../oauth2/standin.js';

let standin: Standin;
let app: TestApp;

test.before(async () => {
  standin = await startStandin({ login: 'octo', id: 7, name: 'Octo' });
  app = await startApp({
    secret: 'security-suite-secret-0123456789',
    providers: [{ name: 'github', cid: 'c', csecret: 's', ...standin.endpoints() }],
  });
});
test.after.always(async () => {
  await app.close();
  await standin.close();
});

async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { code: string }).code;
}

test('state forged: a callback whose state differs from the handshake is refused and sets nothing', async (t) => {
  const c = new Client(app.url);
  await startLogin(c, 'github');
  const res = await c.fetch(`/auth/github/callback?code=x&state=${'0'.repeat(40)}`);
  t.is(res.status, 403);
  t.is(await codeOf(res), 'state_mismatch');
  t.false(res.headers.getSetCookie().some((h) => h.startsWith('JWT=')));
});

test('state reused: the second callback with the same code, state and handshake cookie is refused by the server', async (t) => {
  const c = new Client(app.url);
  const state = (await startLogin(c, 'github')).searchParams.get('state')!;
  // Sent explicitly both times: the first callback clears the cookie in the jar, a replaying attacker still has it.
  const cookie = `JWT-handshake=${c.jar.get('JWT-handshake')!}`;
  const code = `reused-${state.slice(0, 8)}`;
  const url = `${app.url}/auth/github/callback?code=${code}&state=${state}`;
  const first = await fetch(url, { headers: { cookie }, redirect: 'manual' });
  t.is(first.status, 200);
  const again = await fetch(url, { headers: { cookie }, redirect: 'manual' });
  t.is(again.status, 403);
  t.is(await codeOf(again), 'invalid_handshake');
  t.false(
    again.headers.getSetCookie().some((h) => h.startsWith('JWT=') || h.startsWith('XSRF-TOKEN=')),
    'no session',
  );
  // The stand-in accepts any code twice, so only the server's refusal stands between the replay and a second login.
  t.is(standin.seen.filter((s) => s.path === '/token' && s.body.get('code') === code).length, 1);
});

test('state missing: no handshake cookie, or no state parameter, is refused', async (t) => {
  const noCookie = await new Client(app.url).fetch('/auth/github/callback?code=x&state=abc');
  t.is(noCookie.status, 403);
  const c = new Client(app.url);
  await startLogin(c, 'github');
  t.is((await c.fetch('/auth/github/callback?code=x')).status, 403);
});

test('state from another browser: a victim cannot be made to complete the attacker’s login', async (t) => {
  const attacker = new Client(app.url);
  const state = (await startLogin(attacker, 'github')).searchParams.get('state')!;
  const victim = new Client(app.url);
  await startLogin(victim, 'github');
  const res = await victim.fetch(`/auth/github/callback?code=attacker-code&state=${state}`);
  t.is(res.status, 403);
});

test.serial(
  'PKCE: every login sends a fresh S256 challenge and the matching verifier; never plain, never missing',
  async (t) => {
    const challenges = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const c = new Client(app.url);
      const authorize = await startLogin(c, 'github');
      t.is(authorize.searchParams.get('code_challenge_method'), 'S256');
      const challenge = authorize.searchParams.get('code_challenge')!;
      t.regex(challenge, /^[A-Za-z0-9_-]{43}$/);
      challenges.add(challenge);
      // A code of this login's own, to find its token request among those the stand-in saw.
      const code = `pkce-${i}-${challenge.slice(0, 8)}`;
      t.is(
        (await c.fetch(`/auth/github/callback?code=${code}&state=${authorize.searchParams.get('state')}`)).status,
        200,
      );
      const verifier = standin.seen
        .find((s) => s.path === '/token' && s.body.get('code') === code)!
        .body.get('code_verifier')!;
      t.regex(verifier, /^[A-Za-z0-9._~-]{43,128}$/);
      t.is(createHash('sha256').update(verifier).digest('base64url'), challenge, 'the verifier proves the challenge');
    }
    t.is(challenges.size, 3);
  },
);

test('PKCE downgrade at our own authorization server: plain and a missing or wrong verifier are refused', async (t) => {
  const { startDevOAuthServer } = await import('../../lib/providers/dev.js');
  const server = await startDevOAuthServer({ host: '127.0.0.1', port: 0, redirectOrigins: ['http://127.0.0.1:1'] });
  t.teardown(() => server.close());
  const redirect = encodeURIComponent('http://127.0.0.1:1/auth/dev/callback');
  const plain = await fetch(
    `${server.url}/login/oauth/authorize?response_type=code&client_id=x&state=s&code_challenge=abc&code_challenge_method=plain&redirect_uri=${redirect}`,
    { redirect: 'manual' },
  );
  t.is(plain.status, 400);
  const verifier = 'v'.repeat(43);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const codeFor = async () => {
    const res = await fetch(
      `${server.url}/login/oauth/authorize?response_type=code&client_id=x&state=s&code_challenge=${challenge}&code_challenge_method=S256&redirect_uri=${redirect}`,
      {
        method: 'POST',
        body: new URLSearchParams({ username: 'u' }),
        redirect: 'manual',
      },
    );
    return new URL(res.headers.get('location')!).searchParams.get('code')!;
  };
  const exchange = (code: string, v?: string) =>
    fetch(`${server.url}/login/oauth/access_token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        client_id: 'x',
        redirect_uri: decodeURIComponent(redirect),
        ...(v === undefined ? {} : { code_verifier: v }),
      }),
    });
  t.is((await exchange(await codeFor())).status, 400, 'no verifier');
  t.is((await exchange(await codeFor(), 'w'.repeat(43))).status, 400, 'wrong verifier');
  t.is((await exchange(await codeFor(), verifier)).status, 200, 'control: the right verifier');
});
