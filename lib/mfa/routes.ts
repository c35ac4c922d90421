/**
 * The second-factor routes under `<authRoutePath>/mfa`: the user's factors, TOTP set-up, confirmation and
 * removal, new recovery codes, and the second step itself (a code, a recovery code or a passkey), which
 * finishes a pending login or, with a session, re-confirms its user (step-up). A session here is always a
 * full login's (actor.ts, through Authenticator.loginSession): basic auth never manages a second factor.
 */
import { clientOf, type EventSink } from '../events/bus.js';
import { mfaError } from './errors.js';
import type { MfaChangedEvent } from './events.js';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { AuthError, toAuthError } from '../errors.js';
import { readParams } from '../http/body.js';
import { crossSite } from '../http/origin.js';
import { writeJSON } from '../http/respond.js';
import { checkCredentials } from '../providers/core/credentials.js';
import type { SecondFactor } from '../providers/core/provider.js';
import { answerLogin, type LoginConfig, type SessionStarter } from '../session/login.js';
import type { TokenService } from '../session/token-service.js';
import type { CredentialThrottle } from '../state/throttle.js';
import { clientScript } from './client-script.js';
import { enrollingOrFresh, loginOrSession, type Actor, type ActorParts } from './actor.js';
import type { Factors } from './factors.js';
import type { MfaConfig } from './options.js';
import type { PartialLogin } from './partial.js';
import { sendMfaPage } from './page.js';
import { qrDataURL } from './qr.js';
import { otpauthURL } from './totp.js';

/** What the routes work with. */
export interface MfaRouteParts extends ActorParts {
  config: MfaConfig;
  factors: Factors;
  tokens: TokenService;
  startSession: SessionStarter;
  /** After the user's factors changed: their sessions but `keep` end (endOtherSessionsOnFactorChange). */
  factorChanged: (userId: string, keep: string | undefined) => Promise<void>;
  login: LoginConfig;
  /** Failed codes per user, counted with the passwords' policy in the state store. */
  throttle: CredentialThrottle | undefined;
  /** `mfa_changed`, `mfa_failed`. */
  events: EventSink;
  secondFactors: () => Array<{ provider: string; factor: SecondFactor }>;
  /** The origin of `url`: a POST or DELETE from elsewhere is refused. */
  origin: string;
  authRoutePath: string;
  /** The absolute URL of a `from` the redirect policy permits, else undefined. */
  safeRedirect: (from: string | undefined) => string | undefined;
}

type Handler = (ctx: Context, p: MfaRouteParts) => Promise<void>;

/** Adds the routes to the auth router (prefix `authRoutePath`), before the providers' routes. */
export function mountMfaRoutes(router: Router, p: MfaRouteParts): void {
  const at = (method: 'GET' | 'POST' | 'DELETE', path: string, handler: Handler) =>
    router.all(path, async (ctx: Context) => {
      if (ctx.method !== method && !(method === 'GET' && ctx.method === 'HEAD'))
        throw new AuthError('method_not_allowed', `${method} only`);
      // Login CSRF and forced changes: the same rule as every login POST.
      if (method !== 'GET' && crossSite(ctx, p.origin))
        throw new AuthError('origin_mismatch', 'the request must come from this site');
      ctx.set('Cache-Control', 'no-store');
      await handler(ctx, p);
    });
  at('GET', '/mfa', status);
  at('POST', '/mfa/totp/setup', setup);
  at('POST', '/mfa/totp/confirm', confirm);
  at('DELETE', '/mfa/totp', removeTotp);
  at('POST', '/mfa/recovery-codes', regenerate);
  at('POST', '/mfa/verify', verify);
  at('POST', '/mfa/passkey/options', passkeyOptions);
  at('POST', '/mfa/passkey', passkeyVerify);
  at('GET', '/mfa/page', page);
  // The client bundle the page makes its requests with (its one copy of the client's code).
  const script = clientScript();
  at('GET', '/mfa/client.js', (ctx) => script(ctx));
  // Anything else under /mfa is not a provider named "mfa" (none may be): a plain 404.
  router.all(['/mfa/{*rest}'], () => {
    throw new AuthError('not_found', 'no such second-factor route');
  });
}

/** `GET /mfa/page`: the built-in second-step page, for the pending login this browser has (if any). */
// Not async: nothing to wait for. The route wrapper awaits it, so a throw still answers the request.
function page(ctx: Context, p: MfaRouteParts): Promise<void> {
  let partial: PartialLogin | undefined;
  let expired = false;
  try {
    partial = p.partials.read(ctx);
  } catch {
    expired = true;
  }
  sendMfaPage(ctx, {
    authRoutePath: p.authRoutePath,
    factors: partial?.pending.factors ?? [],
    enroll: partial?.pending.enroll === true,
    pending: partial !== undefined,
    expired,
    next: partial ? p.safeRedirect(partial.pending.from) : undefined,
  });
  return Promise.resolve();
}

/** `GET /mfa`: a pending login's factors to answer with, or the session user's factors. */
async function status(ctx: Context, p: MfaRouteParts): Promise<void> {
  const actor = await loginOrSession(ctx, p, true);
  if (actor.partial) {
    const { factors, enroll } = actor.partial.pending;
    writeJSON(
      ctx,
      200,
      enroll ? { mfa_required: true, enroll_required: true, factors: [] } : { mfa_required: true, factors },
    );
    return;
  }
  writeJSON(ctx, 200, await summary(p, actor.userId));
}

/** The session user's factors: `{"totp", "recoveryCodesLeft", "passkeys"}`. */
async function summary(
  p: MfaRouteParts,
  userId: string,
): Promise<{ totp: boolean; recoveryCodesLeft: number; passkeys: number }> {
  const own = await p.factors.summary(userId);
  let passkeys = 0;
  for (const { factor } of p.secondFactors()) if (factor.factor === 'passkey') passkeys += await factor.count(userId);
  return { ...own, passkeys };
}

/** `POST /mfa/totp/setup`: a new key, not active until confirmed, with the URI and QR code an app reads. */
async function setup(ctx: Context, p: MfaRouteParts): Promise<void> {
  const actor = await enrollingOrFresh(ctx, p, p.config.freshMs);
  const user = actor.partial ? actor.partial.pending.user : actor.session.user;
  const secret = await p.factors.beginTotp(actor.userId);
  const account = user.email || user.name || user.id;
  const url = otpauthURL({ issuer: p.config.issuer, account, secret });
  writeJSON(ctx, 200, { secret, otpauthUrl: url, qr: await qrDataURL(url) });
}

/**
 * `POST /mfa/totp/confirm {"code"}`: turns TOTP on and answers the recovery codes, once; an enrolling login is finished
 * too.
 */
async function confirm(ctx: Context, p: MfaRouteParts): Promise<void> {
  const actor = await enrollingOrFresh(ctx, p, p.config.freshMs);
  const { code } = await readParams(ctx, 4096);
  if (!code) throw new AuthError('missing_code', 'code is required: the 6 digits the app shows');
  let recoveryCodes: string[] = [];
  const check = async () => {
    const confirmed = await p.factors.confirmTotp(actor.userId, code);
    if (confirmed) recoveryCodes = confirmed;
    return confirmed !== false;
  };
  await checkCode(ctx, p, actor, check);
  changed(ctx, p, actor, 'totp_enabled');
  if (!actor.partial) {
    await p.factorChanged(actor.userId, actor.session.claims.sid);
    writeJSON(ctx, 200, { recoveryCodes });
    return;
  }
  const claims = await finishLogin(ctx, p, actor, 'otp');
  await p.factorChanged(actor.userId, claims.sid);
  writeJSON(ctx, 200, { recoveryCodes, user: claims.user });
}

/** `DELETE /mfa/totp`: turns TOTP off (a fresh session only); its recovery codes go with it. */
async function removeTotp(ctx: Context, p: MfaRouteParts): Promise<void> {
  const actor = await enrollingOrFresh(ctx, p, p.config.freshMs);
  if (actor.partial) throw mfaError('enrollment_required', 'set up a second factor to finish this login');
  if (await p.factors.removeTotp(actor.userId)) {
    changed(ctx, p, actor, 'totp_disabled');
    await p.factorChanged(actor.userId, actor.session.claims.sid);
  }
  writeJSON(ctx, 200, await summary(p, actor.userId));
}

/** `POST /mfa/recovery-codes`: ten new recovery codes replacing the old ones (a fresh session only). */
async function regenerate(ctx: Context, p: MfaRouteParts): Promise<void> {
  const actor = await enrollingOrFresh(ctx, p, p.config.freshMs);
  if (actor.partial) throw mfaError('enrollment_required', 'set up a second factor to finish this login');
  const recoveryCodes = await p.factors.regenerateRecoveryCodes(actor.userId);
  changed(ctx, p, actor, 'recovery_codes_generated');
  writeJSON(ctx, 200, { recoveryCodes });
}

/**
 * `POST /mfa/verify {"code"} | {"recoveryCode"}`: the second step of a pending login, or a step-up of a
 * full-login session.
 */
async function verify(ctx: Context, p: MfaRouteParts): Promise<void> {
  const actor = await loginOrSession(ctx, p);
  const params = await readParams(ctx, 4096);
  const { code, recoveryCode } = params;
  if (!code && !recoveryCode) throw new AuthError('missing_code', 'code (from the app) or recoveryCode is required');
  const check = recoveryCode
    ? () => p.factors.useRecoveryCode(actor.userId, recoveryCode)
    : () => p.factors.checkTotp(actor.userId, code);
  await checkCode(ctx, p, actor, check);
  await passed(ctx, p, actor, 'otp');
}

/** `POST /mfa/passkey/options`: a challenge for the user's passkeys. */
async function passkeyOptions(ctx: Context, p: MfaRouteParts): Promise<void> {
  const actor = await loginOrSession(ctx, p);
  const options = await passkeyFactor(p, actor).options(ctx, actor.userId);
  if (options === undefined) throw mfaError('factor_not_enrolled', 'this account has no passkey');
  writeJSON(ctx, 200, options);
}

/** `POST /mfa/passkey`: the assertion answering that challenge, as the second step or a step-up. */
async function passkeyVerify(ctx: Context, p: MfaRouteParts): Promise<void> {
  const actor = await loginOrSession(ctx, p);
  const factor = passkeyFactor(p, actor);
  await factor.verify(ctx, actor.userId).catch((err: unknown) => {
    failedStep(ctx, p, actor, err);
    throw err;
  });
  await passed(ctx, p, actor, factor.amr);
}

/** The passkey provider that serves as a second factor; a pending login must have been offered it. */
function passkeyFactor(p: MfaRouteParts, actor: Actor): SecondFactor {
  const found = p
    .secondFactors()
    .find(({ provider, factor }) => factor.factor === 'passkey' && provider !== actor.partial?.pending.provider);
  if (!found || (actor.partial && !actor.partial.pending.factors.includes('passkey')))
    throw mfaError('factor_not_enrolled', 'a passkey is not a second factor of this login');
  return found.factor;
}

/** A second step passed: the pending login gets its session, or the session its fresh `auth_time`. */
async function passed(ctx: Context, p: MfaRouteParts, actor: Actor, method: string): Promise<void> {
  if (actor.partial) {
    const claims = await finishLogin(ctx, p, actor, method);
    answerLogin(ctx, actor.partial.pending, claims, p.login);
    return;
  }
  const { claims } = actor.session;
  // The session's own start stays: a step-up renews the proof, not the session's life (maxSessionAge).
  const sessStart = claims.sess_start ?? claims.auth_time;
  const amr = withMethod(claims.amr ?? [], method);
  const renewed = { exp: undefined, auth_time: p.tokens.now(), sess_start: sessStart, amr };
  const stepped = await p.tokens.set(ctx, { ...claims, ...renewed });
  writeJSON(ctx, 200, stepped.user);
}

/** Spends the partial login and starts its session, `amr` extended by the second step. */
async function finishLogin(ctx: Context, p: MfaRouteParts, actor: Actor, method: string) {
  const partial = actor.partial!;
  await p.partials.spend(ctx, partial);
  const pending = partial.pending;
  return p.startSession(ctx, { ...pending, amr: withMethod(pending.amr, method) });
}

/** The methods of a session after one more: each once, and `mfa` once two different ones were used. */
export function withMethod(amr: readonly string[], method: string): string[] {
  const out = amr.filter((m) => m !== 'mfa');
  if (!out.includes(method)) out.push(method);
  if (out.length > 1) out.push('mfa');
  return out;
}

const wrongCode = () => new AuthError('invalid_code', 'the code is not valid');

/** A code checked through the throttle; a refusal is told as `mfa_failed`. */
async function checkCode(ctx: Context, p: MfaRouteParts, actor: Actor, check: () => Promise<boolean>): Promise<void> {
  try {
    await checkCredentials(ctx, p.throttle, actor.userId, check, wrongCode);
  } catch (err) {
    failedStep(ctx, p, actor, err);
    throw err;
  }
}

/** The provider of the first factor: the pending login's, or the session's. */
function providerOf(actor: Actor): string {
  return actor.partial ? actor.partial.pending.provider : (actor.session.claims.auth_provider?.name ?? '');
}

function failedStep(ctx: Context, p: MfaRouteParts, actor: Actor, err: unknown): void {
  if (!p.events.has('mfa_failed')) return;
  p.events.emit(
    'mfa_failed',
    { userId: actor.userId, provider: providerOf(actor), reason: toAuthError(err).code, ...clientOf(ctx) },
    ctx,
  );
}

function changed(ctx: Context, p: MfaRouteParts, actor: Actor, change: MfaChangedEvent['change']): void {
  const sid = actor.session?.claims?.sid;
  p.events.emit('mfa_changed', { userId: actor.userId, change, ...(sid ? { sid } : {}) }, ctx);
}
