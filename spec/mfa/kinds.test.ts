/**
 * The second factor gates every first-factor kind the same way (issue #33): the JSON logins here
 * (direct, Telegram, passkey), the redirect logins in kinds-redirect.test.ts; the checks themselves are
 * proveGated() in fixtures.ts. Each kind logs in over real HTTP against a real peer on 127.0.0.1.
 */
import test, { type ExecutionContext } from 'ava';
import type { ProviderEntry } from '../../lib/index.js';
import { sha1 } from '../../lib/user.js';
import { Client } from '../helpers/http.js';
import { SoftAuthenticator } from '../helpers/webauthn.js';
import { BOT_TOKEN, startFakeBotApi } from '../helpers/telegram.js';
import { ALICE } from '../telegram/fixtures.js';
import { passwordLogin, proveGated, startMfaApp, type GatedKind, type MfaApp } from './fixtures.js';

const quiet = { info() {}, warn() {}, error() {} };

/** An MFA app with `providers`, stopped at teardown. */
async function mfaApp(t: ExecutionContext, providers: ProviderEntry[]): Promise<MfaApp> {
  const app = await startMfaApp({ logger: quiet }, providers);
  t.teardown(() => app.close());
  return app;
}

const direct = {
  kind: 'direct',
  name: 'direct',
  checker: (user: string, pw: string) => pw === `${user}-pw`,
} as ProviderEntry;

/** POSTs `path` and answers its JSON, failing loudly on anything but `status`. */
async function postJSON(c: Client, path: string, body: unknown, status: number): Promise<any> {
  const res = await c.fetch(path, { method: 'POST', headers: c.xsrf(), json: body });
  if (res.status !== status) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const kinds: Record<string, (t: ExecutionContext) => Promise<GatedKind>> = {
  async direct(t) {
    const app = await mfaApp(t, [direct]);
    return {
      app,
      provider: 'direct',
      amr: 'pwd',
      userId: `direct_${sha1('alice')}`,
      redirects: false,
      login: (c) => passwordLogin(c, 'alice'),
    };
  },

  async telegram(t) {
    const api = await startFakeBotApi();
    t.teardown(() => api.close());
    const app = await mfaApp(t, [
      {
        kind: 'telegram',
        name: 'telegram',
        token: BOT_TOKEN,
        apiRoot: api.apiRoot,
        pollTimeout: 1,
        backoff: { min: 20, max: 200 },
      } as ProviderEntry,
    ]);
    const login = async (c: Client) => {
      const opened = await c.fetch('/auth/telegram/login');
      if (opened.status !== 200) throw new Error(`telegram login: ${opened.status} ${await opened.text()}`);
      const { token } = (await opened.json()) as { token: string };
      // The bot's answer to this Start (not one to an earlier login) says the request is confirmed.
      const earlier = api.sent.filter((m) => m.chat_id === ALICE.id).length;
      api.pressStart(ALICE, token);
      await api.nextMessage(ALICE.id, earlier);
      return c.fetch(`/auth/telegram/login?token=${token}`);
    };
    return {
      app,
      provider: 'telegram',
      amr: 'fed',
      userId: `telegram_${sha1(String(ALICE.id))}`,
      redirects: false,
      login,
    };
  },

  async passkey(t) {
    // A software authenticator signs for any relying party id: the app's own host, 127.0.0.1, will do.
    const app = await mfaApp(t, [
      direct,
      { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' } as ProviderEntry,
    ]);
    const authenticator = new SoftAuthenticator(app.url, '127.0.0.1');
    const owner = new Client(app.url);
    if ((await passwordLogin(owner, 'alice')).status !== 200) throw new Error('direct login failed');
    const created = authenticator.register(await postJSON(owner, '/auth/passkey/register/options', {}, 200));
    await postJSON(owner, '/auth/passkey/register', created, 201);
    // Adding the passkey ended alice's other sessions issued up to that millisecond, at once: the passkey's
    // logins below come a second later on the app's clock, as a person's would.
    app.clock.advance(1000);
    const login = async (c: Client) => {
      const options = await postJSON(c, '/auth/passkey/login/options', {}, 200);
      return c.fetch('/auth/passkey/login', { method: 'POST', json: authenticator.assert(options) });
    };
    return { app, provider: 'passkey', amr: 'hwk', userId: `direct_${sha1('alice')}`, redirects: false, login };
  },
};

for (const [name, kind] of Object.entries(kinds)) {
  test(`${name}: the login is gated, 200 mfa_required and only the partial cookie, which opens nothing else; the code starts the ${name} session; no replay; expiry at 5 min`, async (t) => {
    await proveGated(t, await kind(t));
  });
}
