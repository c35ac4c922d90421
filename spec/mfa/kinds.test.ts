/**
 * The second factor gates every first-factor kind the same way (issue #33): the JSON logins here
 * (direct, Telegram, passkey), the redirect logins in kinds-redirect.test.ts; the checks themselves are
 * proveGated() in fixtures.ts. Each kind logs in over real HTTP against a real peer on 127.0.0.1.
 */
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type { ProviderEntry } from '../../lib/index.js';
import { sha1 } from '../../lib/user.js';
import { Client } from '../helpers/http.js';
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

const direct = { kind: 'direct', name: 'direct', checker: (user: string, pw: string) => pw === `${user}-pw` } as ProviderEntry;

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();

/** A value CBOR encodes (tiny-cbor's, through simplewebauthn's helpers). */
type CBOR = Parameters<typeof isoCBOR.encode>[0];

/**
 * A passkey authenticator in software, for logins without a browser: one P-256 key, a counter that moves
 * forward at every use, and the JSON a browser's WebAuthn call hands the page (@simplewebauthn/browser's
 * shape), with `none` attestation, user presence and verification flagged.
 */
class SoftAuthenticator {
  readonly #keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  readonly #id = randomBytes(16).toString('base64url');
  #counter = 0;
  #userHandle = '';

  constructor(
    private readonly origin: string,
    private readonly rpID: string,
  ) {}

  /** The answer to registration options: the credential's public key (COSE) in the attested data. */
  register(options: { challenge: string; user: { id: string } }) {
    this.#userHandle = options.user.id;
    const jwk = this.#keys.publicKey.export({ format: 'jwk' });
    const coordinate = (v: string | undefined) => new Uint8Array(Buffer.from(v!, 'base64url'));
    const cose = isoCBOR.encode(new Map<number, CBOR>([[1, 2], [3, -7], [-1, 1], [-2, coordinate(jwk.x)], [-3, coordinate(jwk.y)]]));
    const id = Buffer.from(this.#id, 'base64url');
    const length = Buffer.alloc(2);
    length.writeUInt16BE(id.length);
    // Flags UP | UV | AT; an all-zero AAGUID, as a `none` attestation gives.
    const authData = Buffer.concat([this.#authData(0x45), Buffer.alloc(16), length, id, cose]);
    const attestationObject = isoCBOR.encode(new Map<string, CBOR>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(authData)]]));
    return this.#credential({ clientDataJSON: this.#clientData('webauthn.create', options.challenge), attestationObject: Buffer.from(attestationObject).toString('base64url'), transports: ['internal'] });
  }

  /** The answer to authentication options: authenticator data and client data signed with the key. */
  assert(options: { challenge: string }) {
    const authenticatorData = this.#authData(0x05);
    const clientDataJSON = this.#clientData('webauthn.get', options.challenge);
    const signature = sign('sha256', Buffer.concat([authenticatorData, sha256(Buffer.from(clientDataJSON, 'base64url'))]), this.#keys.privateKey);
    return this.#credential({ clientDataJSON, authenticatorData: authenticatorData.toString('base64url'), signature: signature.toString('base64url'), userHandle: this.#userHandle });
  }

  #authData(flags: number): Buffer {
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(++this.#counter);
    return Buffer.concat([sha256(this.rpID), Buffer.from([flags]), counter]);
  }

  #clientData(type: string, challenge: string): string {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false })).toString('base64url');
  }

  #credential(response: Record<string, unknown>) {
    return { id: this.#id, rawId: this.#id, type: 'public-key', response, clientExtensionResults: {}, authenticatorAttachment: 'platform' };
  }
}

/** POSTs `path` and answers its JSON, failing loudly on anything but `status`. */
async function postJSON(c: Client, path: string, body: unknown, status: number): Promise<any> {
  const res = await c.fetch(path, { method: 'POST', headers: c.xsrf(), json: body });
  if (res.status !== status) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const kinds: Record<string, (t: ExecutionContext) => Promise<GatedKind>> = {
  async direct(t) {
    const app = await mfaApp(t, [direct]);
    return { app, provider: 'direct', amr: 'pwd', userId: `direct_${sha1('alice')}`, redirects: false, login: (c) => passwordLogin(c, 'alice') };
  },

  async telegram(t) {
    const api = await startFakeBotApi();
    t.teardown(() => api.close());
    const app = await mfaApp(t, [{ kind: 'telegram', name: 'telegram', token: BOT_TOKEN, apiRoot: api.apiRoot, pollTimeout: 1, backoff: { min: 20, max: 200 } } as ProviderEntry]);
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
    return { app, provider: 'telegram', amr: 'fed', userId: `telegram_${sha1(String(ALICE.id))}`, redirects: false, login };
  },

  async passkey(t) {
    // A software authenticator signs for any relying party id: the app's own host, 127.0.0.1, will do.
    const app = await mfaApp(t, [direct, { kind: 'passkey', rpName: 'authkoa tests', userVerification: 'required' } as ProviderEntry]);
    const authenticator = new SoftAuthenticator(app.url, '127.0.0.1');
    const owner = new Client(app.url);
    if ((await passwordLogin(owner, 'alice')).status !== 200) throw new Error('direct login failed');
    const created = authenticator.register(await postJSON(owner, '/auth/passkey/register/options', {}, 200));
    await postJSON(owner, '/auth/passkey/register', created, 201);
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
