import { ACCOUNTS_HELP, LINKS_HELP, userArg, type UserArgOptions } from './user-arg.js';
import { Command } from 'commander';
import { sessionsAdmin, type SessionRecord, type SessionsAdmin } from '../../lib/sessions/admin.js';
import type { StateStore } from '../../lib/state/types.js';
import { parseDuration } from '../../lib/util/duration.js';
import { checkSharedStore, openSharedStore, SHARED_STORES } from './shared-store.js';

interface StoreOptions {
  store: string;
  cookieDuration: string;
}

/** The longest sid the routes look up (DELETE /auth/sessions/<sid> answers 404 past it): longer is a typo. */
const MAX_SID = 128;

/**
 * Checks the arguments, opens `--store` (a read-only command never creates it) and runs `use` with the session list's admin API over it (what
 * `auth.features.get('sessions')` is in the apps), then closes the store. On the real clock: what it
 * writes (tombstones, not-before times) is kept for `--cookie-duration`, the longest a session can go on
 * being refreshed.
 */
async function withAdmin<T>(
  userId: string,
  opts: StoreOptions,
  readOnly: boolean,
  use: (admin: SessionsAdmin) => Promise<T>,
): Promise<T> {
  if (userId.trim() === '') throw new Error('<user-id> must not be empty');
  const target = checkSharedStore(opts.store);
  const keepMs = parseDuration(opts.cookieDuration, '--cookie-duration');
  const store: StateStore = await openSharedStore(target, { readOnly });
  try {
    return await use(sessionsAdmin(store, { cookieDurationMs: keepMs }));
  } finally {
    await store.close();
  }
}

/** A session as `list` prints it: the record without what only the apps need (amr, expiry), times in ISO 8601. */
interface SessionRow {
  sid: string;
  provider: string;
  device: string;
  network: string;
  created: string;
  lastSeen: string;
}

function rowOf(r: SessionRecord): SessionRow {
  return {
    sid: r.sid,
    provider: r.provider,
    device: r.device,
    network: r.ip,
    created: new Date(r.created).toISOString(),
    lastSeen: new Date(r.lastSeen).toISOString(),
  };
}

/** Prints the sessions one a line, newest first, and a count; says so when there are none. */
function printRows(userId: string, rows: SessionRow[]): void {
  if (rows.length === 0) {
    process.stdout.write(`authctl sessions: no live sessions of ${userId}\n`);
    return;
  }
  for (const r of rows) {
    process.stdout.write(
      `${r.sid}  ${r.provider || '-'}  ${r.device}  ${r.network || '-'}  created ${r.created}  last seen ${r.lastSeen}\n`,
    );
  }
  process.stdout.write(`${rows.length} session${rows.length === 1 ? '' : 's'} of ${userId}\n`);
}

/** Checks `--sid` as given (commander would echo a rejected value; a sid is harmless, but the message names the option). */
function checkSid(sid: string): string {
  if (sid === '' || sid.length > MAX_SID || /[\s\p{Cc}]/u.test(sid))
    throw new Error('--sid must be a session id as `authctl sessions list` prints it');
  return sid;
}

const USER_HELP = 'the user id as in the token, e.g. github_1a2b… or local_…';
const STORE_HELP = `the apps' stateStore: ${SHARED_STORES}`;
const KEEP_HELP = "the apps' cookieDuration: how long a revocation is kept";

/**
 * `authctl sessions list <user id>` and `authctl sessions revoke <user id> [--sid <sid>]`, for an operator:
 * what `auth.sessions.list(id)`, `auth.sessions.revoke(id, sid)` and `auth.revokeSessions(id)` do, on the
 * state store the apps share. An ended session is refused at its next refresh by every app process
 * sharing the store (at once where `strictRevocation` is on).
 */
export function sessionsCommand(): Command {
  const sessions = new Command('sessions').description(
    'list and end sessions server-side, in the state store the apps share',
  );
  sessions
    .command('list')
    .description("list a user's live sessions (one per login, per device), newest first")
    .argument('<user-id>', USER_HELP)
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--accounts <uri>', ACCOUNTS_HELP)
    .option('--links <uri>', LINKS_HELP)
    .option('--cookie-duration <duration>', KEEP_HELP, '31d')
    .option('--json', 'print JSON')
    .action(async (given: string, opts: StoreOptions & { json?: boolean } & UserArgOptions) => {
      const userId = await userArg(given, opts);
      const rows = (await withAdmin(userId, opts, true, (admin) => admin.list(userId))).map(rowOf);
      if (opts.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else printRows(userId, rows);
    });
  sessions
    .command('revoke')
    .description('end one session of a user (--sid), or all of them: the apps refuse its tokens at their next refresh')
    .argument('<user-id>', USER_HELP)
    .requiredOption('--store <uri>', STORE_HELP)
    .option('--accounts <uri>', ACCOUNTS_HELP)
    .option('--links <uri>', LINKS_HELP)
    .option('--sid <sid>', 'end only this session, as `authctl sessions list` prints it')
    .option('--cookie-duration <duration>', KEEP_HELP, '31d')
    .action(async (given: string, opts: StoreOptions & { sid?: string } & UserArgOptions) => {
      const userId = await userArg(given, opts);
      const sid = opts.sid === undefined ? undefined : checkSid(opts.sid);
      if (sid === undefined) {
        await withAdmin(userId, opts, false, (admin) => admin.revokeAll(userId));
        process.stdout.write(`authctl sessions: sessions of ${userId} issued up to now are revoked\n`);
        return;
      }
      if (!(await withAdmin(userId, opts, false, (admin) => admin.revoke(userId, sid))))
        throw new Error(`no live session ${sid} of ${userId} in that store`);
      process.stdout.write(`authctl sessions: session ${sid} of ${userId} is ended\n`);
    });
  return sessions;
}
