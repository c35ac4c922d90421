import { createHash, randomBytes } from 'node:crypto';
import type { StateStore } from '../state/types.js';
import type { LinkedIdentity } from './identities.js';

/**
 * An offer to link (issue #48; not wired into the service yet): a first login whose trusted, verified address is an
 * account's (link-email.ts) makes no account and logs nobody in; it answers 409 `account_exists` and keeps the
 * identity here for 15 minutes, under a random id that only the browser of that login holds (a cookie). The link is
 * made when that same browser then logs in to the account with every factor, and never otherwise: an identity
 * whose provider merely claims someone's address cannot wait for the owner's next login anywhere else and ride it.
 * The id is kept as its SHA-256 only, and an offer is spent once.
 */

/** The identity offered, and the account (by its user id) it may be linked to. */
export interface PendingLink {
  userId: string;
  identity: Omit<LinkedIdentity, 'userId' | 'linkedAt'>;
  /** ms since the epoch. */
  createdAt: number;
}

export interface PendingLinks {
  /** Keeps an offer for `ttlMs`: the id for the browser's cookie, never stored as it is. */
  offer(link: PendingLink, ttlMs: number): Promise<string>;
  /**
   * The offer of this id, spent, when it is live and for `userId`; undefined otherwise (an offer for another
   * account is left as it was: a login to the wrong account does not spend it).
   */
  redeem(id: string, userId: string): Promise<PendingLink | undefined>;
}

/** Offers live this long by default: the 15 minutes. */
export const PENDING_LINK_MS = 15 * 60_000;
const NS = 'idn-offer';
const ID = /^[A-Za-z0-9_-]{43}$/;

const keyOf = (id: string) => createHash('sha256').update(id).digest('base64url');

export function statePendingLinks(store: StateStore, clock: () => number): PendingLinks {
  return {
    async offer(link, ttlMs) {
      const id = randomBytes(32).toString('base64url');
      if (!(await store.create(NS, keyOf(id), link, clock() + ttlMs)))
        throw new Error('pending links: a fresh 256-bit id was taken');
      return id;
    },
    async redeem(id, userId) {
      if (!ID.test(id)) return undefined;
      const key = keyOf(id);
      const cur = await store.get<PendingLink>(NS, key);
      // get() hands back an expired entry not yet swept: its time is checked here.
      if (!cur || cur.expiresAt <= clock() || cur.value.userId !== userId) return undefined;
      // Spent once: of two logins racing with one cookie, one links.
      return (await store.take(NS, key, cur.rev)) ? cur.value : undefined;
    },
  };
}
