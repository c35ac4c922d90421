import { randomBytes } from 'node:crypto';
import type { StateStore } from '../../state/types.js';
import { copyClient } from './copy.js';
import type { ApplicationType, AuthMethod } from './metadata.js';
import type { OAuthClient } from './types.js';

/**
 * The dynamically registered clients, kept in the state store so every process sharing it knows them: one entry per
 * client under its id, and one index entry listing the ids, so `list()` needs no scan of the store (which no backend
 * offers). The index is bounded (`maxClients`) and written by compare-and-set, so two processes registering at once
 * both land in it. An entry expires with its registration; the index drops what has expired whenever it is written.
 */

export const CLIENT_NS = 'as-client';
export const INDEX_NS = 'as-client-index';
const INDEX_KEY = 'registered';
/** Lost races before a write of the index gives up (a conflict every time means a flood). */
const TRIES = 16;

/** A registered client's id: 128 random bits, base64url, so it never matches another's nor is guessed. */
export function newRegisteredClientId(): string {
  return randomBytes(16).toString('base64url');
}

/** Whether `id` has the form of a registered client's id (a client of the options may have it too). */
export function isRegisteredClientId(id: string): boolean {
  return typeof id === 'string' && /^[A-Za-z0-9_-]{22}$/.test(id);
}

/**
 * A registered client as stored: never its secret, only the secret's SHA-256 (a random 256-bit secret needs no
 * more).
 */
export interface StoredClient {
  client: OAuthClient;
  secretHash?: string;
  authMethod: AuthMethod;
  applicationType: ApplicationType;
  responseTypes: string[];
  /** ms since the epoch. */
  issuedAt: number;
  expiresAt: number;
}

interface IndexEntry {
  id: string;
  expiresAt: number;
}

export interface RegisteredClients {
  /** Stores `stored`; false when the index is full. */
  add(stored: StoredClient): Promise<boolean>;
  get(id: string): Promise<StoredClient | undefined>;
  list(): Promise<StoredClient[]>;
  /** True when there was such a client. */
  remove(id: string): Promise<boolean>;
}

export function registeredClients(state: StateStore, clock: () => number, maxClients: number): RegisteredClients {
  // This process's writes of the index go one at a time: a burst of registrations here would otherwise lose race
  // after race to itself; what is left to compare-and-set is the other processes.
  let queue: Promise<unknown> = Promise.resolve();
  function updateIndex(change: (live: IndexEntry[]) => IndexEntry[] | undefined): Promise<boolean> {
    const run = queue.then(() => writeIndex(change));
    queue = run.catch(() => undefined);
    return run;
  }

  /** The index changed by `change` (undefined from it: leave it), by compare-and-set; false when left as it was. */
  async function writeIndex(change: (live: IndexEntry[]) => IndexEntry[] | undefined): Promise<boolean> {
    for (let i = 0; i < TRIES; i++) {
      const now = clock();
      const held = await state.get<IndexEntry[]>(INDEX_NS, INDEX_KEY);
      const current = held && held.expiresAt > now ? held.value : [];
      const next = change(current.filter((e) => e.expiresAt > now));
      if (next === undefined) return false;
      if (next.length === 0) {
        if (!held || (await state.take(INDEX_NS, INDEX_KEY, held.rev))) return true;
        continue;
      }
      // The index lives as long as its longest-lived client; an expired one is overwritten by create().
      const expiresAt = Math.max(...next.map((e) => e.expiresAt));
      const written =
        held && held.expiresAt > now
          ? await state.replace(INDEX_NS, INDEX_KEY, held.rev, next, expiresAt)
          : await state.create(INDEX_NS, INDEX_KEY, next, expiresAt);
      if (written) return true;
    }
    throw new Error('authorization server: the index of registered clients kept changing');
  }

  async function get(id: string): Promise<StoredClient | undefined> {
    const held = await state.get<StoredClient>(CLIENT_NS, id);
    if (!held || held.expiresAt <= clock()) return undefined;
    return { ...held.value, client: copyClient(held.value.client), responseTypes: [...held.value.responseTypes] };
  }

  return {
    async add(stored) {
      const entry = { id: stored.client.id, expiresAt: stored.expiresAt };
      // The index first: a client listed whose entry is not written yet is skipped by list(), while a client
      // written but left out of a full index would be one nobody can list or revoke.
      const listed = await updateIndex((live) => (live.length >= maxClients ? undefined : [...live, entry]));
      if (!listed) return false;
      if (await state.create(CLIENT_NS, stored.client.id, stored, stored.expiresAt)) return true;
      throw new Error('authorization server: a registered client id was issued twice'); // 128 random bits: never
    },
    get,
    async list() {
      const held = await state.get<IndexEntry[]>(INDEX_NS, INDEX_KEY);
      const now = clock();
      const ids = held && held.expiresAt > now ? held.value.filter((e) => e.expiresAt > now).map((e) => e.id) : [];
      const found = await Promise.all(ids.map(get));
      return found.filter((c): c is StoredClient => c !== undefined);
    },
    async remove(id) {
      const existed = (await get(id)) !== undefined;
      await state.remove(CLIENT_NS, id);
      let listed = false;
      await updateIndex((live) => {
        listed = live.some((e) => e.id === id);
        return listed ? live.filter((e) => e.id !== id) : undefined;
      });
      return existed || listed;
    },
  };
}
