import { Command } from 'commander';
import { parsePostgresUri, type PostgresTarget } from '../../lib/postgres/uri.js';
import { loadWithPackage } from '../../lib/util/optional.js';
import { allDdl, allTables } from './db-schema.js';

/**
 * Reads `<uri>` in the action, not as a commander argument parser: commander would echo a rejected
 * value, and a database URI may carry a password.
 */
function target(uri: string): PostgresTarget {
  try {
    return parsePostgresUri(uri, '<uri>');
  } catch (err) {
    throw new Error((err as Error).message.replace(/^authKoa: /, ''));
  }
}

/** The DDL as a script psql runs: each statement ended by `;`. */
function script(t: PostgresTarget): string {
  return allDdl(t)
    .map((s) => `${s};\n`)
    .join('');
}

/** Creates every table through the stores' own path (ensureTables: a transaction under an advisory lock). */
async function migrate(t: PostgresTarget): Promise<void> {
  const { openPostgres, ensureTables } = await loadWithPackage(
    'pg',
    '<uri> postgres://',
    () => import('../../lib/postgres/db.js'),
  ).catch((err: Error) => {
    throw new Error(err.message.replace(/^authKoa: /, ''));
  });
  let db;
  try {
    db = await openPostgres(t, {}, '<uri>');
    await ensureTables(db, allTables(t), allDdl(t), '<uri>');
  } catch (err) {
    throw new Error(`cannot migrate ${t.redacted}: ${(err as Error).message.replace(/^authKoa: /, '')}`);
  } finally {
    await db?.close();
  }
}

/**
 * `authctl db migrate <uri> [--print]`: the PostgreSQL tables authkoa uses (state and avatars), created
 * now, so the app's role needs no CREATE right; `--print` writes the DDL instead, for teams that run
 * their own migrations.
 */
export function dbCommand(): Command {
  const db = new Command('db').description(
    'the PostgreSQL tables of stateStore, avatarStore and the stores built on them',
  );
  db.command('migrate')
    .description('create the tables (state, avatars) in the database a postgres:// URI names; safe to run again')
    .argument('<uri>', 'postgres://user:password@host:5432/db[?schema=…&prefix=…]')
    .option('--print', 'print the DDL (CREATE … IF NOT EXISTS) instead of running it; nothing is connected')
    .action(async (uri: string, opts: { print?: boolean }) => {
      const t = target(uri);
      if (opts.print) {
        process.stdout.write(script(t));
        return;
      }
      await migrate(t);
      const [state, avatars, accounts] = allTables(t);
      process.stdout.write(`authctl db migrate: ${state}, ${avatars} and ${accounts} are ready in ${t.redacted}\n`);
    });
  return db;
}
