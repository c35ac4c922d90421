/**
 * The second factor gates every first-factor kind the same way (issue #33): the logins that end a
 * browser navigation here (the verified link, dev, social, custom OAuth2, OIDC, Apple, the local
 * server), which are sent to the second-step page keeping `from`; the JSON ones in kinds.test.ts; the
 * checks are proveGated() in fixtures.ts. Every peer is real and listens on 127.0.0.1. The peers keep
 * their own time (oidc-provider and Apple's stand-in date their id_tokens, the dev server expires its
 * codes, by Date.now): the app's clock only moves ahead of theirs by the 30 s steps between codes, well
 * inside what their tokens allow, and the 5 minutes of the expiry check pass after the peer's last answer.
 */
import test, { type ExecutionContext } from 'ava';
import { emailSender } from '../../lib/index.js';
import { devEndpoints, startDevOAuthServer } from '../../lib/providers/oauth2-server/dev.js';
import { sha1 } from '../../lib/user.js';
import { startAppleStandin, teamKey, CLIENT_ID, KEY_ID, TEAM_ID } from '../apple/standin.js';
import { Client } from '../helpers/http.js';
import { startSmtp } from '../helpers/smtp.js';
import { devAuthorize, startLogin } from '../oauth2/fixtures.js';
import { checker, signIn } from '../server/fixtures.js';
import { TEMPLATE, tokenIn } from '../verified/fixtures.js';
import { kindApp, oauth2Entry, oidcClient, oidcPeer, proveGated, type GatedKind } from './fixtures.js';

const appleKey = teamKey();

/** The query asking a login to go to `from` afterwards ('' for none). */
const fromQuery = (from: string | undefined) => (from ? `from=${encodeURIComponent(from)}` : '');

/** An OAuth2 login of `provider` asking for `from`, through the peer's own page (`authorize` drives it as `alice`); the callback's answer. */
async function oauth2Login(
  c: Client,
  provider: string,
  from: string | undefined,
  authorize: (url: URL) => Promise<string>,
): Promise<Response> {
  return c.fetch(await authorize(await startLogin(c, provider, fromQuery(from))));
}

const kinds: Record<string, (t: ExecutionContext) => Promise<GatedKind>> = {
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
    const login = async (c: Client, from?: string) => {
      const asked = await c.fetch(`/auth/email/login?user=alice&address=alice@example.com&${fromQuery(from)}`);
      if (asked.status !== 200) throw new Error(`verified step 1: ${asked.status} ${await asked.text()}`);
      // The link in the mail, opened and confirmed (the confirm page's button POSTs it).
      return c.fetch(`/auth/email/login?token=${tokenIn((await smtp.next()).mail.text)}`, { method: 'POST' });
    };
    return {
      app,
      provider: 'email',
      amr: 'email',
      userId: `email_${sha1('alice@example.com')}`,
      redirects: true,
      login,
    };
  },

  async dev(t) {
    const app = await kindApp(t, [{ kind: 'dev', port: 0 }]);
    const login = (c: Client, from?: string) => oauth2Login(c, 'dev', from, (url) => devAuthorize(url, 'alice'));
    return { app, provider: 'dev', amr: 'fed', userId: 'alice', redirects: true, login };
  },

  async social(t) {
    // A catalog row (Facebook's user JSON: id, name) pointed at our dev server, which answers that shape.
    const peer = await startDevOAuthServer({ port: 0 });
    t.teardown(() => peer.close());
    const { authURL, tokenURL, infoURL } = devEndpoints(peer.url);
    const app = await kindApp(t, [
      { name: 'facebook', cid: 'fb-cid', csecret: 'fb-secret', endpoint: { authURL, tokenURL }, infoURL },
    ]);
    const login = (c: Client, from?: string) => oauth2Login(c, 'facebook', from, (url) => devAuthorize(url, 'alice'));
    return { app, provider: 'facebook', amr: 'fed', userId: `facebook_${sha1('alice')}`, redirects: true, login };
  },

  async oauth2(t) {
    const idp = await oidcPeer(t);
    const app = await kindApp(t, [oauth2Entry(idp.issuer)]);
    idp.setup([oidcClient(app, 'corp2')]);
    const login = (c: Client, from?: string) => oauth2Login(c, 'corp2', from, (url) => idp.authorize(url, 'alice'));
    return { app, provider: 'corp2', amr: 'fed', userId: `corp2_${sha1('alice')}`, redirects: true, login };
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
    const login = (c: Client, from?: string) => oauth2Login(c, 'corp', from, (url) => idp.authorize(url, 'alice'));
    return { app, provider: 'corp', amr: 'fed', userId: `corp_${sha1('alice')}`, redirects: true, login };
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
    const login = async (c: Client, from?: string) => {
      const start = await c.fetch(`/auth/apple/login?${fromQuery(from)}`);
      if (start.status !== 302) throw new Error(`apple login: ${start.status} ${await start.text()}`);
      // Apple's page posts the code back to the callback (form_post), as the browser would submit it.
      const page = await (await fetch(start.headers.get('location')!)).text();
      const action = /action="([^"]+)"/.exec(page)![1]!;
      const fields: Record<string, string> = {};
      for (const m of page.matchAll(/name="(\w+)" value="([^"]*)"/g))
        fields[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, d: string) => String.fromCharCode(Number(d)));
      return c.fetch(new URL(action).pathname, { method: 'POST', form: fields });
    };
    return {
      app,
      provider: 'apple',
      amr: 'fed',
      userId: `apple_${sha1(apple.script.sub)}`,
      redirects: true,
      landing: `${app.url}/`,
      login,
    };
  },

  async server(t) {
    const app = await kindApp(t, [{ kind: 'server', url: 'http://127.0.0.1:0', checker }]);
    // A new browser at the server each time: its sign-in page asks for the password again.
    const login = (c: Client, from?: string) =>
      oauth2Login(
        c,
        'server',
        from,
        async (url) => (await signIn(new Client(url.origin), url.href, 'alice', 'wonderland')).href,
      );
    return { app, provider: 'server', amr: 'fed', userId: 'alice', redirects: true, login };
  },
};

for (const [name, kind] of Object.entries(kinds)) {
  test(`${name}: the login is gated, 303 to the second-step page (keeping a permitted from), only the partial cookie, which opens nothing else; the code starts the ${name} session; no replay; expiry at 5 min`, async (t) => {
    await proveGated(t, await kind(t));
  });
}
