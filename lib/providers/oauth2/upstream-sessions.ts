import { createHash } from 'node:crypto';
import { randomId } from '../../session/claims.js';
import type { StateStore } from '../../state/types.js';

/**
 * Which of our sessions came from which session at an OpenID provider, for its back-channel logouts: at the
 * callback our session's `sid` is chosen and the provider's `sid` and `sub` are kept for it (`p:<our sid>`, a
 * quarter of an hour, time enough for a second step); once the session is issued they are recorded under
 * the provider's `sid` and under its `sub`, each record listing our sessions with their users, and kept
 * as long as the longest of them may last. A logout token naming a `sid` finds the sessions of that
 * record (when its `sub`, if any, agrees); one naming only a `sub` finds every session of that user that
 * came through this provider. Keys are hashes of the provider's name and the value, so any `sid` fits.
 */

const NS = 'oidc-logout';
const PENDING_MS = 15 * 60_000;
/** How long a session is remembered when nothing bounds it (no `maxSessionAge`). */
const DEFAULT_KEEP_MS = 30 * 86_400_000;
/** The newest sessions one record keeps. */
const MAX_SESSIONS = 100;
const TRIES = 16;

/** The provider's session a login came from. */
interface Upstream {
  sub: string;
  sid?: string;
}

/** One of our sessions: its id, its user, until when it is remembered (ms). */
export interface OurSession {
  sid: string;
  user: string;
  until: number;
}

interface UpstreamRecord {
  sub: string;
  sessions: OurSession[];
}

/** Our sessions a logout token named, and how to forget them once they are ended. */
export interface Named {
  sessions: OurSession[];
  forget(): Promise<void>;
}

export class UpstreamSessions {
  constructor(
    private readonly name: string,
    private readonly store: StateStore,
    private readonly clock: () => number,
  ) {}

  /** At the callback: our session's id, chosen now, with the provider's session kept for it. */
  async opened(upstream: { sub: string; sid?: unknown }): Promise<string> {
    const sid = randomId();
    const value: Upstream = { sub: upstream.sub, ...(typeof upstream.sid === 'string' ? { sid: upstream.sid } : {}) };
    await this.store.create(NS, `p:${sid}`, value, this.clock() + PENDING_MS);
    return sid;
  }

  /** The session was issued: recorded under the provider's sid and sub (nothing for a session not opened here). */
  async started(sid: string | undefined, user: string | undefined, maxAgeMs: number | undefined): Promise<void> {
    if (!sid || !user) return;
    const pending = await this.store.get<Upstream>(NS, `p:${sid}`);
    const now = this.clock();
    if (!pending || pending.expiresAt <= now) return;
    await this.store.take(NS, `p:${sid}`, pending.rev);
    const ours: OurSession = { sid, user, until: now + (maxAgeMs ?? DEFAULT_KEEP_MS) };
    const { sub, sid: theirs } = pending.value;
    if (theirs !== undefined) await this.add(this.key('s', theirs), sub, ours);
    await this.add(this.key('u', sub), sub, ours);
  }

  /** The live sessions a logout token names: by its `sid` (whose `sub`, when given, must agree), else by `sub`. */
  async named(sub: string | undefined, sid: string | undefined): Promise<Named> {
    const key = sid !== undefined ? this.key('s', sid) : this.key('u', sub!);
    const entry = await this.store.get<UpstreamRecord>(NS, key);
    const now = this.clock();
    if (!entry || entry.expiresAt <= now || (sub !== undefined && entry.value.sub !== sub))
      return { sessions: [], forget: () => Promise.resolve() };
    return {
      sessions: entry.value.sessions.filter((s) => s.until > now),
      forget: async () => void (await this.store.take(NS, key, entry.rev)),
    };
  }

  private key(kind: 's' | 'u', value: string): string {
    return `${kind}:${createHash('sha256').update(`${this.name}\n${value}`).digest('base64url')}`;
  }

  /** Adds our session to a record, newest first, by compare-and-set. */
  private async add(key: string, sub: string, ours: OurSession): Promise<void> {
    for (let i = 0; i < TRIES; i++) {
      const now = this.clock();
      const cur = await this.store.get<UpstreamRecord>(NS, key);
      const live = cur && cur.expiresAt > now ? cur : undefined;
      const older = (live?.value.sessions ?? []).filter((s) => s.until > now && s.sid !== ours.sid);
      const sessions = [ours, ...older].slice(0, MAX_SESSIONS);
      const value: UpstreamRecord = { sub, sessions };
      const expiresAt = Math.max(...sessions.map((s) => s.until));
      // An expired entry not yet swept is overwritten by create(), which replace() would refuse.
      const written = live
        ? await this.store.replace(NS, key, live.rev, value, expiresAt)
        : await this.store.create(NS, key, value, expiresAt);
      if (written) return;
    }
    throw new Error(`${this.name}: the back-channel logout record kept changing`);
  }
}
