import { Command } from 'commander';
import { revocations } from '../../lib/session/revocation.js';
import { checkSharedStore, openSharedStore, SHARED_STORES } from './shared-store.js';
import { parseDuration } from '../../lib/util/duration.js';

interface RevokeOptions {
  store: string;
  cookieDuration: string;
}

/**
 * `authctl sessions revoke <user id> --store <uri>`: what `auth.revokeSessions(id)` does, for an
 * operator: every session of the user issued up to now is refused at its next refresh by every app
 * process sharing the store (at once where `strictRevocation` is on).
 */
export function sessionsCommand(): Command {
  const sessions = new Command('sessions').description('end sessions server-side, in the state store the apps share');
  sessions
    .command('revoke')
    .description("revoke every session of a user (the apps refuse the user's tokens at their next refresh)")
    .argument('<user-id>', 'the user id as in the token, e.g. github_1a2b… or local_…')
    .requiredOption('--store <uri>', `the apps' stateStore: ${SHARED_STORES}`)
    .option('--cookie-duration <duration>', "the apps' cookieDuration: how long the record is kept", '31d')
    .action(async (userId: string, opts: RevokeOptions) => {
      const target = checkSharedStore(opts.store);
      const keepMs = parseDuration(opts.cookieDuration, '--cookie-duration');
      const store = await openSharedStore(target);
      try {
        // The token lifetime only matters for checking; revoking needs the keep time alone.
        await revocations(store, Date.now, keepMs, 0).revokeUser(userId);
      } finally {
        await store.close();
      }
      process.stdout.write(`authctl sessions: sessions of ${userId} issued up to now are revoked\n`);
    });
  return sessions;
}
