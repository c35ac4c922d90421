import { createHash, randomBytes } from 'node:crypto';
import type { StateStore } from '../../state/types.js';
import type { LinkedIdentity } from './identities.js';

/**
 * What account linking hands a browser to carry from one request to a later one, kept in the state store under a
 * random id that only that browser holds (a cookie): the id is kept as its SHA-256 only, an entry lives for a
 * stated time and is spent once. Two uses:
 *
 * - a link intent: a fresh session asked to link the identity of the login it starts (`?link=1`); the provider's
 *   callback, in the same browser, links instead of logging in;
 * - an offer to link: a first login whose trusted, verified address is an account's (email.ts) makes no account and
 *   logs nobody in; it answers 409 `account_exists`, and the link is made when that same browser then logs in to the
 *   account with every factor, and never otherwise: an identity whose provider merely claims someone's address
 *   cannot wait for the owner's next login anywhere else and ride it.
 */

/** Entries kept for one browser each, spent once. */
export interface BrowserOffers<T> {
  /** Keeps `value` for `ttlMs`: the id for the browser's cookie, never stored as it is. */
  offer(value: T, ttlMs: number): Promise<string>;
  /**
   * The value of this id, spent, when it is live and `accept` takes it; undefined otherwise. A value `accept`
   * refuses is left as it was (a login to the wrong account does not spend an offer).
   */
  redeem(id: string, accept: (value: T) => boolean): Promise<T | undefined>;
}

const ID = /^[A-Za-z0-9_-]{43}$/;

const keyOf = (id: string) => createHash('sha256').update(id).digest('base64url');

/** Browser offers in namespace `ns` of a state store, on the instance's clock. */
export function browserOffers<T>(store: StateStore, ns: string, clock: () => number): BrowserOffers<T> {
  return {
    async offer(value, ttlMs) {
      const id = randomBytes(32).toString('base64url');
      if (!(await store.create(ns, keyOf(id), value, clock() + ttlMs)))
        throw new Error(`${ns}: a fresh 256-bit id was taken`);
      return id;
    },
    async redeem(id, accept) {
      if (!ID.test(id)) return undefined;
      const key = keyOf(id);
      const cur = await store.get<T>(ns, key);
      // get() hands back an expired entry not yet swept: its time is checked here.
      if (!cur || cur.expiresAt <= clock() || !accept(cur.value)) return undefined;
      // Spent once: of two requests racing with one cookie, one gets it.
      return (await store.take(ns, key, cur.rev)) ? cur.value : undefined;
    },
  };
}

/** The identity offered by address, and the account (by its user id) it may be linked to. */
export interface PendingLink {
  userId: string;
  identity: Omit<LinkedIdentity, 'userId' | 'linkedAt'>;
  /** ms since the epoch. */
  createdAt: number;
}

export interface PendingLinks {
  offer(link: PendingLink, ttlMs: number): Promise<string>;
  /** The offer of this id, spent, when it is live and for `userId`; undefined otherwise (and left as it was). */
  redeem(id: string, userId: string): Promise<PendingLink | undefined>;
}

/** Offers by address live this long: the 15 minutes. */
export const PENDING_LINK_MS = 15 * 60_000;

export function statePendingLinks(store: StateStore, clock: () => number): PendingLinks {
  const offers = browserOffers<PendingLink>(store, 'idn-offer', clock);
  return {
    offer: (link, ttlMs) => offers.offer(link, ttlMs),
    redeem: (id, userId) => offers.redeem(id, (link) => link.userId === userId),
  };
}

/** A fresh session's wish to link the identity of the login it starts (`/auth/<provider>/login?link=1`). */
export interface LinkIntent {
  /** The account's user id: the session's. */
  userId: string;
  /** The session that asked: it is kept when the link ends the account's other sessions. */
  sid?: string;
  /** The provider whose login was started: a callback of another one does not use it. */
  provider: string;
  /** Where the browser goes once linked, as the login's `from` (checked by the redirect policy). */
  from?: string;
}

/** A link intent lives this long: a provider's login page, a second factor there, and back. */
export const LINK_INTENT_MS = 10 * 60_000;

export function stateLinkIntents(store: StateStore, clock: () => number): BrowserOffers<LinkIntent> {
  return browserOffers<LinkIntent>(store, 'idn-intent', clock);
}
