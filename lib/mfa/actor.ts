import type { Context } from 'koa';
import { requireFresh, type SessionOf } from '../session/fresh.js';
import { mfaError } from './errors.js';
import type { PartialLogin, PartialLogins } from './partial.js';

/** Who a second-factor route acts for: a login whose second step is pending, or a logged-in user. */
export type Actor =
  | { partial: PartialLogin; userId: string; session?: undefined }
  | { session: SessionOf; userId: string; partial?: undefined };

/** What finding the actor needs. */
export interface ActorParts {
  partials: PartialLogins;
  /**
   * The request's full-login session (Authenticator.loginSession): 401 without a token, 403
   * `full_login_required` for basic auth or a token that is not a full login.
   */
  session: (ctx: Context) => Promise<SessionOf>;
  clock: () => number;
}

/**
 * The actor of a second-step route: the partial login the request carries, when it has one (a login in
 * progress is what these routes finish), else the full-login session. An enrolment-only partial login (a user
 * `required` sends to set a factor up) is refused unless `enrolling`, since it proves one factor only.
 */
export async function loginOrSession(ctx: Context, parts: ActorParts, enrolling = false): Promise<Actor> {
  const partial = parts.partials.read(ctx);
  if (partial) {
    if (partial.pending.enroll && !enrolling)
      throw mfaError('enrollment_required', 'set up a second factor to finish this login');
    await parts.partials.unspent(partial);
    return { partial, userId: partial.pending.user.id };
  }
  const session = await parts.session(ctx);
  return { session, userId: session.user.id };
}

/**
 * The actor of a route that changes a user's factors: an enrolment-only partial login (setting up the
 * first factor), or a full-login session whose login is at most `freshMs` old; an older one is answered
 * 401 `reauth_required`, so a session left open on a shared computer cannot change them.
 */
export async function enrollingOrFresh(ctx: Context, parts: ActorParts, freshMs: number): Promise<Actor> {
  const partial = parts.partials.read(ctx);
  if (partial?.pending.enroll) {
    await parts.partials.unspent(partial);
    return { partial, userId: partial.pending.user.id };
  }
  const session = await parts.session(ctx);
  requireFresh(session, freshMs, parts.clock());
  return { session, userId: session.user.id };
}
