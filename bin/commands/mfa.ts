import { Command } from 'commander';
import { stateFactorStore, UNCHANGED, updateFactors, type FactorStore, type UserFactors } from '../../lib/mfa/store.js';
import { redactUri } from '../../lib/util/store-policy.js';
import { checkSharedStore, openSharedStore, SHARED_STORES } from './shared-store.js';

interface StoreOption {
  store: string;
}

/** What an operator sees of a user's second factors: presence, dates and counts, never a key or a code hash. */
interface FactorReport {
  userId: string;
  /** False when the store holds no record for the user: nothing was ever set up there (or --store is another store). */
  stored: boolean;
  totp: boolean;
  /** When TOTP was turned on (ISO 8601), or null. */
  totpSince: string | null;
  /** A key set up and not yet confirmed with a code (it expires by itself after 15 minutes). */
  setupPending: boolean;
  pendingSince: string | null;
  /** Recovery codes still unused; they only work while TOTP is on, so 0 when it is off. */
  recoveryCodesLeft: number;
}

/**
 * Reads a record without opening anything sealed: the CLI has no secret, and an operator asking
 * "is TOTP on for this user?" needs none.
 */
function reportOf(userId: string, factors: UserFactors | undefined): FactorReport {
  const iso = (ms: number | undefined) => (typeof ms === 'number' ? new Date(ms).toISOString() : null);
  return {
    userId,
    stored: factors !== undefined,
    totp: factors?.totp !== undefined,
    totpSince: iso(factors?.totp?.createdAt),
    setupPending: factors?.pendingTotp !== undefined,
    pendingSince: iso(factors?.pendingTotp?.createdAt),
    recoveryCodesLeft: factors?.totp ? (factors.recoveryCodes?.length ?? 0) : 0,
  };
}

/** The lines `mfa status` prints; for a user the store knows nothing of, one line saying so and where it looked. */
function statusText(r: FactorReport, store: string): string {
  if (!r.stored)
    return `authctl mfa: nothing is stored for ${r.userId} in ${redactUri(store)}: no second factor was set up there (is --store the apps' mfa.store?)`;
  return [
    `user:            ${r.userId}`,
    `totp:            ${r.totp ? `on since ${r.totpSince}` : 'off'}`,
    `set-up pending:  ${r.setupPending ? `since ${r.pendingSince}` : 'no'}`,
    `recovery codes:  ${r.recoveryCodesLeft} left`,
  ].join('\n');
}

/** What `mfa reset` removed, as one phrase: "the TOTP key, a pending set-up and 8 recovery codes". */
function removedText(r: FactorReport, storedCodes: number): string {
  const parts: string[] = [];
  if (r.totp) parts.push('the TOTP key');
  if (r.setupPending) parts.push('a pending set-up');
  if (storedCodes > 0) parts.push(`${storedCodes} recovery code${storedCodes === 1 ? '' : 's'}`);
  if (parts.length === 0) parts.push('an empty record');
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** A user id as the command takes it: the id from the token, not empty. */
function checkUserId(userId: string): string {
  if (userId.trim() === '')
    throw new Error('<user-id> must be a user id as in the token, e.g. local_1a2b…; it was empty');
  return userId;
}

/** Opens the factor store at `--store` (the app's `mfa.store`), runs `use`, and closes it. */
async function withFactors<T>(uri: string, use: (factors: FactorStore) => Promise<T>): Promise<T> {
  const store = await openSharedStore(checkSharedStore(uri));
  try {
    return await use(stateFactorStore(store));
  } finally {
    await store.close();
  }
}

const STORE_HELP = `the apps' mfa.store (${SHARED_STORES})`;

/** `authctl mfa status <user id>` and `authctl mfa reset <user id>`, for operators (a lost phone). */
export function mfaCommand(): Command {
  const mfa = new Command('mfa').description("look at and reset users' second factors (TOTP, recovery codes)");
  mfa
    .command('status')
    .description(
      'show whether a user has TOTP on, a set-up pending, and how many recovery codes are left (nothing is decrypted)',
    )
    .argument('<user-id>', 'the user id as in the token, e.g. local_1a2b…')
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--json', 'print JSON')
    .action(async (userId: string, opts: StoreOption & { json?: boolean }) => {
      checkUserId(userId);
      const found = await withFactors(opts.store, (store) => store.get(userId));
      const report = reportOf(userId, found?.factors);
      process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${statusText(report, opts.store)}\n`);
    });
  mfa
    .command('reset')
    .description("remove a user's TOTP key and recovery codes (a lost phone); passkeys stay")
    .argument('<user-id>', 'the user id as in the token, e.g. local_1a2b…')
    .requiredOption('--store <uri>', STORE_HELP)
    .action(async (userId: string, opts: StoreOption) => {
      checkUserId(userId);
      let before: UserFactors | undefined;
      // Compare-and-set: a code spent or a set-up begun by a running app meanwhile is not written back.
      await withFactors(opts.store, (store) =>
        updateFactors(store, userId, (cur) => {
          before = cur;
          return cur ? undefined : UNCHANGED;
        }),
      );
      if (!before) {
        process.stdout.write(`authctl mfa: ${userId} has no second factor stored: nothing removed\n`);
        return;
      }
      process.stdout.write(
        `authctl mfa: removed ${removedText(reportOf(userId, before), before.recoveryCodes?.length ?? 0)} of ${userId}\n`,
      );
    });
  return mfa;
}
