import { isStateStore, type StateStore } from '../state/types.js';
import type { FactorSummary } from './factors.js';
// Types only: the store's code is loaded by the first call, so a bare import of the package stays light.
import type { FactorStore, UserFactors } from './store.js';

/**
 * What an operator sees of a user's second factors: presence, dates and counts, never a key or a code
 * hash. `totp` and `recoveryCodesLeft` are what the user's own `/auth/mfa` status shows.
 */
export interface FactorStatus extends FactorSummary {
  userId: string;
  /** False when the store holds no record for the user: nothing was ever set up there. */
  stored: boolean;
  /** When TOTP was turned on (ISO 8601), or null. */
  totpSince: string | null;
  /** A key set up and not yet confirmed with a code (it expires by itself after 15 minutes). */
  setupPending: boolean;
  pendingSince: string | null;
}

/** What a reset removed: the user's record as it was, counted (recovery codes even while TOTP was off). */
export interface RemovedFactors {
  totp: boolean;
  setupPending: boolean;
  recoveryCodes: number;
}

/**
 * The second factor's admin API: what `auth.mfa` (= `auth.features.get('mfa')`) offers an application's
 * own admin pages, and what `authctl mfa` runs against the store an operator names.
 */
export interface MfaAdmin {
  /** The user's factors (nothing is opened: no secret is needed). */
  status(userId: string): Promise<FactorStatus>;
  /** Removes every factor of the user (a lost phone); false when TOTP was not on. */
  reset(userId: string): Promise<boolean>;
  /**
   * Removes everything stored for the user, by compare-and-set (a code spent meanwhile by a running app is
   * not written back): what was removed, or undefined when nothing was stored.
   */
  clear(userId: string): Promise<RemovedFactors | undefined>;
}

/**
 * The admin API over the second factors in `store`: the app's `mfa.store` opened as a StateStore, or a
 * FactorStore. Closing the store stays with whoever opened it.
 */
export function mfaAdmin(store: StateStore | FactorStore): MfaAdmin {
  if (typeof store !== 'object' || store === null) throw new TypeError('mfaAdmin() requires a store');
  let factors: Promise<{ store: FactorStore; m: typeof import('./store.js') }> | undefined;
  const open = () =>
    (factors ??= import('./store.js').then((m) => ({
      m,
      store: isStateStore(store) ? m.stateFactorStore(store) : store,
    })));
  const clear = async (userId: string): Promise<RemovedFactors | undefined> => {
    const { m, store: s } = await open();
    let before: UserFactors | undefined;
    await m.updateFactors(s, userId, (cur) => {
      before = cur;
      return cur ? undefined : m.UNCHANGED;
    });
    return before && removed(before);
  };
  return {
    async status(userId) {
      const { store: s } = await open();
      return statusOf(userId, (await s.get(userId))?.factors);
    },
    reset: async (userId) => (await clear(userId))?.totp === true,
    clear,
  };
}

function statusOf(userId: string, factors: UserFactors | undefined): FactorStatus {
  const iso = (ms: number | undefined) => (typeof ms === 'number' ? new Date(ms).toISOString() : null);
  return {
    userId,
    stored: factors !== undefined,
    totp: factors?.totp !== undefined,
    totpSince: iso(factors?.totp?.createdAt),
    setupPending: factors?.pendingTotp !== undefined,
    pendingSince: iso(factors?.pendingTotp?.createdAt),
    // Recovery codes only work while TOTP is on: none are left when it is off.
    recoveryCodesLeft: factors?.totp ? (factors.recoveryCodes?.length ?? 0) : 0,
  };
}

function removed(factors: UserFactors): RemovedFactors {
  return {
    totp: factors.totp !== undefined,
    setupPending: factors.pendingTotp !== undefined,
    recoveryCodes: factors.recoveryCodes?.length ?? 0,
  };
}
