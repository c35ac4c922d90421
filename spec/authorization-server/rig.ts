/**
 * What the grant store's tests share: every state store they run on (memory on the test's clock, then LMDB files, a
 * real redis-server, a real PostgreSQL and the CongoDB stand-in), a grant store on a clock the test moves, and PKCE
 * pairs made by oauth4webapi, so the S256 check is held to another implementation.
 */
import type { ExecutionContext, TestFn } from 'ava';
import * as oauth from 'oauth4webapi';
import {
  grantStore,
  type CodeGrant,
  type GrantStoreOptions,
  type RevokeReason,
} from '../../lib/authorization-server/grant-store.js';
import { memoryStateStore } from '../../lib/state/memory.js';
import type { StateStore } from '../../lib/state/types.js';
import { useStateBackends } from '../helpers/state-backends.js';

/** The tests' epoch, ahead of the wall clock: a persistent store (on the wall clock) keeps what they write live. */
export const NOW = 1_800_000_000_000;
export const DAY = 86_400_000;
export const CODE_TTL = 60_000;
export const REFRESH_TTL = 30 * DAY;

export type OpenState = (t: ExecutionContext, clock: () => number) => Promise<StateStore>;

/** The memory store on the test's clock, then every persistent backend. */
export function everyBackend(test: TestFn): Array<[label: string, open: OpenState]> {
  return [['memory', async (_t, clock) => memoryStateStore({ clock })], ...useStateBackends(test)];
}

export interface Rig {
  store: ReturnType<typeof grantStore>;
  state: StateStore;
  /** Moves the clock forward. */
  advance(ms: number): void;
  now(): number;
  /** What onRevoked heard, in order. */
  told: Array<{ ids: string[]; reason: RevokeReason }>;
}

export async function rig(t: ExecutionContext, open: OpenState, over: Partial<GrantStoreOptions> = {}): Promise<Rig> {
  let now = NOW;
  const clock = () => now;
  const state = await open(t, clock);
  t.teardown(() => state.close().catch(() => {}));
  const told: Rig['told'] = [];
  const store = grantStore(state, {
    codeTTLMs: CODE_TTL,
    refreshTTLMs: REFRESH_TTL,
    clock,
    onRevoked: (ids, reason) => void told.push({ ids, reason }),
    ...over,
  });
  return { store, state, told, advance: (ms) => (now += ms), now: clock };
}

export async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  return { verifier, challenge: await oauth.calculatePKCECodeChallenge(verifier) };
}

export const REDIRECT = 'https://app.example/cb';

export function codeGrant(challenge: string, over: Partial<CodeGrant> = {}): CodeGrant {
  return {
    clientId: 'app',
    redirectURI: REDIRECT,
    challenge,
    scopes: ['openid', 'read', 'write'],
    resources: ['https://api.example/'],
    userId: 'alice',
    authTime: NOW / 1000,
    nonce: 'n-1',
    sid: 'session-1',
    ...over,
  };
}

/** A code issued and redeemed as its client would: the family it started, and a refresh token of it. */
export async function authorized(r: Rig, over: Partial<CodeGrant> = {}) {
  const { verifier, challenge } = await pkce();
  const grant = codeGrant(challenge, over);
  const code = await r.store.issueCode(grant);
  const redeemed = await r.store.redeemCode(code, { clientId: grant.clientId, redirectURI: REDIRECT, verifier });
  if ('error' in redeemed) throw new Error(`redeemCode: ${redeemed.description}`);
  const refreshToken = await r.store.issueRefresh(redeemed.family);
  return { code, grant, verifier, family: redeemed.family, refreshToken };
}

/**
 * `state` with its writes to namespace `ns` held until `reads` reads of it have been answered: requests that all
 * read an entry before any of them writes it, the race a compare-and-set must settle, made certain.
 */
export function readsFirst(state: StateStore, ns: string, reads: number): StateStore {
  let seen = 0;
  let release!: () => void;
  const allRead = new Promise<void>((resolve) => (release = resolve));
  return {
    create: (...a) => state.create(...a),
    async get<V>(n: string, key: string) {
      const entry = await state.get<V>(n, key);
      if (n === ns && ++seen >= reads) release();
      return entry;
    },
    async replace(n, key, rev, value, expiresAtMs) {
      if (n === ns) await allRead;
      return state.replace(n, key, rev, value, expiresAtMs);
    },
    take: (...a) => state.take(...a),
    remove: (...a) => state.remove(...a),
    sweep: () => state.sweep(),
    markUsed: (...a) => state.markUsed(...a),
    close: () => state.close(),
  };
}
