import { AuthError } from '../errors.js';
import type { Broadcast } from '../state/broadcast.js';
import type { StateStore } from '../state/types.js';
import type { Claims } from './claims.js';

/**
 * Server-side ends for stateless sessions, kept in the state store so every process sees them: a
 * "not before" time per user (revokeSessions, a password change, a lost device) and the ids of tokens
 * ended by logout. The middleware checks them when it refreshes a cookie token, so an ended session
 * stops within `tokenDuration` without a store read per request; `strictRevocation` checks every request.
 */
export interface Revocations {
  /** Throws 401 `session_revoked` for the claims of a revoked user, an ended token or an ended session (`sid`). */
  check(claims: Claims): Promise<void>;
  /** Ends every session of `userId` issued up to now, but the session `except` (a `sid`) when given. */
  revokeUser(userId: string, except?: string): Promise<void>;
  /** Ends the token these claims belong to (its `jti`), and its session (`sid`). */
  endToken(claims: Claims): Promise<void>;
  /**
   * Ends one session by its id (`sid`): its tokens are refused until `untilMs`, past which none could be refreshed
   * anyway.
   */
  endSession(sid: string, untilMs: number): Promise<void>;
  /** True when the session `sid` was ended (endSession, or a logout of one of its tokens). */
  sessionEnded(sid: string): Promise<boolean>;
}

export const SESSIONS_NS = 'sessions';

/** A revocation as the channel carries it: a session ended, a token ended, or a user's sessions up to a time. */
export type RevocationNotice =
  { s: string; until: number } | { t: string; until: number } | ({ u: string; until: number } & UserRevocation);

/** The broadcast topic revocations are published on. */
export const REVOCATION_TOPIC = 'revocations';

/**
 * What a revoked user's record holds: tokens issued at or before `notBeforeMs` are refused. `iat` is whole
 * seconds, so a login in the same second as the revocation needs the token's `iat_ms` to survive it.
 * `notBefore` (seconds) is what records written before `notBeforeMs` existed hold, and what processes of
 * such a version still read.
 */
export interface UserRevocation {
  notBefore: number;
  notBeforeMs?: number;
  /** The session (`sid`) a "log out everywhere else" kept. */
  except?: string;
}

/**
 * Revocations in `store`. A record is kept for `keepMs` past the token it ends: the longest a session
 * can go on being refreshed without a new login (cookieDuration, which the idle timeout enforces). Each
 * one written is then published on the store's broadcast, when it has one, for every process's
 * revocation channel (revocation-watch.ts); a failure to publish rejects, as the write's would.
 */
export function revocations(
  store: StateStore,
  clock: () => number,
  keepMs: number,
  tokenDurationMs: number,
): Revocations {
  const userKey = (id: string) => `u:${id}`;
  const tokenKey = (jti: string) => `t:${jti}`;
  const sessionKey = (sid: string) => `s:${sid}`;
  const announce = (notice: RevocationNotice) => publish(store.broadcast, notice, tokenDurationMs);

  return {
    async check(claims) {
      const id = claims.user?.id;
      const sid = typeof claims.sid === 'string' ? claims.sid : undefined;
      const [user, ended, endedSession] = await Promise.all([
        id ? store.get<UserRevocation>(SESSIONS_NS, userKey(id)) : undefined,
        claims.jti ? store.get(SESSIONS_NS, tokenKey(claims.jti)) : undefined,
        sid ? store.get(SESSIONS_NS, sessionKey(sid)) : undefined,
      ]);
      const now = clock();
      if ((ended && ended.expiresAt > now) || (endedSession && endedSession.expiresAt > now))
        throw new AuthError('session_revoked', 'session was ended');
      if (user && user.expiresAt > now && revokedBy(claims, user.value, tokenDurationMs)) {
        throw new AuthError('session_revoked', 'sessions of this user were revoked');
      }
    },
    async revokeUser(userId, except) {
      if (typeof userId !== 'string' || userId === '') throw new TypeError('revokeSessions() requires a user id');
      if (except !== undefined && (typeof except !== 'string' || except === ''))
        throw new TypeError('revokeSessions(): except must be a session id (sid)');
      const now = clock();
      const record = { notBefore: Math.floor(now / 1000), notBeforeMs: now, except } satisfies UserRevocation;
      await put(store, userKey(userId), record, now + keepMs);
      await announce({ u: userId, until: now + keepMs, ...record });
    },
    async endToken(claims) {
      const until = issuedAtS(claims, tokenDurationMs) * 1000 + keepMs;
      if (claims.jti) await put(store, tokenKey(claims.jti), 1, until);
      if (typeof claims.sid === 'string' && claims.sid) await put(store, sessionKey(claims.sid), 1, until);
      if (claims.jti) await announce({ t: claims.jti, until });
      if (typeof claims.sid === 'string' && claims.sid) await announce({ s: claims.sid, until });
    },
    async sessionEnded(sid) {
      const ended = await store.get(SESSIONS_NS, sessionKey(sid));
      return ended !== undefined && ended.expiresAt > clock();
    },
    async endSession(sid, untilMs) {
      if (typeof sid !== 'string' || sid === '') throw new TypeError('endSession() requires a session id (sid)');
      const until = Math.max(untilMs, clock() + 60_000);
      await put(store, sessionKey(sid), 1, until);
      await announce({ s: sid, until });
    },
  };
}

/** When a token was issued, in Unix seconds: `iat`, or `exp` less the token's lifetime when iat is off. */
export function issuedAtS(claims: Claims, tokenDurationMs: number): number {
  return claims.iat ?? (claims.exp ?? 0) - Math.ceil(tokenDurationMs / 1000);
}

/** True when the token of `claims` was issued at or before the revocation `r`. */
export function revokedBy(claims: Claims, r: UserRevocation, tokenDurationMs: number): boolean {
  if (r.except !== undefined && claims.sid === r.except) return false;
  if (typeof r.notBeforeMs !== 'number') return issuedAtS(claims, tokenDurationMs) <= r.notBefore;
  return issuedAtMs(claims, tokenDurationMs) <= r.notBeforeMs;
}

/**
 * When a token was issued, in Unix milliseconds: its `iat_ms` when it agrees with `iat`, else the start of
 * its second, so a token without one (minted before `iat_ms` existed, or with `disableIAT`) is still
 * refused by a revocation in the same second, as it was.
 */
function issuedAtMs(claims: Claims, tokenDurationMs: number): number {
  const s = issuedAtS(claims, tokenDurationMs);
  const ms = claims.iat_ms;
  return typeof ms === 'number' && Math.floor(ms / 1000) === s ? ms : s * 1000;
}

/** Publishes a revocation for every process's channel; kept as long as a token it refuses can be valid. */
function publish(broadcast: Broadcast | undefined, notice: RevocationNotice, tokenDurationMs: number): Promise<void> {
  return broadcast ? broadcast.publish(REVOCATION_TOPIC, notice, tokenDurationMs + 60_000) : Promise.resolve();
}

/** Writes `value` under `key` whatever was there (the last revocation wins). */
async function put(store: StateStore, key: string, value: unknown, expiresAtMs: number): Promise<void> {
  for (let i = 0; i < 8; i++) {
    if (await store.create(SESSIONS_NS, key, value, expiresAtMs)) return;
    const cur = await store.get(SESSIONS_NS, key);
    if (cur && (await store.replace(SESSIONS_NS, key, cur.rev, value, Math.max(expiresAtMs, cur.expiresAt)))) return;
  }
  throw new Error(`could not record the revocation ${key}: the entry kept changing`);
}
