import type { StateStore } from '../state/types.js';
import { NS, sha256, updateEntry } from './grant-entries.js';

/**
 * Each user's index of grants, one state-store entry per user (the store cannot list keys): the clients the user
 * granted, each with its families and whether a consent is remembered. listGrants(), revokeGrant() and revokeUser()
 * start from it, so a family is indexed before it is created (a crash between leaves a line pointing at nothing,
 * dropped at the next listing, never a family revokeUser() cannot find). Bounded: past the caps the oldest go,
 * and what goes is revoked by the caller (`dropped`), since a family out of the index could not be revoked by user.
 */

export interface IndexedFamily {
  id: string;
  createdAt: number;
}

export interface IndexedClient {
  clientId: string;
  families: IndexedFamily[];
  /** A consent entry may exist (consents.ts): forgotten with the client. */
  consent: boolean;
  /** When a family or a consent was last added: the least recent client is the one dropped over the cap. */
  touched: number;
}

interface UserIndex {
  clients: IndexedClient[];
}

/** What an addition pushed out of the index: families to revoke, clients whose consent to forget. */
export interface Dropped {
  families: string[];
  consents: string[];
}

export interface GrantIndexOptions {
  clock: () => number;
  maxFamiliesPerClient: number;
  maxClientsPerUser: number;
  /** The ids among `ids` whose family is still live: those over the cap are dropped only after the dead ones. */
  alive(ids: string[]): Promise<Set<string>>;
  /** Revokes and forgets what an addition pushed out (called after the index was written). */
  dropped(userId: string, what: Dropped): Promise<void>;
}

export interface GrantIndex {
  /** The user's clients, as indexed (families possibly expired since). */
  read(userId: string): Promise<IndexedClient[]>;
  /** Indexes the family (again: idempotent) and keeps the index until at least `until`. */
  addFamily(userId: string, clientId: string, family: IndexedFamily, until: number): Promise<void>;
  /** Marks the client's consent remembered, keeping the index until at least `until`. */
  addConsent(userId: string, clientId: string, until: number): Promise<void>;
  /** Drops these families wherever they are; a client left with nothing goes, and an index left empty. */
  dropFamilies(userId: string, ids: string[]): Promise<void>;
  /** Drops the client; resolves what was indexed for it. */
  dropClient(userId: string, clientId: string): Promise<IndexedClient | undefined>;
  /** Drops the whole index; resolves what it held. */
  dropUser(userId: string): Promise<IndexedClient[]>;
}

/** Writes the user's index through `change` (clients in, clients out; the same array: nothing to write). */
async function updateIndex(
  state: StateStore,
  clock: () => number,
  userId: string,
  until: number,
  change: (clients: IndexedClient[]) => IndexedClient[],
): Promise<void> {
  await updateEntry<UserIndex>(state, NS.user, sha256(userId), clock, (live) => {
    const before = live?.value.clients ?? [];
    const clients = change(before);
    const expiresAt = Math.max(live?.expiresAt ?? 0, until);
    if (clients === before && expiresAt === live?.expiresAt) return undefined;
    if (clients.length === 0) return live ? null : undefined;
    return { value: { clients }, expiresAt };
  });
}

export function grantIndex(state: StateStore, o: GrantIndexOptions): GrantIndex {
  const { clock } = o;
  const update = (userId: string, until: number, change: (clients: IndexedClient[]) => IndexedClient[]) =>
    updateIndex(state, clock, userId, until, change);
  /** Adds to the client's line (a family, a consent) with both caps applied; dead families leave first. */
  async function add(userId: string, clientId: string, until: number, family?: IndexedFamily): Promise<void> {
    const mine = (await index.read(userId)).find((c) => c.clientId === clientId);
    const present = !family || mine?.families.some((f) => f.id === family.id);
    const ids = mine?.families.map((f) => f.id) ?? [];
    // Only a client at its cap pays for the reads, so that dead families go before live ones. Only those read dead
    // are left out: one indexed meanwhile by another process is live.
    const live = !present && ids.length >= o.maxFamiliesPerClient ? await o.alive(ids) : undefined;
    const dead = new Set(live ? ids.filter((id) => !live.has(id)) : []);
    let dropped: Dropped = { families: [], consents: [] };
    const now = clock();
    await update(userId, until, (clients) => {
      dropped = { families: [], consents: [] };
      const old = clients.find((c) => c.clientId === clientId);
      if (old && (family ? old.families.some((f) => f.id === family.id) : old.consent)) return clients;
      let families = old?.families.filter((f) => !dead.has(f.id)) ?? [];
      if (family) families = [...families, family].sort((a, b) => a.createdAt - b.createdAt);
      const over = families.length - o.maxFamiliesPerClient;
      if (over > 0) dropped.families.push(...families.splice(0, over).map((f) => f.id));
      const line = { clientId, families, consent: !family || !!old?.consent, touched: now };
      const others = clients.filter((c) => c.clientId !== clientId);
      if (!old && others.length >= o.maxClientsPerUser) {
        others.sort((a, b) => a.touched - b.touched);
        for (const gone of others.splice(0, others.length - o.maxClientsPerUser + 1)) {
          dropped.families.push(...gone.families.map((f) => f.id));
          if (gone.consent) dropped.consents.push(gone.clientId);
        }
      }
      return [...others, line];
    });
    if (dropped.families.length > 0 || dropped.consents.length > 0) await o.dropped(userId, dropped);
  }

  const index: GrantIndex = {
    async read(userId) {
      const cur = await state.get<UserIndex>(NS.user, sha256(userId));
      return cur && cur.expiresAt > clock() ? cur.value.clients : [];
    },
    addFamily: (userId, clientId, family, until) => add(userId, clientId, until, family),
    addConsent: (userId, clientId, until) => add(userId, clientId, until),
    async dropFamilies(userId, ids) {
      const gone = new Set(ids);
      await update(userId, 0, (clients) => {
        if (!clients.some((c) => c.families.some((f) => gone.has(f.id)))) return clients;
        return clients
          .map((c) => ({ ...c, families: c.families.filter((f) => !gone.has(f.id)) }))
          .filter((c) => c.families.length > 0 || c.consent);
      });
    },
    async dropClient(userId, clientId) {
      let found: IndexedClient | undefined;
      await update(userId, 0, (clients) => {
        found = clients.find((c) => c.clientId === clientId);
        return found ? clients.filter((c) => c !== found) : clients;
      });
      return found;
    },
    async dropUser(userId) {
      let found: IndexedClient[] = [];
      await update(userId, 0, (clients) => {
        found = clients;
        return clients.length > 0 ? [] : clients;
      });
      return found;
    },
  };
  return index;
}
