import { AuthError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Broadcast, BroadcastFollower } from '../state/broadcast.js';
import type { Claims } from './claims.js';
import {
  REVOCATION_TOPIC,
  revokedBy,
  type RevocationNotice,
  type Revocations,
  type UserRevocation,
} from './revocation.js';

/**
 * The revocation channel's receiving end, one per process: every revocation any process of the service
 * records is published on the state store's broadcast (revocation.ts), and this applies it to a set in
 * memory that each protected request consults with no store read. The set holds a revocation only as long
 * as a token it refuses can still be valid (`tokenDuration`, plus clock skew): past that, every such token
 * has expired and its refresh reads the store. While the channel is not live (starting, reconnecting: a
 * revocation may have been missed), a request is checked against the store instead, as strictRevocation
 * does — never by a set that might be missing one.
 */

/** Clock skew between processes allowed for: a revocation is kept this much longer than its tokens' life. */
const SKEW_MS = 60_000;
/** Applied notices between two sweeps of the set. */
const SWEEP_EVERY = 256;

/** The revocations a process knows of, each until no token it refuses can still be valid. */
export class RevokedSet {
  private readonly sessions = new Map<string, number>();
  private readonly tokens = new Map<string, number>();
  private readonly users = new Map<string, { until: number; r: UserRevocation }>();
  private untilSweep = SWEEP_EVERY;

  constructor(private readonly tokenDurationMs: number) {}

  get size(): number {
    return this.sessions.size + this.tokens.size + this.users.size;
  }

  apply(notice: RevocationNotice, now: number): void {
    const until = Math.min(notice.until, now + this.tokenDurationMs + SKEW_MS);
    if ('s' in notice) this.sessions.set(notice.s, Math.max(until, this.sessions.get(notice.s) ?? 0));
    else if ('t' in notice) this.tokens.set(notice.t, Math.max(until, this.tokens.get(notice.t) ?? 0));
    else {
      const known = this.users.get(notice.u);
      // The latest "not before" wins, as the store's record does (the last revocation is the one kept).
      if (!known || (notice.notBeforeMs ?? 0) >= (known.r.notBeforeMs ?? 0))
        this.users.set(notice.u, {
          until,
          r: { notBefore: notice.notBefore, notBeforeMs: notice.notBeforeMs, except: notice.except },
        });
    }
    if (--this.untilSweep <= 0) this.sweep(now);
  }

  /**
   * Throws 401 `session_revoked` for the claims of an ended session or token, or of a revoked user. The clock is
   * read only when the set holds one of them: every protected request comes here, and almost none is revoked.
   */
  check(claims: Claims, clock: () => number): void {
    const session = claims.sid === undefined ? undefined : this.sessions.get(claims.sid);
    if (session !== undefined && session > clock()) throw ended();
    const token = claims.jti === undefined ? undefined : this.tokens.get(claims.jti);
    if (token !== undefined && token > clock()) throw ended();
    const id = claims.user?.id;
    const user = id === undefined ? undefined : this.users.get(id);
    if (user && user.until > clock() && revokedBy(claims, user.r, this.tokenDurationMs))
      throw new AuthError('session_revoked', 'sessions of this user were revoked');
  }

  /**
   * Drops what no valid token can be refused by any more. The next sweep comes after SWEEP_EVERY notices, or after
   * a quarter of what is left when that is more: a sweep visits every entry, and the set holds every session a
   * login past maxSessionsPerUser ended (one per such login, for tokenDuration), so a notice pays for about four
   * visits however large the set grows.
   */
  sweep(now: number): void {
    for (const map of [this.sessions, this.tokens]) for (const [k, until] of map) if (until <= now) map.delete(k);
    for (const [k, u] of this.users) if (u.until <= now) this.users.delete(k);
    this.untilSweep = Math.max(SWEEP_EVERY, this.size >> 2);
  }
}

function ended(): AuthError {
  return new AuthError('session_revoked', 'session was ended');
}

/** A process's revocation channel: the set while the channel is live, the store while it is not. */
export class RevocationWatch {
  readonly set: RevokedSet;
  private liveNow = false;
  /** Whether the channel has been lost since it started: its return is then logged. */
  private lost = false;
  private follower: BroadcastFollower | undefined;

  constructor(
    private readonly broadcast: Broadcast,
    private readonly store: Revocations,
    private readonly clock: () => number,
    private readonly tokenDurationMs: number,
    private readonly logger: Logger,
  ) {
    this.set = new RevokedSet(tokenDurationMs);
  }

  /** Whether the set is trusted: the channel caught up and is receiving. */
  get live(): boolean {
    return this.liveNow;
  }

  /** Starts following, from as far back as a token still valid could have been revoked. */
  start(): void {
    if (this.follower) return;
    this.follower = this.broadcast.follow(
      REVOCATION_TOPIC,
      this.tokenDurationMs + SKEW_MS,
      (body) => this.receive(body),
      (live) => this.status(live),
    );
  }

  /**
   * Throws 401 `session_revoked` for revoked claims, with no I/O while the channel is live; while it is
   * not, the store's check (a read; 503 when the store is away too).
   */
  check(claims: Claims): void | Promise<void> {
    if (this.liveNow) return this.set.check(claims, this.clock);
    return this.store.check(claims);
  }

  close(): void {
    this.follower?.close();
    this.follower = undefined;
    this.liveNow = false;
  }

  private receive(body: unknown): void {
    if (isNotice(body)) this.set.apply(body, this.clock());
  }

  private status(live: boolean): void {
    if (live === this.liveNow) return;
    this.liveNow = live;
    // Going live at start-up is the normal case and says nothing; coming back after a loss is worth a line.
    if (live && this.lost) this.logger.info('revocation channel back: protected requests read no store');
    if (!live) this.logger.warn('revocation channel down: protected requests read the state store until it is back');
    this.lost ||= !live;
  }
}

function isNotice(body: unknown): body is RevocationNotice {
  if (typeof body !== 'object' || body === null) return false;
  const n = body as Record<string, unknown>;
  if (typeof n.until !== 'number') return false;
  return (
    typeof n.s === 'string' || typeof n.t === 'string' || (typeof n.u === 'string' && typeof n.notBefore === 'number')
  );
}
