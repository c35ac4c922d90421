/**
 * The challenges of a passkey provider: issued into the service's state store, spent by the first
 * response that names them, login ones bound to the browser that asked and limited per client.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { clientKey } from '../../http/client-key.js';
import { rateLimited } from '../../http/respond.js';
import type { ProviderDeps } from '../core/contract.js';
import type { PasskeyConfig } from './config.js';

const CHALLENGES = 'passkey-challenge';
/** The binding cookie's value: 32 random bytes, base64url. */
const BINDING = /^[A-Za-z0-9_-]{43}$/;

/**
 * What a challenge was issued for. A login challenge is bound to the browser that asked for it (the
 * SHA-256 of its binding cookie), so an assertion made for the attacker's own challenge cannot be
 * posted from the victim's browser (login CSRF).
 */
export type Challenge =
  | { purpose: 'register'; userId: string }
  | { purpose: 'login'; aud: string; browser: string }
  | { purpose: 'second-step'; userId: string };

/** The challenges a provider issued and has not seen answered yet. */
export interface Challenges {
  /** Issues a challenge for `purpose`, spent by the first response that names it. */
  remember(challenge: string, purpose: Challenge): Promise<boolean>;
  /** The check simplewebauthn runs on the response's challenge: it must be ours, for this purpose, and unspent. */
  spend(accept: (c: Challenge) => boolean): (challenge: string) => Promise<boolean>;
}

/** The challenges of the provider `config.name`, in the service's state store until they are answered or expire. */
export function challengeStore({ name, challengeMs }: PasskeyConfig, deps: ProviderDeps): Challenges {
  const state = deps.stateStore;
  /** Challenges are this provider's own: another passkey provider of the app cannot spend them. */
  const key = (challenge: string) => `${name}:${challenge}`;
  return {
    remember: (challenge, purpose) => state.create(CHALLENGES, key(challenge), purpose, deps.clock() + challengeMs),
    spend: (accept) => async (challenge) => {
      if (typeof challenge !== 'string' || challenge.length > 256) return false;
      const entry = await state.get<Challenge>(CHALLENGES, key(challenge));
      if (!entry || entry.expiresAt <= deps.clock() || !accept(entry.value)) return false;
      return state.take(CHALLENGES, key(challenge), entry.rev);
    },
  };
}

/** The browser a login challenge is bound to: the SHA-256 of its binding cookie. */
export interface BrowserBinding {
  /** The binding the request carries, or undefined when it has none (or a malformed one). */
  read(ctx: Context): string | undefined;
  /** The binding of this browser, set (or renewed) on the answer. */
  issue(ctx: Context): string;
}

/**
 * The cookie that binds a login challenge to the browser that asked for it: HttpOnly, SameSite=Strict,
 * on the login route only. A browser keeps one value (reused while it lasts), so two tabs logging in at
 * once both work; the challenge holds the value's SHA-256.
 */
export function browserBinding({ name, challengeMs }: PasskeyConfig, deps: ProviderDeps): BrowserBinding {
  const cookie = `${name}-challenge`;
  const path = new URL(deps.routeURL(name, 'login')).pathname;
  const hash = (v: string) => createHash('sha256').update(v).digest('base64url');
  return {
    read(ctx) {
      const v = ctx.cookies.get(cookie);
      return v && BINDING.test(v) ? hash(v) : undefined;
    },
    issue(ctx) {
      const current = ctx.cookies.get(cookie);
      const value = current && BINDING.test(current) ? current : randomBytes(32).toString('base64url');
      ctx.append(
        'Set-Cookie',
        `${cookie}=${value}; Path=${path}; HttpOnly; SameSite=Strict; ` +
          `Max-Age=${Math.ceil(challengeMs / 1000)}${deps.cookies.secure ? '; Secure' : ''}`,
      );
      return hash(value);
    },
  };
}

/**
 * The per-client limit on login challenges (`rateLimit`): throws the 429 when a client is over it; undefined when it is
 * off.
 */
export function loginChallengeLimit(
  { name, rateLimit }: PasskeyConfig,
  deps: ProviderDeps,
): ((ctx: Context) => Promise<void>) | undefined {
  if (!rateLimit) return undefined;
  const { perIP, windowMs } = rateLimit;
  return async (ctx) => {
    const wait = await deps.limiter.hit([{ key: `${name}:challenge:${clientKey(ctx.ip)}`, limit: perIP }], windowMs);
    if (wait === undefined) return;
    throw rateLimited(ctx, wait, 'too many passkey login requests, try again later');
  };
}
