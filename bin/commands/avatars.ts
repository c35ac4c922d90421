import { existsSync, readFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { parseDuration } from '../../lib/util/duration.js';
import { avatarId, migrate, prune, type AvatarEntry, type AvatarStore } from '../../lib/avatar/stores/index.js';
import { openStoreTarget, parseStoreUri } from '../../lib/avatar/stores/open.js';
import { storeMismatch } from '../../lib/avatar/stores/layout.js';
import { MissingPackageError } from '../../lib/util/optional.js';
import { refuseMissingStore } from './shared-store.js';

/**
 * `authctl avatars list|prune|migrate`: chores on avatar stores given by URI (a path, file://,
 * lmdb://, bolt://, mongodb://). Progress goes to stderr: a bar on a terminal, plain lines otherwise,
 * so scripts and CI logs stay readable. Failures throw one-line errors; authctl prints them and exits 1.
 */
export function avatarsCommand(): Command {
  const cmd = new Command('avatars').description('list, prune and migrate avatar stores');

  cmd
    .command('list <store>')
    .description('list stored avatars (id, size, modified) and the total')
    .option('--json', 'print JSON: {"avatars":[{id,size,modified}],"total":{count,bytes}}')
    .action(async (uri: string, opts: { json?: boolean }) => {
      await withStore(uri, '<store>', 'read-only', async (store) => {
        const entries = await collect(store);
        const bytes = entries.reduce((n, e) => n + e.size, 0);
        if (opts.json) {
          out(JSON.stringify({ avatars: entries, total: { count: entries.length, bytes } }));
          return;
        }
        for (const e of entries) out(`${e.id}  ${String(e.size).padStart(9)}  ${e.modified.toISOString()}`);
        out(`total: ${entries.length} avatars, ${bytes} bytes`);
      });
    });

  cmd
    .command('prune <store>')
    .description('remove avatars older than a duration, or not listed in a keep file')
    .option('--older-than <duration>', "remove avatars not modified for this long ('90d', '12h')", durationArg)
    .option('--keep-file <file>', 'remove every avatar whose id (or user id) is not a line of this file')
    .option('--dry-run', 'only print what would be removed')
    .action(async (uri: string, opts: { olderThan?: number; keepFile?: string; dryRun?: boolean }) => {
      if ((opts.olderThan === undefined) === (opts.keepFile === undefined))
        throw new Error('prune needs exactly one of --older-than or --keep-file');
      const keep = opts.keepFile === undefined ? undefined : readKeepFile(opts.keepFile);
      const cutoff = opts.olderThan === undefined ? 0 : Date.now() - opts.olderThan;
      await withStore(uri, '<store>', true, async (store) => {
        let progress: Progress | undefined;
        const result = await prune(
          store,
          (e) => (keep ? !keep.has(e.id.toLowerCase()) : e.modified.getTime() < cutoff),
          {
            dryRun: opts.dryRun,
            onProgress: (done, total, id) =>
              (progress ??= new Progress(opts.dryRun ? 'checking' : 'pruning', total)).tick(
                `${opts.dryRun ? 'would remove' : 'removed'} ${id}`,
                done,
              ),
          },
        );
        progress?.done();
        out(`${opts.dryRun ? 'would remove' : 'removed'} ${result.removed.length} of ${result.listed} avatars`);
      });
    });

  cmd
    .command('migrate <from> <to>')
    .description('copy every avatar of one store into another, ids kept')
    .action(async (from: string, to: string) => {
      await withStore(from, '<from>', true, async (src) => {
        await withStore(to, '<to>', false, async (dst) => {
          let progress: Progress | undefined;
          const result = await migrate(src, dst, {
            onProgress: (done, total, id) => (progress ??= new Progress('migrating', total)).tick(`copied ${id}`, done),
            onError: (id, err) => process.stderr.write(`authctl: skipped ${id}: ${oneLine(err)}\n`),
          });
          progress?.done();
          out(
            `migrated ${result.copied} of ${result.total} avatars${result.failed.length ? `, ${result.failed.length} failed` : ''}`,
          );
          if (result.failed.length) process.exitCode = 1;
        });
      });
    });

  return cmd;
}

/** Why a store was not opened (its URI, its path, its package), said as it is. */
class StoreRefusal extends Error {}

/**
 * Opens a store for one command and always closes it; errors become one line naming `argument` (`<store>`, `<from>`),
 * without the URI. `mustExist`: a path store that is not there is refused (`'read-only'`: a command that never
 * creates one says so), not created.
 */
async function withStore(
  uri: string,
  argument: string,
  mustExist: boolean | 'read-only',
  body: (store: AvatarStore) => Promise<void>,
): Promise<void> {
  let target;
  try {
    target = parseStoreUri(uri, argument);
  } catch (err) {
    throw new StoreRefusal(oneLine(err).replace(/^authKoa: /, ''));
  }
  // Listing a typo'd path would otherwise report an empty store (or create an empty LMDB).
  if (mustExist === 'read-only') refuseMissingStore(target.path, uri, argument);
  else if (mustExist && target.path !== undefined && !existsSync(target.path))
    throw new StoreRefusal(`no store at ${target.path}`);
  // A bare path on an LMDB folder would list "total: 0 avatars" and exit 0: say which URI opens it.
  const mismatch = storeMismatch(target);
  if (mismatch) throw new StoreRefusal(mismatch);
  let store: AvatarStore;
  try {
    store = await openStoreTarget(target, argument);
  } catch (err) {
    // A missing package is its own line (it names the argument and `npm install …`).
    if (err instanceof MissingPackageError) throw new StoreRefusal(oneLine(err).replace(/^authKoa: /, ''));
    throw new StoreRefusal(`cannot open ${target.kind} store: ${oneLine(err)}`);
  }
  try {
    await body(store);
  } catch (err) {
    // Another store's refusal (migrate's <to>, opened inside <from>'s body) is already its own line.
    if (err instanceof StoreRefusal) throw err;
    throw new Error(`${target.kind} store failed: ${oneLine(err)}`);
  } finally {
    await store.close().catch(() => {});
  }
}

async function collect(store: AvatarStore): Promise<AvatarEntry[]> {
  const entries: AvatarEntry[] = [];
  for await (const e of store.list()) entries.push(e);
  return entries.sort((a, b) => a.id.localeCompare(b.id));
}

/** Keep file: one avatar id or user id per line; blank lines and `#` comments ignored. */
function readKeepFile(path: string): Set<string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read keep file: ${oneLine(err)}`);
  }
  const ids = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => avatarId(l).toLowerCase());
  return new Set(ids);
}

function durationArg(value: string): number {
  try {
    return parseDuration(value, '--older-than');
  } catch {
    throw new InvalidArgumentError("must be a duration such as '90d', '12h' or '30m'");
  }
}

/** A bar redrawn in place on a terminal; on a pipe, one plain line per item. */
class Progress {
  readonly #tty = Boolean(process.stderr.isTTY);
  #done = 0;

  constructor(
    readonly label: string,
    readonly total: number,
  ) {}

  tick(line: string, done = this.#done + 1): void {
    this.#done = done;
    if (!this.#tty) {
      process.stderr.write(`${line}\n`);
      return;
    }
    const width = 30;
    const filled = this.total ? Math.round((done / this.total) * width) : width;
    process.stderr.write(`\r${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${this.total}`);
  }

  done(): void {
    if (this.#tty && this.total > 0) process.stderr.write('\n');
  }
}

function out(line: string): void {
  process.stdout.write(line + '\n');
}

function oneLine(err: unknown): string {
  return String((err as Error)?.message ?? err)
    .split('\n')[0]
    .trim();
}
