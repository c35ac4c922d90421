import { isStateStore, type StateStore } from '../state/types.js';
import { clientIndex } from './client-index.js';
import { codeBook } from './codes.js';
import { consentBook } from './consents.js';
import { familyBook, type FamilyBook } from './families.js';
import { inBatches, union } from './grant-entries.js';
import { grantIndex, type Dropped, type GrantIndex } from './grant-index.js';
import type { GrantStore, GrantStoreOptions, GrantSummary, RevokeReason, RevokedFamily } from './grant-types.js';

export type {
  CodeGrant,
  Family,
  GrantError,
  GrantStore,
  GrantStoreOptions,
  GrantSummary,
  RevokeReason,
} from './grant-types.js';

/**
 * The authorization server's grants in the state store: codes, grant families with their rotating refresh tokens,
 * consents, each user's index of them and each client's index of its users. Nothing is held in the process, so
 * every process on one store acts as one server (a code issued by one is redeemed at another) and a restart loses
 * nothing; every change several processes may make at once is a compare-and-set. Codes and refresh tokens are kept
 * under their SHA-256 only. This file checks the options and puts the parts together: codes.ts, families.ts,
 * consents.ts, grant-index.ts, client-index.ts.
 */

const DAY_MS = 86_400_000;

/** The options checked, defaults filled: a TypeError naming the option otherwise. */
function readOptions(state: StateStore, o: GrantStoreOptions): Required<GrantStoreOptions> {
  if (!isStateStore(state)) throw new TypeError('grantStore() requires a state store');
  if (typeof o !== 'object' || o === null) throw new TypeError('grantStore() requires options');
  const positive = (name: keyof GrantStoreOptions, fallback?: number): number => {
    const v = o[name] ?? fallback;
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1)
      throw new TypeError(`grantStore() requires ${name} as a positive integer`);
    return v;
  };
  if (typeof o.clock !== 'function') throw new TypeError('grantStore() requires clock as a function');
  for (const name of ['onRevoked', 'indexClient'] as const)
    if (o[name] !== undefined && typeof o[name] !== 'function')
      throw new TypeError(`grantStore() requires ${name} as a function`);
  return {
    codeTTLMs: positive('codeTTLMs'),
    refreshTTLMs: positive('refreshTTLMs'),
    clock: o.clock,
    consentTTLMs: positive('consentTTLMs', 365 * DAY_MS),
    maxFamiliesPerClient: positive('maxFamiliesPerClient', 20),
    maxClientsPerUser: positive('maxClientsPerUser', 200),
    indexClient: o.indexClient ?? (() => true),
    maxUsersPerClient: positive('maxUsersPerClient', 1000),
    onRevoked: o.onRevoked ?? (() => {}),
  };
}

/** The user's connected apps, from the index; families that ended on their own leave the index here. */
async function listGrants(index: GrantIndex, families: FamilyBook, userId: string): Promise<GrantSummary[]> {
  const lines = (await index.read(userId)).flatMap((c) => c.families.map((f) => ({ clientId: c.clientId, id: f.id })));
  const found = await inBatches(lines, async (line) => (await families.live(line.id))?.value);
  const byClient = new Map<string, Array<NonNullable<(typeof found)[number]>>>();
  const dead: string[] = [];
  found.forEach((f, i) => {
    const { clientId, id } = lines[i];
    if (f && f.userId === userId && f.clientId === clientId)
      byClient.set(clientId, [...(byClient.get(clientId) ?? []), f]);
    else dead.push(id);
  });
  // So the index holds live families, not every one there was.
  if (dead.length > 0) await index.dropFamilies(userId, dead);
  const summaries = [...byClient].map(([clientId, mine]): GrantSummary => ({
    clientId,
    scopes: union(...mine.map((f) => f.scopes)),
    resources: union(...mine.map((f) => f.resources)),
    firstUsed: Math.min(...mine.map((f) => f.createdAt)),
    lastUsed: Math.max(...mine.map((f) => f.lastUsed)),
  }));
  return summaries.sort((a, b) => b.lastUsed - a.lastUsed);
}

/**
 * The users' index with each addition indexed under its client first (`byClient`): a crash between leaves a user
 * under a client that has nothing of theirs, never a family revokeClient() cannot find.
 */
function indexedByClient(
  users: GrantIndex,
  byClient: (userId: string, clientId: string, until: number) => Promise<void>,
): GrantIndex {
  return {
    ...users,
    async addFamily(userId, clientId, family, until) {
      await byClient(userId, clientId, until);
      await users.addFamily(userId, clientId, family, until);
    },
    async addConsent(userId, clientId, until) {
      await byClient(userId, clientId, until);
      await users.addConsent(userId, clientId, until);
    },
  };
}

export function grantStore(state: StateStore, options: GrantStoreOptions): GrantStore {
  const o = readOptions(state, options);
  const { clock } = o;
  const onRevoked = async (ids: string[], reason: RevokeReason, whose: RevokedFamily[]) => {
    await o.onRevoked(ids, reason, whose);
  };
  // The index and the families need each other (the index drops families over its caps, a family is indexed when
  // it starts): the index is given functions that reach the families once both exist.
  const userIndex = grantIndex(state, {
    clock,
    maxFamiliesPerClient: o.maxFamiliesPerClient,
    maxClientsPerUser: o.maxClientsPerUser,
    alive: (ids) => families.alive(ids),
    dropped: (userId, what) => dropOverCap(userId, what),
  });
  const clientUsers = clientIndex(state, clock, o.maxUsersPerClient);
  const index = indexedByClient(userIndex, async (userId, clientId, until) => {
    if (o.indexClient(clientId)) await clientUsers.add(clientId, userId, until);
  });
  const families = familyBook({ state, clock, refreshTTLMs: o.refreshTTLMs, index, onRevoked });
  const codes = codeBook({ state, clock, codeTTLMs: o.codeTTLMs, families });
  const consents = consentBook({ state, clock, consentTTLMs: o.consentTTLMs, index });

  async function revokeGrant(userId: string, clientId: string): Promise<string[]> {
    const client = await index.dropClient(userId, clientId);
    await consents.forget(userId, clientId);
    const ids = client?.families.map((f) => f.id) ?? [];
    return families.revoke(ids, 'revoked', false);
  }

  async function dropOverCap(userId: string, what: Dropped): Promise<void> {
    await families.revoke(what.families, 'evicted', false);
    for (const clientId of what.consents) await consents.forget(userId, clientId);
  }

  return {
    issueCode: codes.issueCode,
    redeemCode: codes.redeemCode,
    async startFamily({ ttlMs, ...f }) {
      if (ttlMs !== undefined && (!Number.isSafeInteger(ttlMs) || ttlMs < 1))
        throw new TypeError('startFamily() requires ttlMs as a positive integer');
      const started = await families.start(f, undefined, ttlMs);
      // Only a family revoked before it existed is not started, and only a replayed code's family can be.
      if (!started) throw new Error('authorization server: a new family was revoked as it started');
      return started;
    },
    issueRefresh: (family) => families.issueRefresh(family),
    refresh: (token, ask) => families.refresh(token, ask),
    async revokeFamily(id) {
      if (typeof id === 'string' && id !== '') await families.revoke([id], 'revoked');
    },
    async isRevoked(id) {
      return (await families.live(id)) === undefined;
    },
    family: (id) => families.get(id),
    revokeRefresh: (token, clientId) => families.revokeRefresh(token, clientId),
    listGrants: (userId) => listGrants(index, families, userId),
    revokeGrant,
    async revokeUser(userId) {
      const clients = await index.dropUser(userId);
      for (const c of clients) if (c.consent) await consents.forget(userId, c.clientId);
      const ids = clients.flatMap((c) => c.families.map((f) => f.id));
      return families.revoke(ids, 'revoked', false);
    },
    async revokeClient(clientId) {
      if (typeof clientId !== 'string' || clientId === '') return [];
      const users = await clientUsers.read(clientId);
      const ids: string[] = [];
      // One user at a time: each revokeGrant() already reads and writes its families in batches.
      for (const userId of users) ids.push(...(await revokeGrant(userId, clientId)));
      // Only the users handled: one indexed meanwhile (a token request in flight) keeps its line for the next call.
      await clientUsers.drop(clientId, users);
      return ids;
    },
    hasConsent: consents.has,
    rememberConsent: consents.remember,
    touch: (id) => families.touch(id),
  };
}
