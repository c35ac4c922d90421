import type { StateStore } from '../state/types.js';
import type { User } from '../user.js';

/**
 * Where personal access tokens are kept, over any StateStore (LMDB, Redis with persistence, PostgreSQL,
 * MongoDB; memory in tests): one entry per token under its SHA-256, which is all a request needs to find it,
 * and one per user listing the user's tokens, changed by compare-and-set. The token itself is never written.
 */

/** One token, as kept: never its secret. Times are ms since the epoch. */
export interface PersonalToken {
  /** Public and stable: what the list shows and DELETE names (`pat_…`). */
  id: string;
  userId: string;
  /** The user it acts as: its owner as the session that made it had them (without `aud` and `ip`). */
  user: User;
  /**
   * The provider the owner had logged in through (the session's `auth_provider`): a token of a provider no longer
   * configured is refused, as that provider's sessions are.
   */
  provider?: string;
  /** What its owner called it ("CI deploy"). */
  name: string;
  /**
   * What it may do: `auth.middleware.scope(...)` lets it through only with every scope it names. Empty: the
   * routes that ask for no scope. Never the account routes, whatever its scopes.
   */
  scopes: string[];
  created: number;
  /** When it stops working; undefined: never. */
  expires?: number;
  /** The last request it authenticated, to the minute (see touch()). */
  lastUsed?: number;
  /** tokenHash() of the secret: the key it is found by. */
  hash: string;
}

/** The personal tokens of every user, over a state store. */
export interface PersonalTokenStore {
  /**
   * Keeps a new token; false when its hash or id is taken (a collision: mint again). With `limit`, rejects with
   * TooManyTokens, keeping nothing, when the user already holds that many: checked in the compare-and-set that lists
   * the token, so racing creations cannot pass it together.
   */
  create(token: PersonalToken, limit?: number): Promise<boolean>;
  /** The live token with this hash; undefined when there is none, or it has expired at `now`. */
  findByHash(hash: string, now: number): Promise<PersonalToken | undefined>;
  /** The user's tokens, live ones only, oldest first. */
  list(userId: string, now: number): Promise<PersonalToken[]>;
  /** Revokes the user's token `id`: the token revoked, or undefined when the user has none by that id. */
  revoke(userId: string, id: string): Promise<PersonalToken | undefined>;
  /** Revokes every token of the user (an account's deletion): the tokens revoked. */
  revokeAll(userId: string): Promise<PersonalToken[]>;
  /** Records a use at `at`, unless one was recorded within the last minute: a hot token writes once a minute. */
  touch(token: PersonalToken, at: number): Promise<void>;
}

/** A new token past the user's limit (create's `limit`): nothing was kept. */
export class TooManyTokens extends Error {
  override readonly name = 'TooManyTokens';
  constructor(readonly limit: number) {
    super(`a user holds at most ${limit} tokens`);
  }
}

const TOKENS = 'pat';
const USERS = 'pat-user';
/** Tokens without an expiry, and the user index: the latest time a state store can hold. */
const FOREVER = 8_640_000_000_000_000;
const TRIES = 16;
const TOUCH_EVERY_MS = 60_000;

/** A user's index: the id and hash of each of their tokens. */
interface UserIndex {
  tokens: Array<{ id: string; hash: string }>;
}

/**
 * The record of the user's token `hash`, taken by compare-and-set; tried again when it changed meanwhile: a use
 * recorded just before (touch) rewrites it, and a revocation that lost to it would leave the token live and out of
 * its user's index. Undefined when it is not there (or not the user's).
 */
async function takeToken(store: StateStore, userId: string, hash: string): Promise<PersonalToken | undefined> {
  for (let i = 0; i < TRIES; i++) {
    const cur = await store.get<PersonalToken>(TOKENS, hash);
    if (cur === undefined || cur.value.userId !== userId) return undefined;
    if (await store.take(TOKENS, hash, cur.rev)) return cur.value;
  }
  throw new Error('personal tokens: the token kept changing while it was revoked');
}

export function statePersonalTokenStore(store: StateStore): PersonalTokenStore {
  async function updateIndex(userId: string, change: (index: UserIndex) => UserIndex): Promise<void> {
    for (let i = 0; i < TRIES; i++) {
      const cur = await store.get<UserIndex>(USERS, userId);
      if (!cur) {
        if (await store.create(USERS, userId, change({ tokens: [] }), FOREVER)) return;
      } else {
        const next = change(cur.value);
        if (next === cur.value || (await store.replace(USERS, userId, cur.rev, next, FOREVER))) return;
      }
    }
    throw new Error(`personal tokens of ${userId}: the index kept changing`);
  }
  const live = (t: PersonalToken | undefined, now: number) =>
    t !== undefined && (t.expires === undefined || now < t.expires) ? t : undefined;
  /** Takes the token, then its line in the index; the record taken, or undefined when it was not there. */
  const remove = async (userId: string, entry: { id: string; hash: string }) => {
    const gone = await takeToken(store, userId, entry.hash);
    await updateIndex(userId, (index) => ({ tokens: index.tokens.filter((x) => x.id !== entry.id) }));
    return gone;
  };
  return {
    async create(token, limit = Infinity) {
      const mine = (await store.get<UserIndex>(USERS, token.userId))?.value.tokens ?? [];
      if (mine.some((x) => x.id === token.id)) return false;
      // The token first, then its line in the index: list() drops a line whose token is missing, never a token.
      if (!(await store.create(TOKENS, token.hash, token, token.expires ?? FOREVER))) return false;
      let full = false;
      await updateIndex(token.userId, (index) => {
        full = index.tokens.length >= limit;
        return full ? index : { tokens: [...index.tokens, { id: token.id, hash: token.hash }] };
      });
      if (!full) return true;
      await store.remove(TOKENS, token.hash);
      throw new TooManyTokens(limit);
    },
    async findByHash(hash, now) {
      return live((await store.get<PersonalToken>(TOKENS, hash))?.value, now);
    },
    async list(userId, now) {
      const index = (await store.get<UserIndex>(USERS, userId))?.value.tokens ?? [];
      const found = await Promise.all(index.map(async (x) => (await store.get<PersonalToken>(TOKENS, x.hash))?.value));
      const mine = found.filter((t): t is PersonalToken => live(t, now) !== undefined && t!.userId === userId);
      // Expired tokens leave the index here, so a user's index holds their live tokens and not every one they made.
      if (mine.length < index.length) {
        const kept = new Set(mine.map((t) => t.id));
        await updateIndex(userId, (cur) => {
          const tokens = cur.tokens.filter((x) => kept.has(x.id) || !index.some((old) => old.id === x.id));
          return tokens.length === cur.tokens.length ? cur : { tokens };
        });
      }
      return mine;
    },
    async revoke(userId, id) {
      const entry = (await store.get<UserIndex>(USERS, userId))?.value.tokens.find((x) => x.id === id);
      return entry ? remove(userId, entry) : undefined;
    },
    async revokeAll(userId) {
      const index = (await store.get<UserIndex>(USERS, userId))?.value.tokens ?? [];
      const gone: PersonalToken[] = [];
      for (const entry of index) {
        const token = await remove(userId, entry);
        if (token) gone.push(token);
      }
      return gone;
    },
    async touch(token, at) {
      if (token.lastUsed !== undefined && at - token.lastUsed < TOUCH_EVERY_MS) return;
      const cur = await store.get<PersonalToken>(TOKENS, token.hash);
      if (!cur || (cur.value.lastUsed !== undefined && at - cur.value.lastUsed < TOUCH_EVERY_MS)) return;
      // A lost race is another request's touch of the same minute: nothing to do again.
      await store.replace(TOKENS, token.hash, cur.rev, { ...cur.value, lastUsed: at }, token.expires ?? FOREVER);
    },
  };
}
