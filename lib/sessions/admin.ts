import { noopLogger } from '../logger.js';
import type { StateStore } from '../state/types.js';
import type { SessionList, SessionRecord } from './list.js';

export type { SessionRecord } from './list.js';

/**
 * The session list's admin API: `auth.features.get('sessions')` (and `auth.sessions`, `auth.revokeSessions`
 * beside it), and `sessionsAdmin()` for a process that shares the apps' state store without serving them
 * (`authctl sessions`).
 */
export interface SessionsAdmin {
  /** The user's live sessions, one per login (per device), newest first. */
  list(userId: string): Promise<SessionRecord[]>;
  /** Ends one session of the user; false when the user has no live session `sid` (another user's included). */
  revoke(userId: string, sid: string): Promise<boolean>;
  /** Ends every session of the user issued up to now, but the session `except` (a `sid`) when given. */
  revokeAll(userId: string, opts?: { except?: string }): Promise<void>;
}

/** What sessionsAdmin() needs to know of the apps whose store it works on. */
export interface SessionsAdminOptions {
  /** The apps' cookieDuration in ms: a revocation is kept that long, the longest a session can be refreshed. */
  cookieDurationMs: number;
  /** The apps' tokenDuration in ms, when it is longer than cookieDuration (a revocation is kept for the longer). */
  tokenDurationMs?: number;
  /** Ms since the epoch; `Date.now` by default. */
  clock?: () => number;
}

/**
 * The session list of the apps sharing `stateStore`, from outside them: what `authctl sessions` runs, and
 * what `auth.features.get('sessions')` offers inside one. It lists and ends sessions as the apps do (the
 * same records, the same tombstones, which every app process reads at its next refresh); it never starts
 * one, so the apps' cap on sessions per user does not matter here. The list's code loads at the first call.
 */
export function sessionsAdmin(stateStore: StateStore, options: SessionsAdminOptions): SessionsAdmin {
  const { cookieDurationMs, tokenDurationMs = 0, clock = Date.now } = options;
  if (!Number.isFinite(cookieDurationMs) || cookieDurationMs <= 0)
    throw new TypeError('sessionsAdmin: cookieDurationMs must be a positive number of milliseconds');
  if (!Number.isFinite(tokenDurationMs) || tokenDurationMs < 0)
    throw new TypeError('sessionsAdmin: tokenDurationMs must be a number of milliseconds');
  if (typeof clock !== 'function') throw new TypeError('sessionsAdmin: clock must be a function');
  const config = { cookieDurationMs, tokenDurationMs, clock, logger: noopLogger };
  let made: Promise<SessionList> | undefined;
  const list = () =>
    (made ??= import('./list.js').then((m) =>
      m.sessionList(stateStore, { ...config, maxSessionAgeMs: undefined, maxSessionsPerUser: Number.MAX_SAFE_INTEGER }),
    ));
  return adminOf(list);
}

/** The admin API over a session list: the feature's own (made at start-up), or the one sessionsAdmin() loads. */
export function adminOf(list: () => SessionList | Promise<SessionList>): SessionsAdmin {
  return {
    list: async (userId) => (await list()).list(userId),
    revoke: async (userId, sid) => (await list()).revoke(userId, sid),
    revokeAll: async (userId, opts) => (await list()).revokeAll(userId, opts?.except),
  };
}
