import { createHash, randomBytes } from 'node:crypto';
import * as webauthn from '@simplewebauthn/server';
import type { Context } from 'koa';
import { AuthError } from '../errors.js';
import { readJSON } from '../http/body.js';
import { clientKey } from '../http/client-key.js';
import { rateLimited, writeJSON } from '../http/respond.js';
import { statePasskeyStore, type Passkey, type PasskeyStore } from './passkey/store.js';
import type { StateStore } from '../state/index.js';
import { providerState } from '../state/shared.js';
import { parseDuration, type Duration } from '../util/duration.js';
import { optionNames } from '../util/options.js';
import type { Provider, ProviderDeps, ProviderModule } from './core/contract.js';

/** Options of a `kind: 'passkey'` provider: WebAuthn passkeys, added to an account and logged in with. */
export interface PasskeyProviderOptions {
  kind: 'passkey';
  /** Provider name; the routes are `/auth/<name>/…`. Default `passkey`. */
  name?: string;
  /** The name browsers show for the site. */
  rpName: string;
  /** The relying party id: the host of `url` (default) or a registrable suffix of it. */
  rpID?: string;
  /** Where passkeys are kept: a state store URI or object. Default: the service's `stateStore` (make it durable). */
  credentials?: string | StateStore;
  /** Whether the authenticator must verify the user (PIN, biometrics). Default `preferred`. */
  userVerification?: 'preferred' | 'required';
  /** How long a challenge may be answered. Default 5 minutes. */
  challengeTimeout?: Duration;
  /**
   * Login challenges (`login/options`, which anyone may ask for) per client per window, counted in the
   * state store; over it, 429 `rate_limited`. Default `{ perIP: 30, window: '5m' }`; `false` turns it off.
   */
  rateLimit?: { perIP?: number; window?: Duration } | false;
}

/** The request bodies are WebAuthn responses: a few kilobytes; attestation certificates stay well under this. */
const BODY_LIMIT = 64 * 1024;
const CHALLENGES = 'passkey-challenge';

/**
 * What a challenge was issued for. A login challenge is bound to the browser that asked for it (the
 * SHA-256 of its binding cookie), so an assertion made for the attacker's own challenge cannot be
 * posted from the victim's browser (login CSRF).
 */
type Challenge = { purpose: 'register'; userId: string } | { purpose: 'login'; aud: string; browser: string };

/** A credential id as WebAuthn has it: base64url of at most 1023 bytes. Anything else is refused at the edge. */
const CREDENTIAL_ID = /^[A-Za-z0-9_-]{1,1364}$/;
/** The binding cookie's value: 32 random bytes, base64url. */
const BINDING = /^[A-Za-z0-9_-]{43}$/;

type WebAuthn = typeof webauthn;

/**
 * The `passkey` kind (WebAuthn, on @simplewebauthn/server, an optional package). A logged-in user adds
 * passkeys; anyone logs in with one (discoverable credentials, no user name typed). Challenges live in
 * the service's state store and are spent on first use, so a replayed response is refused.
 */
export const passkeyProvider: ProviderModule = {
  kind: 'passkey',
  options: optionNames<PasskeyProviderOptions>({ kind: true, name: true, rpName: true, rpID: true, credentials: true, userVerification: true, challengeTimeout: true, rateLimit: true }),
  async create(input, deps: ProviderDeps): Promise<Provider> {
    const opts = input as unknown as PasskeyProviderOptions;
    const name = opts.name ?? 'passkey';
    if (typeof name !== 'string' || !name) throw new TypeError('name must be a non-empty string');
    if (typeof opts.rpName !== 'string' || !opts.rpName) throw new TypeError('rpName (the name browsers show for the site) is required');
    const origin = new URL(deps.url).origin;
    const host = new URL(deps.url).hostname;
    const rpID = opts.rpID ?? host;
    if (typeof rpID !== 'string' || !(host === rpID || host.endsWith(`.${rpID}`))) throw new TypeError(`rpID must be the host of url (${host}) or a suffix of it`);
    // Browsers refuse WebAuthn on an IP address. Not a start-up error (the rest of the app may well run
    // on one in development), but said once, since every passkey call from a page would fail.
    if (/^[\d.]+$|:/.test(rpID)) deps.logger.warn(`${name}: rpID ${rpID} is an IP address, which browsers refuse for passkeys: use a host name (localhost in development)`);
    const userVerification = opts.userVerification ?? 'preferred';
    if (userVerification !== 'preferred' && userVerification !== 'required') throw new TypeError("userVerification must be 'preferred' or 'required'");
    const challengeMs = parseDuration(opts.challengeTimeout ?? '5m', 'challengeTimeout');
    // Its own `credentials` store when it has one, else the service's.
    const own = providerState(opts.credentials, deps.stateStore, { clock: deps.clock, logger: deps.logger, option: 'credentials' });
    await own.start();
    const passkeys: PasskeyStore = statePasskeyStore(own.store);
    const state = deps.stateStore;
    const requireUV = userVerification === 'required';

    const limit = challengeLimit(opts.rateLimit, deps, name);
    const binding = browserBinding(deps, name, challengeMs);

    /** Challenges are this provider's own: another passkey provider of the app cannot spend them. */
    const challengeKey = (challenge: string) => `${name}:${challenge}`;
    /** Issues a challenge for `purpose`, spent by the first response that names it. */
    const remember = (challenge: string, purpose: Challenge) => state.create(CHALLENGES, challengeKey(challenge), purpose, deps.clock() + challengeMs);

    /** The check simplewebauthn runs on the response's challenge: it must be ours, for this purpose, and unspent. */
    const spend = (accept: (c: Challenge) => boolean) => async (challenge: string) => {
      if (typeof challenge !== 'string' || challenge.length > 256) return false;
      const entry = await state.get<Challenge>(CHALLENGES, challengeKey(challenge));
      if (!entry || entry.expiresAt <= deps.clock() || !accept(entry.value)) return false;
      return state.take(CHALLENGES, challengeKey(challenge), entry.rev);
    };

    async function registerOptions(ctx: Context): Promise<void> {
      post(ctx);
      const user = await deps.sessionUser(ctx);
      const existing = await passkeys.listByUser(user.id);
      const options = await webauthn.generateRegistrationOptions({
        rpName: opts.rpName,
        rpID,
        userName: user.name || user.id,
        userDisplayName: user.name,
        userID: Buffer.from(await passkeys.userHandle(user.id), 'base64url'),
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
        authenticatorSelection: { residentKey: 'required', userVerification },
        timeout: challengeMs,
      });
      await remember(options.challenge, { purpose: 'register', userId: user.id });
      noStore(ctx);
      writeJSON(ctx, 200, options);
    }

    async function register(ctx: Context): Promise<void> {
      post(ctx);
      const user = await deps.sessionUser(ctx);
      const response = (await readJSON(ctx, BODY_LIMIT)) as Parameters<WebAuthn['verifyRegistrationResponse']>[0]['response'];
      let verified: Awaited<ReturnType<WebAuthn['verifyRegistrationResponse']>>;
      try {
        verified = await webauthn.verifyRegistrationResponse({
          response,
          expectedChallenge: spend((c) => c.purpose === 'register' && c.userId === user.id),
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: requireUV,
        });
      } catch (err) {
        throw refused(err);
      }
      if (!verified.verified) throw new AuthError(400, 'passkey_invalid', 'the passkey could not be verified');
      const info = verified.registrationInfo;
      const passkey: Passkey = {
        id: info.credential.id,
        publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
        counter: info.credential.counter,
        transports: info.credential.transports,
        userId: user.id,
        userName: user.name,
        userPicture: user.picture || undefined,
        userHandle: await passkeys.userHandle(user.id),
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        createdAt: deps.clock(),
      };
      if (!(await passkeys.save(passkey))) throw new AuthError(409, 'passkey_exists', 'this passkey is already registered');
      noStore(ctx);
      writeJSON(ctx, 201, { id: passkey.id });
    }

    async function loginOptions(ctx: Context): Promise<void> {
      post(ctx);
      const params = await deps.readParams(ctx);
      const aud = (params.site || params.aud || '').slice(0, 256);
      await limit?.(ctx);
      const options = await webauthn.generateAuthenticationOptions({ rpID, userVerification, timeout: challengeMs });
      await remember(options.challenge, { purpose: 'login', aud, browser: binding.issue(ctx) });
      noStore(ctx);
      writeJSON(ctx, 200, options);
    }

    async function login(ctx: Context): Promise<void> {
      post(ctx);
      const response = (await readJSON(ctx, BODY_LIMIT)) as Parameters<WebAuthn['verifyAuthenticationResponse']>[0]['response'];
      if (typeof response?.id !== 'string' || !CREDENTIAL_ID.test(response.id) || typeof response.response !== 'object' || response.response === null) {
        throw new AuthError(400, 'bad_request', 'expected a WebAuthn assertion');
      }
      const browser = binding.read(ctx);
      const passkey = await passkeys.get(response.id);
      if (!passkey) throw new AuthError(401, 'passkey_unknown', 'this passkey is not registered');
      if (response.response.userHandle && response.response.userHandle !== passkey.userHandle) throw new AuthError(401, 'passkey_invalid', 'the passkey does not belong to this account');
      let issued: Challenge | undefined;
      let verified: Awaited<ReturnType<WebAuthn['verifyAuthenticationResponse']>>;
      try {
        verified = await webauthn.verifyAuthenticationResponse({
          response,
          expectedChallenge: spend((c) => {
            issued = c;
            return c.purpose === 'login' && browser !== undefined && c.browser === browser;
          }),
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: { id: passkey.id, publicKey: Buffer.from(passkey.publicKey, 'base64url'), counter: passkey.counter, transports: passkey.transports },
          requireUserVerification: requireUV,
        });
      } catch (err) {
        throw refused(err);
      }
      if (!verified.verified) throw new AuthError(401, 'passkey_invalid', 'the passkey could not be verified');
      const counter = verified.authenticationInfo.newCounter;
      // A counter that did not move forward means a cloned authenticator (simplewebauthn refuses one that
      // went back); a concurrent use that already recorded a higher value lands here too.
      if (!(await passkeys.updateCounter(passkey.id, counter, deps.clock()))) throw new AuthError(401, 'passkey_invalid', 'the passkey signature counter did not move forward');
      await deps.completeLogin(ctx, {
        provider: name,
        user: { id: passkey.userId, name: passkey.userName, picture: passkey.userPicture ?? '' },
        aud: issued?.purpose === 'login' ? issued.aud : '',
        sessionOnly: deps.sessionOnly(ctx),
      });
    }

    async function list(ctx: Context): Promise<void> {
      if (ctx.method !== 'GET') throw new AuthError(405, 'method_not_allowed', 'GET only');
      const user = await deps.sessionUser(ctx);
      const mine = await passkeys.listByUser(user.id);
      noStore(ctx);
      writeJSON(
        ctx,
        200,
        mine.map((p) => ({ id: p.id, createdAt: new Date(p.createdAt).toISOString(), lastUsedAt: p.lastUsedAt ? new Date(p.lastUsedAt).toISOString() : null, deviceType: p.deviceType, backedUp: p.backedUp, transports: p.transports ?? [] })),
      );
    }

    async function remove(ctx: Context): Promise<void> {
      if (ctx.method !== 'DELETE') throw new AuthError(404, 'not_found', 'no such provider route');
      const user = await deps.sessionUser(ctx);
      const id = ctx.params.action!;
      const passkey = CREDENTIAL_ID.test(id) ? await passkeys.get(id) : undefined;
      // Someone else's passkey is answered like a missing one: ids are not a way to probe other accounts.
      if (!passkey || passkey.userId !== user.id || !(await passkeys.remove(id))) throw new AuthError(404, 'not_found', 'no such passkey');
      ctx.status = 204;
    }

    return {
      name,
      kind: 'passkey',
      login,
      async logout(ctx) {
        deps.endSession(ctx);
      },
      actions: { 'register/options': registerOptions, register, 'login/options': loginOptions, list, '*': remove },
      close: () => own.close(),
    };
  },
};

/**
 * The cookie that binds a login challenge to the browser that asked for it: HttpOnly, SameSite=Strict,
 * on the login route only. A browser keeps one value (reused while it lasts), so two tabs logging in at
 * once both work; the challenge holds the value's SHA-256.
 */
function browserBinding(deps: ProviderDeps, name: string, challengeMs: number) {
  const cookie = `${name}-challenge`;
  const path = new URL(deps.routeURL(name, 'login')).pathname;
  const hash = (v: string) => createHash('sha256').update(v).digest('base64url');
  const read = (ctx: Context): string | undefined => {
    const v = ctx.cookies.get(cookie);
    return v && BINDING.test(v) ? hash(v) : undefined;
  };
  return {
    read,
    /** The binding of this browser, set (or renewed) on the answer. */
    issue(ctx: Context): string {
      const current = ctx.cookies.get(cookie);
      const value = current && BINDING.test(current) ? current : randomBytes(32).toString('base64url');
      ctx.append('Set-Cookie', `${cookie}=${value}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=${Math.ceil(challengeMs / 1000)}${deps.cookies.secure ? '; Secure' : ''}`);
      return hash(value);
    },
  };
}

/** The per-client limit on login challenges (`rateLimit`), or undefined when it is off. */
function challengeLimit(input: PasskeyProviderOptions['rateLimit'], deps: ProviderDeps, name: string): ((ctx: Context) => Promise<void>) | undefined {
  if (input === false) return undefined;
  if (input !== undefined && (typeof input !== 'object' || input === null)) throw new TypeError('rateLimit must be false or { perIP, window }');
  const perIP = input?.perIP ?? 30;
  if (typeof perIP !== 'number' || !Number.isInteger(perIP) || perIP < 1) throw new TypeError('rateLimit.perIP must be a positive integer');
  const windowMs = parseDuration(input?.window ?? '5m', 'rateLimit.window');
  return async (ctx) => {
    const wait = await deps.limiter.hit([{ key: `${name}:challenge:${clientKey(ctx.ip)}`, limit: perIP }], windowMs);
    if (wait === undefined) return;
    throw rateLimited(ctx, wait, 'too many passkey login requests, try again later');
  };
}

function post(ctx: Context): void {
  if (ctx.method !== 'POST') throw new AuthError(405, 'method_not_allowed', 'POST only');
}

function noStore(ctx: Context): void {
  ctx.set('Cache-Control', 'no-store');
}

/** A verification failure: the library's reason (origin, rpID, challenge, signature, counter) goes in the message. */
function refused(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  const message = (err as Error)?.message ?? String(err);
  if (/challenge/i.test(message)) return new AuthError(400, 'challenge_invalid', 'the challenge is unknown, used or expired');
  return new AuthError(401, 'passkey_invalid', `the passkey could not be verified: ${message}`);
}
