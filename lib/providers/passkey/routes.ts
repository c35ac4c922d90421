/**
 * The routes of a passkey provider, each made from the parts it works with: adding a passkey (its
 * options, then the attestation), logging in with one (its options, then the assertion), and a user's
 * list of passkeys and removal of one.
 */
import * as webauthn from '@simplewebauthn/server';
import type { Context } from 'koa';
import { AuthError } from '../../errors.js';
import { readJSON } from '../../http/body.js';
import { writeJSON } from '../../http/respond.js';
import { deviceLabel } from '../../session/device.js';
import type { ProviderDeps, ProviderDepsWith } from '../core/contract.js';
import { readParams, sessionOnly } from '../kit.js';
import type { BrowserBinding, Challenge, Challenges } from './challenges.js';
import type { PasskeyConfig } from './config.js';
import type { Passkey, PasskeyStore } from './store.js';

/** What a passkey route works with: the checked options, the deps, the passkeys and the challenges. */
export interface PasskeyParts {
  readonly config: PasskeyConfig;
  /** The login context, the session user and the end of their other sessions (routes that change passkeys). */
  readonly deps: ProviderDepsWith<'sessionUser' | 'factorChanged'>;
  readonly passkeys: PasskeyStore;
  readonly challenges: Challenges;
  readonly binding: BrowserBinding;
  /** The limit on login challenges; undefined when it is off. */
  readonly limit?: (ctx: Context) => Promise<void>;
}

type Route = (ctx: Context) => Promise<void>;
type WebAuthn = typeof webauthn;

/** The request bodies are WebAuthn responses: a few kilobytes; attestation certificates stay well under this. */
const BODY_LIMIT = 64 * 1024;
/** A credential id as WebAuthn has it: base64url of at most 1023 bytes. Anything else is refused at the edge. */
const CREDENTIAL_ID = /^[A-Za-z0-9_-]{1,1364}$/;

/** `register/options`: the creation options for a new passkey of the logged-in user. */
export function registrationOptionsRoute({ config, deps, passkeys, challenges }: PasskeyParts): Route {
  return async (ctx) => {
    post(ctx);
    const user = await deps.sessionUser(ctx);
    const existing = await passkeys.listByUser(user.id);
    const options = await webauthn.generateRegistrationOptions({
      rpName: config.rpName,
      rpID: config.rpID,
      userName: user.name || user.id,
      userDisplayName: user.name,
      userID: Buffer.from(await passkeys.userHandle(user.id), 'base64url'),
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
      authenticatorSelection: { residentKey: 'required', userVerification: config.userVerification },
      timeout: config.challengeMs,
    });
    await challenges.remember(options.challenge, { purpose: 'register', userId: user.id });
    noStore(ctx);
    writeJSON(ctx, 200, options);
  };
}

/** `register`: verifies the attestation against the user's register challenge and saves the passkey. */
export function registrationRoute({ config, deps, passkeys, challenges }: PasskeyParts): Route {
  return async (ctx) => {
    post(ctx);
    const user = await deps.sessionUser(ctx);
    const response = (await readJSON(ctx, BODY_LIMIT)) as Parameters<
      WebAuthn['verifyRegistrationResponse']
    >[0]['response'];
    let verified: Awaited<ReturnType<WebAuthn['verifyRegistrationResponse']>>;
    try {
      verified = await webauthn.verifyRegistrationResponse({
        response,
        expectedChallenge: challenges.spend((c) => c.purpose === 'register' && c.userId === user.id),
        expectedOrigin: config.origin,
        expectedRPID: config.rpID,
        requireUserVerification: config.userVerification === 'required',
      });
    } catch (err) {
      throw refused(err);
    }
    if (!verified.verified) throw new AuthError('passkey_invalid', 'the passkey could not be verified');
    const { credential, credentialDeviceType, credentialBackedUp } = verified.registrationInfo;
    const passkey: Passkey = {
      id: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports,
      userId: user.id,
      userName: user.name,
      userPicture: user.picture || undefined,
      userHandle: await passkeys.userHandle(user.id),
      deviceType: credentialDeviceType,
      backedUp: credentialBackedUp,
      // Named by the request that added it, so the list tells a phone's passkey from a laptop's on any device.
      device: deviceLabel(ctx.get('user-agent')),
      createdAt: deps.clock(),
    };
    if (!(await passkeys.save(passkey))) throw new AuthError('passkey_exists', 'this passkey is already registered');
    await tellPasskey(deps, ctx, 'passkey_added', user.id, config.name);
    await deps.factorChanged(ctx);
    noStore(ctx);
    writeJSON(ctx, 201, { id: passkey.id });
  };
}

/** `login/options`: a login challenge (limited per client) bound to this browser, for any passkey of the site. */
export function loginOptionsRoute({ config, challenges, binding, limit }: PasskeyParts): Route {
  return async (ctx) => {
    post(ctx);
    const params = await readParams(ctx);
    const aud = (params.site || params.aud || '').slice(0, 256);
    await limit?.(ctx);
    const options = await webauthn.generateAuthenticationOptions({
      rpID: config.rpID,
      userVerification: config.userVerification,
      timeout: config.challengeMs,
    });
    await challenges.remember(options.challenge, { purpose: 'login', aud, browser: binding.issue(ctx) });
    noStore(ctx);
    writeJSON(ctx, 200, options);
  };
}

/** `login`: verifies the assertion against this browser's login challenge, records the use and logs in. */
export function loginRoute(parts: PasskeyParts): Route {
  const { config, deps, binding } = parts;
  return async (ctx) => {
    post(ctx);
    const browser = binding.read(ctx);
    const { passkey, issued } = await checkAssertion(
      parts,
      await readAssertion(ctx),
      (c) => c.purpose === 'login' && browser !== undefined && c.browser === browser,
    );
    await deps.completeLogin(ctx, {
      provider: config.name,
      user: { id: passkey.userId, name: passkey.userName, picture: passkey.userPicture ?? '' },
      aud: issued?.purpose === 'login' ? issued.aud : '',
      sessionOnly: sessionOnly(ctx),
      amr: ['hwk'],
    });
  };
}

type Assertion = Parameters<WebAuthn['verifyAuthenticationResponse']>[0]['response'];

/** The request's WebAuthn assertion, checked for shape; 400 otherwise. */
export async function readAssertion(ctx: Context): Promise<Assertion> {
  const response = (await readJSON(ctx, BODY_LIMIT)) as Assertion;
  if (
    typeof response?.id !== 'string' ||
    !CREDENTIAL_ID.test(response.id) ||
    typeof response.response !== 'object' ||
    response.response === null
  ) {
    throw new AuthError('bad_request', 'expected a WebAuthn assertion');
  }
  return response;
}

/**
 * Verifies an assertion against a challenge `accept` takes (spent on first use) and records the use:
 * the passkey it was made with, and the challenge. A login and a second step differ only in the
 * challenge they accept.
 */
export async function checkAssertion(
  { config, deps, passkeys, challenges }: PasskeyParts,
  response: Assertion,
  accept: (c: Challenge, passkey: Passkey) => boolean,
): Promise<{ passkey: Passkey; issued: Challenge | undefined }> {
  const passkey = await passkeys.get(response.id);
  if (!passkey) throw new AuthError('passkey_unknown', 'this passkey is not registered');
  if (response.response.userHandle && response.response.userHandle !== passkey.userHandle)
    throw new AuthError('passkey_invalid', 'the passkey does not belong to this account');
  let issued: Challenge | undefined;
  let verified: Awaited<ReturnType<WebAuthn['verifyAuthenticationResponse']>>;
  try {
    verified = await webauthn.verifyAuthenticationResponse({
      response,
      expectedChallenge: challenges.spend((c) => {
        issued = c;
        return accept(c, passkey);
      }),
      expectedOrigin: config.origin,
      expectedRPID: config.rpID,
      credential: {
        id: passkey.id,
        publicKey: Buffer.from(passkey.publicKey, 'base64url'),
        counter: passkey.counter,
        transports: passkey.transports,
      },
      requireUserVerification: config.userVerification === 'required',
    });
  } catch (err) {
    throw refused(err);
  }
  if (!verified.verified) throw new AuthError('passkey_invalid', 'the passkey could not be verified');
  // A counter that did not move forward means a cloned authenticator (simplewebauthn refuses one that
  // went back); a concurrent use that already recorded a higher value lands here too.
  if (!(await passkeys.updateCounter(passkey.id, verified.authenticationInfo.newCounter, deps.clock())))
    throw new AuthError('passkey_invalid', 'the passkey signature counter did not move forward');
  return { passkey, issued };
}

/** `list` (GET): the logged-in user's passkeys, without their keys. */
export function listRoute({ deps, passkeys }: PasskeyParts): Route {
  return async (ctx) => {
    if (ctx.method !== 'GET') throw new AuthError('method_not_allowed', 'GET only');
    const user = await deps.sessionUser(ctx);
    const mine = await passkeys.listByUser(user.id);
    noStore(ctx);
    writeJSON(ctx, 200, mine.map(listed));
  };
}

/** A passkey as the list shows it: no key, no counter, no user. */
function listed(p: Passkey) {
  return {
    id: p.id,
    device: p.device ?? 'Unknown device',
    createdAt: new Date(p.createdAt).toISOString(),
    lastUsedAt: p.lastUsedAt ? new Date(p.lastUsedAt).toISOString() : null,
    deviceType: p.deviceType,
    backedUp: p.backedUp,
    transports: p.transports ?? [],
  };
}

/** `DELETE <credential id>`: removes one of the logged-in user's passkeys. */
export function deleteRoute({ config, deps, passkeys }: PasskeyParts): Route {
  return async (ctx) => {
    if (ctx.method !== 'DELETE') throw new AuthError('not_found', 'no such provider route');
    const user = await deps.sessionUser(ctx);
    const id = (ctx.params as { action: string }).action; // routed as `:provider/:action`
    const passkey = CREDENTIAL_ID.test(id) ? await passkeys.get(id) : undefined;
    // Someone else's passkey is answered like a missing one: ids are not a way to probe other accounts.
    if (!passkey || passkey.userId !== user.id || !(await passkeys.remove(id)))
      throw new AuthError('not_found', 'no such passkey');
    await tellPasskey(deps, ctx, 'passkey_removed', user.id, config.name);
    await deps.factorChanged(ctx);
    ctx.status = 204;
  };
}

function post(ctx: Context): void {
  if (ctx.method !== 'POST') throw new AuthError('method_not_allowed', 'POST only');
}

function noStore(ctx: Context): void {
  ctx.set('Cache-Control', 'no-store');
}

/** A verification failure: the library's reason (origin, rpID, challenge, signature, counter) goes in the message. */
function refused(err: unknown): AuthError {
  if (err instanceof AuthError) return err;
  const message = (err as Error)?.message ?? String(err);
  if (/challenge/i.test(message))
    return new AuthError('challenge_invalid', 'the challenge is unknown, used or expired');
  return new AuthError('passkey_invalid', `the passkey could not be verified: ${message}`);
}

/** `passkey_added` / `passkey_removed`, with the session that made the change. */
async function tellPasskey(
  deps: ProviderDeps,
  ctx: Context,
  type: 'passkey_added' | 'passkey_removed',
  userId: string,
  provider: string,
): Promise<void> {
  if (!deps.events.has(type)) return;
  const sid = (await deps.tokenService.presented(ctx))?.sid;
  deps.events.emit(type, { userId, provider, ...(typeof sid === 'string' ? { sid } : {}) }, ctx);
}
