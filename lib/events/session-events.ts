import type { Context } from 'koa';
import { toAuthError } from '../errors.js';
import { clientOf, type EventSink } from './bus.js';

/**
 * The events of a session's life as the service and its routes emit them, built from what they hold
 * (the request, the claims, the error answered). Each builds its event only when someone listens.
 */

/** What the session events read of a session's claims (lib/session/claims.ts's Claims has these). */
interface SessionClaims {
  user?: { id: string };
  auth_provider?: { name: string };
  sid?: unknown;
  amr?: readonly string[];
}

/** The user, provider and session a token names, as the session events carry them. */
function sessionOf(claims: SessionClaims): { userId: string; provider: string; sid: string } {
  return {
    userId: claims.user?.id ?? '',
    provider: claims.auth_provider?.name ?? '',
    sid: typeof claims.sid === 'string' ? claims.sid : '',
  };
}

/** A session began: `login`. */
export function loginEvent(events: EventSink, ctx: Context, kind: string, claims: SessionClaims): void {
  if (!events.has('login')) return;
  const { userId, provider, sid } = sessionOf(claims);
  // The list frozen too: a listener cannot change what the next one sees.
  events.emit(
    'login',
    { provider, kind, amr: Object.freeze([...(claims.amr ?? [])]), userId, sid, ...clientOf(ctx) },
    ctx,
  );
}

/** A token was renewed: `refresh`. */
export function refreshEvent(events: EventSink, ctx: Context, claims: SessionClaims): void {
  if (events.has('refresh')) events.emit('refresh', sessionOf(claims), ctx);
}

/** A session was ended by its user: `logout`. */
export function logoutEvent(events: EventSink, ctx: Context, claims: SessionClaims): void {
  if (events.has('logout')) events.emit('logout', sessionOf(claims), ctx);
}

/**
 * The errors already told as `login_failed`, per instance: a refusal from checkCredentials (which knows
 * the typed name) passes through the route, which must not tell it again.
 */
export class FailedLogins {
  readonly #told = new WeakSet<object>();
  constructor(private readonly events: EventSink) {}

  /** `login_failed` for `err`, unless told already; `userName` as typed, when the login took one. */
  tell(ctx: Context, provider: string, kind: string, err: unknown, userName?: string): void {
    if (!this.events.has('login_failed') || typeof err !== 'object' || err === null || this.#told.has(err)) return;
    this.#told.add(err);
    // As the client was answered: http-errors' exposed 4xx included (toAuthError is what writeError uses).
    const { status, code: reason } = toAuthError(err);
    this.events.emit(
      'login_failed',
      {
        provider,
        kind,
        reason,
        status,
        ...(userName === undefined ? {} : { userName: userName.slice(0, 256) }),
        ...clientOf(ctx),
      },
      ctx,
    );
  }
}
