/**
 * What a verifier has been told is revoked (docs/verify.md#revocation-from-the-app), in memory: sessions by `sid`,
 * refused whatever their tokens' age, and users with a cut-off, before which their tokens were issued are refused.
 * An entry is kept only while a token it could refuse may still be valid: a session's for `lifetimeMs` (the app's
 * tokenDuration) from when it arrived, a user's for `lifetimeMs` past its cut-off. So the set is bounded by what the
 * app revokes in one token lifetime, and by MAX_ENTRIES at worst (the oldest go first).
 */

/** What a check reads of a verified token. */
export interface TokenTimes {
  sid?: string;
  user?: { id?: string };
  /** Whole seconds. */
  iat?: number;
  /** The app's own claim: when the token was issued, in ms. */
  iat_ms?: number;
}

const MAX_ENTRIES = 100_000;

export class RevokedSet {
  /** sid → until (ms). */
  readonly #sessions = new Map<string, number>();
  /** user id → cut-off, the session kept, and until (ms). */
  readonly #users = new Map<string, { cutoff: number; until: number; except?: string }>();

  constructor(
    private readonly lifetimeMs: number,
    private readonly clock: () => number,
  ) {}

  /** The session `sid` is refused from now on (until no token of it can still be valid). */
  session(sid: string): void {
    this.#prune();
    this.#sessions.delete(sid);
    this.#sessions.set(sid, this.clock() + this.lifetimeMs);
  }

  /**
   * The user's tokens issued before `cutoffMs` are refused but those of the session `except` (the latest cut-off
   * holds, with the session it kept, as the app's own record does).
   */
  user(userId: string, cutoffMs: number, except?: string): void {
    this.#prune();
    const cur = this.#users.get(userId);
    const latest = !cur || cutoffMs >= cur.cutoff;
    const cutoff = latest ? cutoffMs : cur.cutoff;
    const kept = latest ? except : cur.except;
    this.#users.delete(userId);
    this.#users.set(userId, {
      cutoff,
      until: Math.max(cutoff, this.clock()) + this.lifetimeMs,
      ...(kept !== undefined && { except: kept }),
    });
  }

  /** Why the token is refused (`session`, `user`), or undefined when nothing known refuses it. */
  refuses(t: TokenTimes): 'session' | 'user' | undefined {
    const now = this.clock();
    if (t.sid !== undefined) {
      const until = this.#sessions.get(t.sid);
      if (until !== undefined && until > now) return 'session';
    }
    const id = t.user?.id;
    const entry = id === undefined ? undefined : this.#users.get(id);
    if (!entry || entry.until <= now || (entry.except !== undefined && t.sid === entry.except)) return undefined;
    // Without a time of issue, a token of a user with a cut-off may be from before it: refused.
    const issued = typeof t.iat_ms === 'number' ? t.iat_ms : typeof t.iat === 'number' ? t.iat * 1000 : -Infinity;
    return issued < entry.cutoff ? 'user' : undefined;
  }

  /** How many entries are held. */
  get size(): number {
    return this.#sessions.size + this.#users.size;
  }

  /** Drops entries past their time (the front of each map: entries are re-inserted when renewed), and any over MAX. */
  #prune(): void {
    const now = this.clock();
    for (const [sid, until] of this.#sessions) {
      if (until > now && this.size < MAX_ENTRIES) break;
      this.#sessions.delete(sid);
    }
    for (const [id, entry] of this.#users) {
      if (entry.until > now && this.size < MAX_ENTRIES) break;
      this.#users.delete(id);
    }
  }
}
