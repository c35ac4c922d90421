import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { noEvents, type EventSink } from '../events/bus.js';
import { providerOf } from '../http/respond.js';
import type { Logger } from '../logger.js';
import type { Claims } from '../session/claims.js';
import { deviceLabel } from '../session/device.js';
import { revocations, SESSIONS_NS, type Revocations } from '../session/revocation.js';
import type { StateStore } from '../state/types.js';
import { networkOf } from './network.js';

/** One login of a user, as the session list keeps it (in the state store, under the user). */
export interface SessionRecord {
  /** The session id, the token's `sid`. */
  sid: string;
  /** The provider the user logged in with. */
  provider: string;
  /** How they proved who they are (the token's `amr`). */
  amr: string[];
  /** When the session began and when it was last refreshed, ms since the epoch. */
  created: number;
  lastSeen: number;
  /** "Chrome on macOS" (deviceLabel), and the client's /24 or /64 (networkOf): never the address. */
  device: string;
  ip: string;
  /**
   * Past this (ms), the session cannot be refreshed any more: cookieDuration after lastSeen, or maxSessionAge after
   * created.
   */
  expiresAt: number;
}

/** The options the session list reads. */
export interface SessionListConfig {
  cookieDurationMs: number;
  /** With cookieDurationMs, how long a revocation is kept: the longer of the two. */
  tokenDurationMs: number;
  maxSessionAgeMs: number | undefined;
  /** At most this many sessions per user: a login past it ends the oldest. */
  maxSessionsPerUser: number;
  clock: () => number;
  logger: Logger;
  /**
   * The instance's end of a user's sessions (`auth.revokeSessions`: the revocation, every feature's
   * sessionsRevoked hook, this list's among them, and the event). Without it (an admin over a store, with no
   * instance) the list ends them itself.
   */
  endSessions?: (userId: string, keep: string | undefined) => Promise<void>;
}

interface UserSessions {
  list: SessionRecord[];
}

const TRIES = 16;

/**
 * Sessions per device for stateless tokens: every login is recorded under its user with its `sid`, its
 * refreshes move `lastSeen`, and ending one writes a tombstone the revocation check reads (at refresh,
 * or on every request with strictRevocation), so token verification stays stateless. A record the store
 * lost (a restarted memory store) is written again at the session's next refresh: losing the list never
 * ends a session, only a tombstone does.
 */
export class SessionList {
  constructor(
    private readonly o: SessionListConfig,
    private readonly store: StateStore,
    private readonly revocations: Revocations,
    /** Told when sessions end from elsewhere (`session_revoked`). */
    private readonly events: EventSink = noEvents,
  ) {}

  /**
   * Records a new login; past maxSessionsPerUser the oldest sessions end. A store that is away is logged: the login
   * goes on, listed at its first refresh.
   */
  async begin(ctx: Context, claims: Claims): Promise<void> {
    // Created now, to the millisecond: two logins in one second still list in their order.
    const record = this.recordOf(ctx, claims, this.o.clock());
    if (!record) return;
    try {
      let ended: SessionRecord[] = [];
      await this.update(claims.user!.id, (list) => {
        // The list is kept newest first and the new record is the newest: it goes in front, and what the
        // cap leaves over at the end is ended. No sort: this runs at every login, over up to the cap.
        const kept = [record];
        ended = [];
        for (const r of list) {
          if (r.sid === record.sid) continue;
          (kept.length < this.o.maxSessionsPerUser ? kept : ended).push(r);
        }
        return kept;
      });
      await Promise.all(ended.map((r) => this.revocations.endSession(r.sid, r.expiresAt)));
    } catch (err) {
      const userId = claims.user!.id;
      const provider = providerOf(ctx); // the login's provider route
      const fields = { ...(provider !== undefined && { provider }), code: 'state_store_unavailable', userId };
      const why = (err as Error).message;
      this.o.logger.warn(
        `session of ${userId} not recorded in the state store (listed at its next refresh): ${why}`,
        fields,
      );
    }
  }

  /** At a refresh: `lastSeen` (and the expiry) moves on; a record the store lost is written again. */
  async seen(ctx: Context, claims: Claims): Promise<void> {
    const fresh = this.recordOf(ctx, claims);
    if (!fresh) return;
    // Ended while this refresh was under way (after its revocation check): not listed again.
    if (await this.revocations.sessionEnded(fresh.sid)) return;
    await this.update(claims.user!.id, (list) => {
      const old = list.find((r) => r.sid === fresh.sid);
      // Updated in place, so the order of logins stays; the device is the login's (it names the row),
      // the network is where it was last seen from.
      if (old)
        return list.map((r) =>
          r === old
            ? { ...old, lastSeen: fresh.lastSeen, ip: fresh.ip, expiresAt: this.expiry(old.created, fresh.lastSeen) }
            : r,
        );
      return [...list, fresh].sort((a, b) => b.created - a.created).slice(0, this.o.maxSessionsPerUser);
    });
  }

  /** The user's live sessions, newest first. */
  async list(userId: string): Promise<SessionRecord[]> {
    const entry = await this.store.get<UserSessions>(SESSIONS_NS, this.key(userId));
    const now = this.o.clock();
    return (entry?.value.list ?? []).filter((r) => r.expiresAt > now).sort((a, b) => b.created - a.created);
  }

  /** Ends one of the user's sessions; false when the user has no such session (another user's sid included). */
  async revoke(userId: string, sid: string): Promise<boolean> {
    let found: SessionRecord | undefined;
    await this.update(userId, (list) => {
      found = list.find((r) => r.sid === sid);
      return found ? list.filter((r) => r.sid !== sid) : list;
    });
    if (!found) return false;
    await this.revocations.endSession(sid, found.expiresAt);
    this.events.emit('session_revoked', { userId, sid });
    return true;
  }

  /** Ends every session of the user but `keep` (a sid), or all of them. */
  async revokeAll(userId: string, keep?: string): Promise<void> {
    // In an instance, as auth.revokeSessions does: the other features hear of it too.
    if (this.o.endSessions) return this.o.endSessions(userId, keep);
    await this.revocations.revokeUser(userId, keep);
    await this.drop(userId, keep);
    this.events.emit('session_revoked', keep === undefined ? { userId } : { userId, keptSid: keep });
  }

  /** Every session of the user but `keep` leaves the list: they were revoked elsewhere (revokeUser). */
  drop(userId: string, keep: string | undefined): Promise<void> {
    return this.update(userId, (list) => list.filter((r) => r.sid === keep));
  }

  /** A logout: the session leaves the list (its tokens are ended by Revocations.endToken). */
  async forget(claims: Claims): Promise<void> {
    const id = claims.user?.id;
    if (!id || typeof claims.sid !== 'string') return;
    await this.update(id, (list) => list.filter((r) => r.sid !== claims.sid));
  }

  /** The record of a session token (undefined without a user or a sid: tokens minted by the app). */
  private recordOf(ctx: Context, claims: Claims, createdAt?: number): SessionRecord | undefined {
    if (!claims.user || typeof claims.sid !== 'string') return undefined;
    const now = this.o.clock();
    const start = claims.sess_start ?? claims.auth_time;
    const created = createdAt ?? (typeof start === 'number' ? start * 1000 : now);
    return {
      sid: claims.sid,
      provider: claims.auth_provider?.name ?? '',
      amr: Array.isArray(claims.amr) ? claims.amr : [],
      created,
      lastSeen: now,
      device: deviceLabel(ctx.get('user-agent')),
      ip: networkOf(ctx.ip),
      expiresAt: this.expiry(created, now),
    };
  }

  private expiry(created: number, lastSeen: number): number {
    const idle = lastSeen + this.o.cookieDurationMs;
    return this.o.maxSessionAgeMs === undefined ? idle : Math.min(idle, created + this.o.maxSessionAgeMs);
  }

  /** The store key of a user's list: `d:<id>`, or the id's SHA-256 when it is too long for a key. */
  private key(userId: string): string {
    return userId.length <= 480 ? `d:${userId}` : `d:sha256:${createHash('sha256').update(userId).digest('base64url')}`;
  }

  /** Applies `change` to the user's live sessions by compare-and-set; an empty list removes the entry. */
  private async update(userId: string, change: (list: SessionRecord[]) => SessionRecord[]): Promise<void> {
    const key = this.key(userId);
    for (let i = 0; i < TRIES; i++) {
      const now = this.o.clock();
      const cur = await this.store.get<UserSessions>(SESSIONS_NS, key);
      const live = cur && cur.expiresAt > now ? cur : undefined;
      const list = change(live ? liveRecords(live.value.list, now) : []);
      if (list.length === 0) {
        if (!live || (await this.store.take(SESSIONS_NS, key, live.rev))) return;
        continue;
      }
      let expiresAt = 0;
      for (const r of list) if (r.expiresAt > expiresAt) expiresAt = r.expiresAt;
      // An expired entry not yet swept is overwritten by create(), which replace() would refuse.
      const written = live
        ? await this.store.replace(SESSIONS_NS, key, live.rev, { list }, expiresAt)
        : await this.store.create(SESSIONS_NS, key, { list }, expiresAt);
      if (written) return;
    }
    throw new Error(`sessions of ${userId}: the list kept changing`);
  }
}

/** The records of `list` still live at `now`: the list itself when all are (the usual case: no copy). */
function liveRecords(list: SessionRecord[], now: number): SessionRecord[] {
  for (let i = 0; i < list.length; i++) if (list[i].expiresAt <= now) return list.filter((r) => r.expiresAt > now);
  return list;
}

/**
 * The session list over `store`, with the revocations it writes kept as the instance keeps them: for the
 * longer of cookieDuration and tokenDuration. What the feature and sessionsAdmin() (the CLI's) are made of.
 */
export function sessionList(store: StateStore, o: SessionListConfig, events: EventSink = noEvents): SessionList {
  const keepMs = Math.max(o.cookieDurationMs, o.tokenDurationMs);
  return new SessionList(o, store, revocations(store, o.clock, keepMs, o.tokenDurationMs), events);
}
