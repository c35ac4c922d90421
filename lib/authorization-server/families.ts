import type { StateEntry, StateStore } from '../state/types.js';
import { inBatches, NS, newFamilyId, newSecret, sha256, subset, union, updateEntry } from './grant-entries.js';
import type { GrantIndex } from './grant-index.js';
import type { Family, GrantError, GrantStore, RevokeReason, RevokedFamily } from './grant-types.js';

/**
 * Grant families and their refresh tokens in the state store. A family lives while a token of it may (its entry's
 * expiry follows its newest refresh token); revoking it writes a mark and deletes it, so whatever a token of it asks
 * afterwards finds nothing. Refresh tokens rotate: each is kept, spent, until its own expiry, so presenting it again
 * is recognised as a reuse and revokes the family (RFC 9700 §4.14.2).
 */

/** A family as kept: what `Family` says, plus when it was last used and how long its user's index is known to last. */
interface StoredFamily extends Family {
  lastUsed: number;
  indexedUntil: number;
}

/** A refresh token as kept, under its SHA-256. */
interface RefreshEntry {
  family: string;
  clientId: string;
  spent: boolean;
}

export interface FamilyBookOptions {
  state: StateStore;
  clock: () => number;
  refreshTTLMs: number;
  index: GrantIndex;
  onRevoked: (ids: string[], reason: RevokeReason, families: RevokedFamily[]) => Promise<void>;
}

type RefreshResult = Awaited<ReturnType<GrantStore['refresh']>>;

const TOUCH_EVERY_MS = 60_000;

const view = (f: Family): Family => ({
  id: f.id,
  userId: f.userId,
  clientId: f.clientId,
  scopes: f.scopes,
  resources: f.resources,
  ...(f.authTime !== undefined && { authTime: f.authTime }),
  createdAt: f.createdAt,
  ...(f.profile !== undefined && { profile: f.profile }),
  ...(f.claims !== undefined && { claims: f.claims }),
  ...(f.sessionId !== undefined && { sessionId: f.sessionId }),
});

const fail = <E extends string>(error: E, description: string): GrantError<E> => ({ error, description });

export class FamilyBook {
  readonly #o: FamilyBookOptions;
  readonly #state: StateStore;
  readonly #clock: () => number;
  readonly #refreshTTLMs: number;
  readonly #index: GrantIndex;
  /** How long past a family's own end its user's index is kept: one write of the index per refresh lifetime. */
  readonly #indexSlack: number;

  constructor(o: FamilyBookOptions) {
    this.#o = o;
    this.#state = o.state;
    this.#clock = o.clock;
    this.#refreshTTLMs = o.refreshTTLMs;
    this.#index = o.index;
    this.#indexSlack = o.refreshTTLMs;
  }

  /** The family's live entry: undefined when unknown, expired or revoked. */
  async live(id: string): Promise<StateEntry<StoredFamily> | undefined> {
    if (typeof id !== 'string' || id === '') return undefined;
    const [cur, mark] = await Promise.all([
      this.#state.get<StoredFamily>(NS.family, id),
      this.#state.get(NS.revoked, id),
    ]);
    const now = this.#clock();
    return cur && cur.expiresAt > now && !(mark && mark.expiresAt > now) ? cur : undefined;
  }

  /** The family's view while it is live. */
  async get(id: string): Promise<Family | undefined> {
    const cur = await this.live(id);
    return cur && view(cur.value);
  }

  /**
   * Revokes the families: a mark each (kept while a token of it could live, so a family created after its revocation
   * — a code replayed before its redemption finished — is born revoked), the entry deleted, the index line dropped.
   * Resolves the ids that were live; the listener hears of them (or, for a replay or a reuse, of every id).
   */
  async revoke(ids: string[], reason: RevokeReason, indexed = true): Promise<string[]> {
    const now = this.#clock();
    const found = await inBatches(ids, async (id) => {
      const cur = await this.#state.get<StoredFamily>(NS.family, id);
      await this.#state.create(NS.revoked, id, { at: now }, Math.max(now + this.#refreshTTLMs, cur?.expiresAt ?? 0));
      if (!cur) return undefined;
      await this.#state.remove(NS.family, id);
      return cur.expiresAt > now ? cur.value : undefined;
    });
    const gone = found.filter((f): f is StoredFamily => f !== undefined);
    if (indexed) for (const f of gone) await this.#index.dropFamilies(f.userId, [f.id]);
    const told = reason === 'code_replay' || reason === 'refresh_reuse' ? ids : gone.map((f) => f.id);
    const whose = gone.map((f) => ({ id: f.id, userId: f.userId, clientId: f.clientId }));
    if (told.length > 0) await this.#o.onRevoked(told, reason, whose);
    return gone.map((f) => f.id);
  }

  /** Starts a family under `id`; undefined when it was revoked before it was created (a replayed code). */
  async start(
    f: Omit<Family, 'id' | 'createdAt'>,
    id = newFamilyId(),
    ttlMs = this.#refreshTTLMs,
  ): Promise<Family | undefined> {
    const now = this.#clock();
    const family = view({ ...f, id, scopes: union(f.scopes), resources: union(f.resources), createdAt: now });
    const indexedUntil = now + ttlMs + this.#indexSlack;
    await this.#index.addFamily(f.userId, f.clientId, { id, createdAt: now }, indexedUntil);
    if (!(await this.#state.create(NS.family, id, { ...family, lastUsed: now, indexedUntil }, now + ttlMs)))
      throw new Error('authorization server: a new family id was taken');
    if (await this.live(id)) return family;
    await this.#state.remove(NS.family, id);
    return undefined;
  }

  /**
   * Keeps the family live until at least `until` and marks it used now; false when it is gone. Its user's index is
   * written only when it would end before the family: once per refresh lifetime, not at every refresh.
   */
  async extend(id: string, until: number): Promise<boolean> {
    const cur = await this.live(id);
    if (!cur) return false;
    const now = this.#clock();
    // Raised only when written: the family's record of it must never be later than the index's own expiry.
    let indexedUntil = cur.value.indexedUntil;
    if (indexedUntil < until) {
      const { userId, clientId, createdAt } = cur.value;
      indexedUntil = until + this.#indexSlack;
      await this.#index.addFamily(userId, clientId, { id, createdAt }, indexedUntil);
    }
    let kept = false;
    await updateEntry<StoredFamily>(this.#state, NS.family, id, this.#clock, (e) => {
      kept = e !== undefined;
      if (!e) return undefined;
      const value = { ...e.value, lastUsed: now, indexedUntil: Math.max(e.value.indexedUntil, indexedUntil) };
      return { value, expiresAt: Math.max(e.expiresAt, until) };
    });
    return kept;
  }

  /** A new refresh token of the family, stored only if the family is still live. */
  async mint(family: Pick<Family, 'id' | 'clientId'>): Promise<string | undefined> {
    const token = newSecret();
    const until = this.#clock() + this.#refreshTTLMs;
    if (!(await this.extend(family.id, until))) return undefined;
    const entry: RefreshEntry = { family: family.id, clientId: family.clientId, spent: false };
    if (!(await this.#state.create(NS.refresh, sha256(token), entry, until)))
      throw new Error('authorization server: a new refresh token was taken');
    return token;
  }

  async refresh(token: string, ask: Parameters<GrantStore['refresh']>[1]): Promise<RefreshResult> {
    const invalid = fail('invalid_grant', 'refresh_token is unknown, expired or revoked');
    if (typeof token !== 'string' || token === '') return invalid;
    const key = sha256(token);
    const cur = await this.#state.get<RefreshEntry>(NS.refresh, key);
    if (!cur || cur.expiresAt <= this.#clock()) return invalid;
    if (cur.value.clientId !== ask.clientId) return fail('invalid_grant', 'refresh_token was issued to another client');
    if (cur.value.spent) {
      await this.revoke([cur.value.family], 'refresh_reuse');
      return invalid;
    }
    const family = (await this.live(cur.value.family))?.value;
    if (!family) return invalid;
    const scopes = ask.scopes === undefined ? family.scopes : union(ask.scopes);
    if (!subset(scopes, family.scopes)) return fail('invalid_scope', 'scope asks for more than was granted');
    const resources = ask.resources === undefined ? family.resources : union(ask.resources);
    if (!subset(resources, family.resources)) return fail('invalid_target', 'resource asks for more than was granted');
    // Spent by compare-and-set: of two presentations at once exactly one gets past here. The other is refused without
    // revoking: it may be the client retrying a request whose answer was lost, and if it was a thief that won, the
    // client's next refresh presents the spent token and that revokes the family.
    const spent: RefreshEntry = { ...cur.value, spent: true };
    if (!(await this.#state.replace(NS.refresh, key, cur.rev, spent, cur.expiresAt)))
      return fail('invalid_grant', 'refresh_token was presented twice at once');
    const refreshToken = await this.mint(family);
    if (refreshToken === undefined) return invalid;
    return { family: { ...view(family), scopes, resources }, refreshToken };
  }

  /** The ids among `ids` of live families. */
  async alive(ids: string[]): Promise<Set<string>> {
    const found = await inBatches(ids, async (id) => ((await this.live(id)) ? id : undefined));
    return new Set(found.filter((id): id is string => id !== undefined));
  }

  async issueRefresh(family: Family): Promise<string> {
    // A family revoked meanwhile: a token never stored, refused like any unknown one (no 500 for a lost race).
    return (await this.mint(family)) ?? newSecret();
  }

  async revokeRefresh(token: string, clientId: string): Promise<boolean> {
    if (typeof token !== 'string' || token === '') return false;
    const cur = await this.#state.get<RefreshEntry>(NS.refresh, sha256(token));
    if (!cur || cur.expiresAt <= this.#clock() || cur.value.clientId !== clientId) return false;
    await this.revoke([cur.value.family], 'revoked');
    return true;
  }

  async touch(id: string): Promise<void> {
    const now = this.#clock();
    const cur = await this.live(id);
    if (!cur || now - cur.value.lastUsed < TOUCH_EVERY_MS) return;
    // A lost race is another request's touch of the same moment: nothing to do again.
    await this.#state.replace(NS.family, id, cur.rev, { ...cur.value, lastUsed: now }, cur.expiresAt);
  }
}

/** Makes the family book over the options' store. */
export function familyBook(o: FamilyBookOptions): FamilyBook {
  return new FamilyBook(o);
}
