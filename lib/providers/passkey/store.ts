import { createHash, randomBytes } from 'node:crypto';
import type { StateStore } from '../../state/types.js';

/** One registered passkey: the public half of a WebAuthn credential and whose it is. */
export interface Passkey {
  /** The credential id, base64url. */
  id: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last seen (0 for authenticators that do not count). */
  counter: number;
  transports?: string[];
  /** The authkoa user id it logs in as, and the name and picture the session gets. */
  userId: string;
  userName: string;
  userPicture?: string;
  /** The WebAuthn user handle: random per user, never the user id. */
  userHandle: string;
  /** `singleDevice` or `multiDevice` (a synced passkey), and whether it is backed up. */
  deviceType?: string;
  backedUp?: boolean;
  /** The browser and system it was added from ("Chrome on macOS", deviceLabel); absent on older records. */
  device?: string;
  /** ms since the epoch. */
  createdAt: number;
  lastUsedAt?: number;
}

/** Where passkeys are kept. Every write is atomic across the processes sharing the store. */
export interface PasskeyStore {
  get(credentialId: string): Promise<Passkey | undefined>;
  listByUser(userId: string): Promise<Passkey[]>;
  /** The user's WebAuthn handle, made (randomly) on first use. */
  userHandle(userId: string): Promise<string>;
  /** Saves a new passkey; false when the credential id is already registered. */
  save(passkey: Passkey): Promise<boolean>;
  /** Records a use: the new counter, only if it moved forward (or both are 0). False otherwise. */
  updateCounter(credentialId: string, counter: number, usedAt: number): Promise<boolean>;
  /** Removes a passkey; false when there was none. */
  remove(credentialId: string): Promise<boolean>;
}

const KEYS = 'passkey';
const USERS = 'passkey-user';
/** Passkeys do not expire: the latest time a state store can hold. */
const FOREVER = 8_640_000_000_000_000;
const TRIES = 16;

interface UserIndex {
  handle: string;
  ids: string[];
}

/**
 * A PasskeyStore over a StateStore, so every state-store backend (LMDB, Redis, MongoDB, memory for
 * tests, a registered scheme) keeps passkeys too: one entry per credential, and one per user with the
 * user's handle and credential ids, each changed by compare-and-set. The store must be durable:
 * memory forgets every passkey at a restart, and Redis needs persistence turned on.
 */
export function statePasskeyStore(store: StateStore): PasskeyStore {
  /** Applies `change` to the user's index by compare-and-set; returns the index written. */
  async function updateIndex(userId: string, change: (index: UserIndex) => UserIndex): Promise<UserIndex> {
    for (let i = 0; i < TRIES; i++) {
      const cur = await store.get<UserIndex>(USERS, userId);
      if (!cur) {
        const next = change({ handle: randomBytes(32).toString('base64url'), ids: [] });
        if (await store.create(USERS, userId, next, FOREVER)) return next;
      } else {
        const next = change(cur.value);
        if (next === cur.value) return next;
        if (await store.replace(USERS, userId, cur.rev, next, FOREVER)) return next;
      }
    }
    throw new Error(`passkeys of ${userId}: the index kept changing`);
  }

  /**
   * The store key of a credential id: the id itself, or its SHA-256 when it is longer than a store key
   * may be (WebAuthn allows ids of up to 1023 bytes; every store takes keys of up to 512 characters).
   */
  const key = (id: string) => (id.length <= 512 ? id : `sha256:${createHash('sha256').update(id).digest('base64url')}`);

  return {
    async get(id) {
      return (await store.get<Passkey>(KEYS, key(id)))?.value;
    },
    async listByUser(userId) {
      const index = await store.get<UserIndex>(USERS, userId);
      const found = await Promise.all(
        (index?.value.ids ?? []).map(async (id) => (await store.get<Passkey>(KEYS, key(id)))?.value),
      );
      return found.filter((p): p is Passkey => p !== undefined && p.userId === userId);
    },
    async userHandle(userId) {
      return (await updateIndex(userId, (index) => index)).handle;
    },
    async save(passkey) {
      if (!(await store.create(KEYS, key(passkey.id), passkey, FOREVER))) return false;
      await updateIndex(passkey.userId, (index) =>
        index.ids.includes(passkey.id) ? index : { ...index, ids: [...index.ids, passkey.id] },
      );
      return true;
    },
    async updateCounter(id, counter, usedAt) {
      for (let i = 0; i < TRIES; i++) {
        const cur = await store.get<Passkey>(KEYS, key(id));
        if (!cur) return false;
        const old = cur.value.counter;
        if (!(counter > old || (counter === 0 && old === 0))) return false;
        if (await store.replace(KEYS, key(id), cur.rev, { ...cur.value, counter, lastUsedAt: usedAt }, FOREVER))
          return true;
      }
      return false;
    },
    async remove(id) {
      const cur = await store.get<Passkey>(KEYS, key(id));
      if (!cur || !(await store.take(KEYS, key(id), cur.rev))) return false;
      await updateIndex(cur.value.userId, (index) => ({ ...index, ids: index.ids.filter((x) => x !== id) }));
      return true;
    },
  };
}
