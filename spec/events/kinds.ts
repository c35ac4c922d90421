/**
 * Every login kind an app can be configured with, against the real peers the second-factor tests log
 * in through (spec/mfa/kinds*.test.ts, built from the same fixtures): a login of the kind from a
 * browser-like client, and one refusal of the kind's own making. The passkey kind, whose login needs
 * a browser's authenticator, is in login-kinds.test.ts with Chromium.
 */
import type { ExecutionContext } from 'ava';
import { emailSender } from '../../lib/index.js';
import { devEndpoints, startDevOAuthServer } from '../../lib/providers/oauth2-server/dev.js';
import { startAppleStandin, teamKey, CLIENT_ID, KEY_ID, TEAM_ID } from '../apple/standin.js';
import { Client } from '../helpers/http.js';
import { startSmtp } from '../helpers/smtp.js';
import { BOT_TOKEN, startFakeBotApi } from '../helpers/telegram.js';
import { kindApp, oauth2Entry, oidcClient, oidcPeer, passwordLogin, type MfaApp } from '../mfa/fixtures.js';

export { kindApp, quiet } from '../mfa/fixtures.js';
import { devAuthorize, startLogin } from '../oauth2/fixtures.js';
import { checker, signIn } from '../server/fixtures.js';
import { ALICE } from '../telegram/fixtures.js';
import { TEMPLATE, tokenIn } from '../verified/fixtures.js';

/** A kind as the event tests drive it. */
export interface EventKind {
  app: MfaApp;
  provider: string;
  /** The provider's kind, as events name it. */
  kind: string;
  /** The session's `amr`. */
  amr: string[];
  /** A whole login on `c`; its last answer. */
  login(c: Client): Promise<Response>;
  /** The error code of the kind's refusal. */
  refusal: string;
  /** A login the kind refuses (after login() ran once); its answer and the user name typed, when one was. */
  refuse(c: Client): Promise<{ res: Response; userName?: string }>;
}

/** An OAuth2 login through the peer's page (`authorize` drives it as alice): the callback's answer. */
async function oauth2Login(c: Client, provider: string, authorize: (url: URL) => Promise<string>): Promise<Response> {
  return c.fetch(await authorize(await startLogin(c, provider)));
}

/** A callback whose state is not the handshake's (a forged or mixed-up redirect), after a real start. */
async function forgedState(c: Client, provider: string): Promise<{ res: Response }> {
  await startLogin(c, provider);
  return { res: await c.fetch(`/auth/${provider}/callback?code=forged-code&state=${'0'.repeat(40)}`) };
}

/** An OAuth2-family kind: its login through `authorize`, its refusal a forged state. */
function redirectKind(
  app: MfaApp,
  provider: string,
  kind: string,
  authorize: (url: URL) => Promise<string>,
): EventKind {
  return {
    app,
    provider,
    kind,
    amr: ['fed'],
    refusal: 'state_mismatch',
    login: (c) => oauth2Login(c, provider, authorize),
    refuse: (c) => forgedState(c, provider),
  };
}

const appleKey = teamKey();

export const KINDS: Record<string, (t: ExecutionContext) => Promise<EventKind>> = {
  async direct(t) {
    const app = await kindApp(t, [
      { kind: 'direct', name: 'direct', checker: (user: string, pw: string) => pw === `${user}-pw` },
    ]);
    const refuse = async (c: Client) => ({
      res: await c.fetch('/auth/direct/login', { method: 'POST', json: { user: 'alice', passwd: 'not-her-password' } }),
      userName: 'alice',
    });
    return {
      app,
      provider: 'direct',
      kind: 'direct',
      amr: ['pwd'],
      refusal: 'bad_credentials',
      login: (c) => passwordLogin(c, 'alice'),
      refuse,
    };
  },

  async telegram(t) {
    const api = await startFakeBotApi();
    t.teardown(() => api.close());
    const app = await kindApp(t, [
      {
        kind: 'telegram',
        name: 'telegram',
        token: BOT_TOKEN,
        apiRoot: api.apiRoot,
        pollTimeout: 1,
        backoff: { min: 20, max: 200 },
      },
    ]);
    const login = async (c: Client) => {
      const { token } = (await (await c.fetch('/auth/telegram/login')).json()) as { token: string };
      const earlier = api.sent.filter((m) => m.chat_id === ALICE.id).length;
      api.pressStart(ALICE, token);
      await api.nextMessage(ALICE.id, earlier);
      return c.fetch(`/auth/telegram/login?token=${token}`);
    };
    // A request the bot never handed out.
    const refuse = async (c: Client) => ({ res: await c.fetch(`/auth/telegram/login?token=${'f'.repeat(40)}`) });
    return { app, provider: 'telegram', kind: 'telegram', amr: ['fed'], refusal: 'request_not_found', login, refuse };
  },

  async verified(t) {
    const smtp = await startSmtp();
    t.teardown(() => smtp.close());
    const sender = emailSender({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      from: 'login@example.com',
      subject: 'Confirm your login',
      timeout: '30s',
    });
    const app = await kindApp(t, [{ kind: 'verified', name: 'email', template: TEMPLATE, sender }]);
    let spent = '';
    const login = async (c: Client) => {
      const asked = await c.fetch('/auth/email/login?user=alice&address=alice@example.com');
      if (asked.status !== 200) throw new Error(`verified step 1: ${asked.status} ${await asked.text()}`);
      spent = tokenIn((await smtp.next()).mail.text);
      return c.fetch(`/auth/email/login?token=${spent}`, { method: 'POST' });
    };
    // The link of the login that already happened, confirmed again.
    const refuse = async (c: Client) => ({
      res: await c.fetch(`/auth/email/login?token=${spent}`, { method: 'POST' }),
    });
    return { app, provider: 'email', kind: 'verified', amr: ['email'], refusal: 'confirmation_used', login, refuse };
  },

  async dev(t) {
    const app = await kindApp(t, [{ kind: 'dev', port: 0 }]);
    return redirectKind(app, 'dev', 'dev', (url) => devAuthorize(url, 'alice'));
  },

  async social(t) {
    const peer = await startDevOAuthServer({ port: 0 });
    t.teardown(() => peer.close());
    const { authURL, tokenURL, infoURL } = devEndpoints(peer.url);
    const app = await kindApp(t, [
      { name: 'facebook', cid: 'fb-cid', csecret: 'fb-secret', endpoint: { authURL, tokenURL }, infoURL },
    ]);
    return redirectKind(app, 'facebook', 'social', (url) => devAuthorize(url, 'alice'));
  },

  async oauth2(t) {
    const idp = await oidcPeer(t);
    const app = await kindApp(t, [oauth2Entry(idp.issuer)]);
    idp.setup([oidcClient(app, 'corp2')]);
    return redirectKind(app, 'corp2', 'oauth2', (url) => idp.authorize(url, 'alice'));
  },

  async oidc(t) {
    const idp = await oidcPeer(t);
    const app = await kindApp(t, [
      {
        kind: 'oidc',
        name: 'corp',
        issuer: idp.issuer,
        cid: 'corp-client',
        csecret: 'corp-secret',
        scopes: ['openid', 'profile'],
      },
    ]);
    idp.setup([oidcClient(app, 'corp')]);
    return redirectKind(app, 'corp', 'oidc', (url) => idp.authorize(url, 'alice'));
  },

  async apple(t) {
    const apple = await startAppleStandin(appleKey.publicKey);
    t.teardown(() => apple.close());
    const app = await kindApp(t, [
      {
        kind: 'apple',
        clientId: CLIENT_ID,
        teamId: TEAM_ID,
        keyId: KEY_ID,
        privateKey: appleKey.pem,
        endpoint: apple.endpoint(),
      },
    ]);
    // Apple's page posts the code back to the callback (form_post), as the browser would submit it.
    const applePage = async (c: Client) => {
      const start = await c.fetch('/auth/apple/login');
      if (start.status !== 302) throw new Error(`apple login: ${start.status} ${await start.text()}`);
      const page = await (await fetch(start.headers.get('location')!)).text();
      const fields: Record<string, string> = {};
      for (const m of page.matchAll(/name="(\w+)" value="([^"]*)"/g))
        fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)));
      return { path: new URL(/action="([^"]+)"/.exec(page)![1]!).pathname, fields };
    };
    const login = async (c: Client) => {
      const { path, fields } = await applePage(c);
      return c.fetch(path, { method: 'POST', form: fields });
    };
    const refuse = async (c: Client) => {
      const { path, fields } = await applePage(c);
      return { res: await c.fetch(path, { method: 'POST', form: { ...fields, state: '0'.repeat(40) } }) };
    };
    return { app, provider: 'apple', kind: 'apple', amr: ['fed'], refusal: 'state_mismatch', login, refuse };
  },

  async server(t) {
    const app = await kindApp(t, [{ kind: 'server', url: 'http://127.0.0.1:0', checker }]);
    // A new browser at the server each time: its sign-in page asks for the password again.
    return redirectKind(
      app,
      'server',
      'server',
      async (url) => (await signIn(new Client(url.origin), url.href, 'alice', 'wonderland')).href,
    );
  },
};
