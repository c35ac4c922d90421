import { createHash } from 'node:crypto';
import { AuthError } from '../errors.js';
import type { StateStore } from '../state/types.js';
import { omit } from '../util/omit.js';
import { mfaError } from './errors.js';
import { hashRecoveryCode, newRecoveryCodes, normaliseRecoveryCode } from './recovery.js';
import type { SealKeys } from './seal.js';
import { UNCHANGED, updateFactors, type FactorStore, type UserFactors } from './store.js';
import { base32Decode, matchTotp, newTotpSecret, TOTP_STEP_S } from './totp.js';

/** What the second-factor routes need to know about a user's own factors. */
export interface FactorSummary {
  totp: boolean;
  recoveryCodesLeft: number;
}

/** A key set up and waiting for its first code, and how long it may wait. */
const PENDING_MS = 15 * 60_000;
const SPENT_NS = 'mfa-spent';

/** What the factor operations work with. */
export interface FactorParts {
  store: FactorStore;
  seal: SealKeys;
  /** The service's state store: TOTP steps spent there hold across processes. */
  state: StateStore;
  window: number;
  clock: () => number;
}

/**
 * One user's second factors, as the routes use them: TOTP set up, confirmed, checked and removed,
 * recovery codes made and spent. Keys are sealed at rest (seal.ts); a TOTP step once accepted is spent
 * in the state store, so the same code is refused for the rest of its window in every process; a
 * recovery code is spent by compare-and-set on the user's record, so of two racing uses one wins.
 */
export class Factors {
  constructor(private readonly p: FactorParts) {}

  async summary(userId: string): Promise<FactorSummary> {
    const f = (await this.p.store.get(userId))?.factors;
    return { totp: f?.totp !== undefined, recoveryCodesLeft: f?.totp ? (f.recoveryCodes?.length ?? 0) : 0 };
  }

  /** Starts TOTP set-up: a new key, kept pending (not active) until a code from it confirms it. */
  async beginTotp(userId: string): Promise<string> {
    const secret = newTotpSecret();
    const sealed = { secret: this.p.seal.seal(secret, userId), createdAt: this.p.clock() };
    await updateFactors(this.p.store, userId, (cur) => ({ ...cur, pendingTotp: sealed }));
    return secret;
  }

  /**
   * Confirms the pending key with a code from it: the key becomes the active one (replacing any before)
   * and ten new recovery codes replace the old ones; resolves to them, shown once. False for a wrong code.
   */
  async confirmTotp(userId: string, code: string): Promise<string[] | false> {
    const pending = (await this.p.store.get(userId))?.factors.pendingTotp;
    if (!pending || pending.createdAt + PENDING_MS <= this.p.clock())
      throw mfaError('totp_not_pending', 'no authenticator set-up is waiting for a code: start it again');
    if (!(await this.matchAndSpend(userId, this.open(pending.secret, userId).plain, code))) return false;
    const codes = newRecoveryCodes();
    await updateFactors(this.p.store, userId, (cur) => {
      // Another set-up began meanwhile: this confirmation is for a key no longer pending.
      if (cur?.pendingTotp?.secret !== pending.secret)
        throw mfaError('totp_not_pending', 'the set-up was started again meanwhile: use the new key');
      const rest = omit(cur, 'pendingTotp');
      return {
        ...rest,
        totp: { secret: pending.secret, createdAt: this.p.clock() },
        recoveryCodes: codes.map(hashRecoveryCode),
      };
    });
    return codes;
  }

  /** Checks a TOTP code of the user's active key; true once, for one code, in every process. */
  async checkTotp(userId: string, code: string): Promise<boolean> {
    const totp = (await this.p.store.get(userId))?.factors.totp;
    if (!totp) throw mfaError('factor_not_enrolled', 'two-step login with an authenticator app is not turned on');
    const opened = this.open(totp.secret, userId);
    const ok = await this.matchAndSpend(userId, opened.plain, code);
    // Sealed under a previous secret: sealed again under the current one, so the old secret can go.
    if (ok && opened.stale) await this.reseal(userId, totp.secret, opened.plain);
    return ok;
  }

  /** Spends one of the user's recovery codes; true when it was unused. */
  async useRecoveryCode(userId: string, code: unknown): Promise<boolean> {
    const normal = normaliseRecoveryCode(code);
    if (normal === '') return false;
    const hash = hashRecoveryCode(normal);
    let used = false;
    await updateFactors(this.p.store, userId, (cur) => {
      used = false;
      if (!cur?.totp || !cur.recoveryCodes?.includes(hash)) return UNCHANGED;
      used = true;
      return { ...cur, recoveryCodes: cur.recoveryCodes.filter((h) => h !== hash) };
    });
    return used;
  }

  /** Ten new recovery codes replacing the old ones; the user must have TOTP on. */
  async regenerateRecoveryCodes(userId: string): Promise<string[]> {
    const codes = newRecoveryCodes();
    await updateFactors(this.p.store, userId, (cur) => {
      if (!cur?.totp) throw mfaError('factor_not_enrolled', 'recovery codes need two-step login turned on first');
      return { ...cur, recoveryCodes: codes.map(hashRecoveryCode) };
    });
    return codes;
  }

  /** Turns TOTP off: the key, a pending one and the recovery codes go. False when it was not on. */
  async removeTotp(userId: string): Promise<boolean> {
    let had = false;
    await updateFactors(this.p.store, userId, (cur) => {
      had = cur?.totp !== undefined;
      return cur ? undefined : UNCHANGED;
    });
    return had;
  }

  /**
   * A code of `secret` within the window, and its step not yet spent: the step is spent (in the state
   * store, until the window has moved past it) before true is returned.
   */
  private async matchAndSpend(userId: string, secret: string, code: string): Promise<boolean> {
    const now = this.p.clock();
    const step = matchTotp(base32Decode(secret), code, now, this.p.window);
    if (step === undefined) return false;
    const key = `${createHash('sha256').update(userId).digest('base64url')}:${step}`;
    return this.p.state.create(SPENT_NS, key, 1, (step + this.p.window + 1) * TOTP_STEP_S * 1000 + 1000);
  }

  private open(sealed: string, userId: string): { plain: string; stale: boolean } {
    try {
      return this.p.seal.open(sealed, userId);
    } catch (err) {
      throw new AuthError(
        'internal_error',
        'the authenticator key of this account cannot be opened: was the secret rotated without previousSecrets?',
        { cause: err },
      );
    }
  }

  private async reseal(userId: string, sealed: string, plain: string): Promise<void> {
    await updateFactors(this.p.store, userId, (cur: UserFactors | undefined) =>
      cur?.totp?.secret === sealed
        ? { ...cur, totp: { ...cur.totp, secret: this.p.seal.seal(plain, userId) } }
        : UNCHANGED,
    );
  }
}
