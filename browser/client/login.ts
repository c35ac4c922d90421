/**
 * What a login step answers, as one typed state: logged in, a second step due (`mfa_required` is a state
 * here, not an error: the first factor passed), a first step that is not a login yet (a confirmation
 * sent, a Telegram request opened), or a redirect (the browser is to go on elsewhere; the cookies are set).
 */
import { AuthClientError } from './errors.js';
import type { MfaRequired, User } from './schema.js';
import type { Answer } from './transport.js';

export type LoginResult =
  | { state: 'logged_in'; user: User }
  | { state: 'mfa_required'; factors: MfaRequired['factors']; enrollRequired: boolean }
  /** A first step that is not a login yet: the `verified` kind's `{ user, address }`, Telegram's `{ bot, token }`. */
  | { state: 'pending'; answer: Record<string, unknown> }
  /** The server sent the browser on (a `from`, the second-step page): `location` is null in a browser, which hides it. */
  | { state: 'redirected'; location: string | null };

export function loginResult(answer: Answer, url: string): LoginResult {
  if (answer.redirect !== undefined) return { state: 'redirected', location: answer.redirect };
  const body = answer.body;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new AuthClientError(`${url} answered no login`, 'invalid_response', answer.status);
  const b = body as Record<string, unknown>;
  if (b.mfa_required === true)
    return {
      state: 'mfa_required',
      factors: Array.isArray(b.factors) ? (b.factors as MfaRequired['factors']) : [],
      enrollRequired: b.enroll_required === true,
    };
  if (isUser(b)) return { state: 'logged_in', user: b };
  return { state: 'pending', answer: b };
}

/** The user JSON every login and `/user` answer: an id and a name (the picture may be ''). */
export function isUser(body: unknown): body is User {
  const b = body as Record<string, unknown> | null;
  return !!b && typeof b === 'object' && typeof b.id === 'string' && typeof b.name === 'string';
}

/** `body`, when `check` takes it; else the client's `invalid_response`. */
export function expect<T>(answer: Answer, url: string, check: (body: unknown) => boolean, what: string): T {
  if (!check(answer.body))
    throw new AuthClientError(`${url} answered something else than ${what}`, 'invalid_response', answer.status);
  return answer.body as T;
}
