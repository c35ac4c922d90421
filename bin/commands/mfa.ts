import { ACCOUNTS_HELP, LINKS_HELP, userArg, type UserArgOptions } from './user-arg.js';
import { Command } from 'commander';
import { mfaAdmin, type FactorStatus, type MfaAdmin, type RemovedFactors } from '../../lib/mfa/admin.js';
import { redactUri } from '../../lib/util/store-policy.js';
import { checkSharedStore, openSharedStore, SHARED_STORES } from './shared-store.js';

interface StoreOption {
  store: string;
}

/** The lines `mfa status` prints; for a user the store knows nothing of, one line saying so and where it looked. */
function statusText(r: FactorStatus, store: string): string {
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
function removedText(r: RemovedFactors): string {
  const parts: string[] = [];
  if (r.totp) parts.push('the TOTP key');
  if (r.setupPending) parts.push('a pending set-up');
  if (r.recoveryCodes > 0) parts.push(`${r.recoveryCodes} recovery code${r.recoveryCodes === 1 ? '' : 's'}`);
  if (parts.length === 0) parts.push('an empty record');
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/** A user id as the command takes it: the id from the token, not empty. */
function checkUserId(userId: string): string {
  if (userId.trim() === '')
    throw new Error('<user-id> must be a user id as in the token, e.g. local_1a2b…; it was empty');
  return userId;
}

/**
 * Opens the factor store at `--store` (the app's `mfa.store`), runs `use` with the second factor's admin
 * API over it (what `auth.mfa` is in the app; `readOnly`: never created; nothing sealed is opened, so no secret is needed), and closes it.
 */
async function withFactors<T>(uri: string, readOnly: boolean, use: (admin: MfaAdmin) => Promise<T>): Promise<T> {
  const store = await openSharedStore(checkSharedStore(uri), { readOnly });
  try {
    return await use(mfaAdmin(store));
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
    .option('--accounts <uri>', ACCOUNTS_HELP)
    .option('--links <uri>', LINKS_HELP)
    .option('--json', 'print JSON')
    .action(async (given: string, opts: StoreOption & { json?: boolean } & UserArgOptions) => {
      const userId = await userArg(given, opts);
      checkUserId(userId);
      const report = await withFactors(opts.store, true, (admin) => admin.status(userId));
      process.stdout.write(opts.json ? `${JSON.stringify(report, null, 2)}\n` : `${statusText(report, opts.store)}\n`);
    });
  mfa
    .command('reset')
    .description("remove a user's TOTP key and recovery codes (a lost phone); passkeys stay")
    .argument('<user-id>', 'the user id as in the token, e.g. local_1a2b…')
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--accounts <uri>', ACCOUNTS_HELP)
    .option('--links <uri>', LINKS_HELP)
    .action(async (given: string, opts: StoreOption & UserArgOptions) => {
      const userId = await userArg(given, opts);
      checkUserId(userId);
      const removed = await withFactors(opts.store, false, (admin) => admin.clear(userId));
      if (!removed) {
        process.stdout.write(`authctl mfa: ${userId} has no second factor stored: nothing removed\n`);
        return;
      }
      process.stdout.write(`authctl mfa: removed ${removedText(removed)} of ${userId}\n`);
    });
  return mfa;
}
