import type { StateStore } from '../state/types.js';
import { NS, sha256, updateEntry } from './grant-entries.js';

/**
 * Each client's index of the users holding a grant of it, one state-store entry per client: what revokeClient()
 * starts from when an operator removes a client, since the store cannot list keys. A user is indexed here before
 * the user's own index (grant-index.ts) names the client, so every family revokeClient() must reach is found from
 * here. Written by compare-and-set; each user's line lasts as long as the user's index of the client may, and the
 * lines that ended leave whenever the entry is written.
 *
 * Bounded (`maxUsers`): past it the line that would end first goes. Its user's families of the client are then out of
 * revokeClient()'s reach, which is why the server indexes only the clients it registered (GrantStoreOptions
 * `indexClient`): one of those is mostly one installation and one user, not the thousands of users a client of the
 * options or a metadata document has; and a removed client's tokens are refused anyway, since it no longer
 * authenticates.
 */

interface UserLine {
  id: string;
  /** ms since the epoch: until when the user's index may name the client. */
  until: number;
}

interface ClientUsers {
  users: UserLine[];
}

export interface ClientIndex {
  /** Indexes the user under the client until at least `until` (idempotent: an index that covers it is not written). */
  add(clientId: string, userId: string, until: number): Promise<void>;
  /** The users indexed under the client whose line has not ended. */
  read(clientId: string): Promise<string[]>;
  /** Forgets these users of the client; the entry goes with its last line. */
  drop(clientId: string, userIds: readonly string[]): Promise<void>;
}

export function clientIndex(state: StateStore, clock: () => number, maxUsers: number): ClientIndex {
  const key = (clientId: string) => sha256(clientId);
  const current = (lines: readonly UserLine[], now: number) => lines.filter((l) => l.until > now);

  async function read(clientId: string): Promise<UserLine[]> {
    const cur = await state.get<ClientUsers>(NS.client, key(clientId));
    const now = clock();
    return cur && cur.expiresAt > now ? current(cur.value.users, now) : [];
  }

  return {
    async add(clientId, userId, until) {
      // The common case, a user indexed a while ago for longer: one read, no write.
      if ((await read(clientId)).some((l) => l.id === userId && l.until >= until)) return;
      await updateEntry<ClientUsers>(state, NS.client, key(clientId), clock, (live) => {
        const lines = current(live?.value.users ?? [], clock());
        const mine = lines.find((l) => l.id === userId);
        if (mine && mine.until >= until) return undefined;
        const others = lines.filter((l) => l !== mine);
        // Over the cap, the lines that end first go: their grants are the nearest to ending by themselves.
        const kept = others.sort((a, b) => b.until - a.until).slice(0, maxUsers - 1);
        const users = [...kept, { id: userId, until: Math.max(until, mine?.until ?? 0) }];
        return { value: { users }, expiresAt: Math.max(...users.map((l) => l.until)) };
      });
    },
    read: async (clientId) => (await read(clientId)).map((l) => l.id),
    async drop(clientId, userIds) {
      const gone = new Set(userIds);
      await updateEntry<ClientUsers>(state, NS.client, key(clientId), clock, (live) => {
        if (!live) return undefined;
        const users = current(live.value.users, clock()).filter((l) => !gone.has(l.id));
        if (users.length === live.value.users.length) return undefined;
        return users.length === 0 ? null : { value: { users }, expiresAt: live.expiresAt };
      });
    },
  };
}
