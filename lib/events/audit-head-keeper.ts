import { rename } from 'node:fs/promises';
import { GENESIS } from './audit-chain.js';
import { headMacHolds, headPathOf, readHead, scanLines, signedHead, writeHead, type AuditHead } from './audit-head.js';

/**
 * The writer's side of the audit log's head (audit-head.ts): which number the next line gets, and the head rewritten
 * once a line is in the file. Writes are coalesced: one head write at a time, the next naming the last line written
 * meanwhile, so a burst of events costs a few head writes, not one each. The window: a line is in the file a head
 * write (a small file and a rename, well under a millisecond on a local disk) before its head names it; a cut of
 * those lines, or a crash, in that window is not told apart from the app stopping there.
 */
export interface HeadKeeper {
  /** The write callback of the next line, whose SHA-256 is `hash`: once it is in the file, the head names it. */
  written(hash: string): (err?: Error | null) => void;
  /** Resolves once the last head asked for is written (or failed, which was reported). */
  idle(): Promise<void>;
}

/** The end of the log as its chain left it (audit-chain.ts chainTail). */
interface Tail {
  prev: string;
  cut: boolean;
}

/**
 * The keeper of `logPath`'s head, its count resumed: from the head when it names the file's last line (and with a key
 * its mac holds), else by reading the file. A head naming a line the file no longer holds (cut while the app was
 * stopped) or whose mac fails is reported, moved aside to `<head>.stale` for the operator, and a new head started at
 * the file's end: the app goes on logging.
 */
export async function resumeHead(
  logPath: string,
  tail: Tail,
  key: string | undefined,
  report: (err: Error) => void,
): Promise<HeadKeeper> {
  const path = headPathOf(logPath);
  let head: AuditHead | undefined;
  try {
    head = await readHead(path);
  } catch (err) {
    // Not a head: kept aside as a stale one is, not overwritten.
    await setAside(path, logPath, (err as Error).message, report);
  }
  const trusted = head !== undefined && (key === undefined || headMacHolds(head, key));
  const keeper = headKeeper(path, key, report);
  if (trusted && head!.hash === tail.prev && !tail.cut) return keeper.from(head!.count);
  const { lines, found } = await scanOrEmpty(logPath, head?.hash ?? GENESIS);
  if (head !== undefined && (!trusted || found === 0))
    await setAside(path, logPath, staleness(head, trusted, lines), report);
  // The cut line, ended by the writer, is a line of its own: the last whole one is before it.
  if (tail.prev !== GENESIS) keeper.name(lines - (tail.cut ? 1 : 0), tail.prev);
  return keeper.from(lines);
}

/** Why the head does not match the log: its mac, or a line it names that the log no longer holds. */
function staleness(head: AuditHead, trusted: boolean, lines: number): string {
  return !trusted
    ? `its head's mac does not hold (forged, or another auditKey)`
    : lines < head.count
      ? `it ends at line ${lines} but its head says ${head.count}: ` +
        'lines were removed from its end while the app was stopped (or it was rotated)'
      : `the line its head names (${head.count}) is not in it: ` +
        'its end was removed or replaced while the app was stopped';
}

/** Reports a head the file does not match and moves it aside, kept for whoever looks into it. */
async function setAside(path: string, logPath: string, why: string, report: (err: Error) => void): Promise<void> {
  try {
    await rename(path, `${path}.stale`);
    report(new Error(`authkoa: audit: ${logPath}: ${why}; that head is kept as ${path}.stale`));
  } catch (err) {
    report(new Error(`authkoa: audit: ${logPath}: ${why}; cannot keep the head aside: ${(err as Error).message}`));
  }
}

/** scanLines, with a missing file as an empty one. */
async function scanOrEmpty(path: string, hash: string): Promise<{ lines: number; found: number }> {
  try {
    return await scanLines(path, hash);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { lines: 0, found: 0 };
    throw err;
  }
}

/** The coalescing writer of one head file. */
function headKeeper(path: string, key: string | undefined, report: (err: Error) => void) {
  let count = 0;
  /** The line the head should name (the last in the file), and the one it last named: signed only when written. */
  let wanted: { count: number; hash: string } | undefined;
  let done: typeof wanted;
  let loop: Promise<void> | undefined;
  let busy = false;
  let failed = false;
  const flush = async () => {
    try {
      while (wanted !== done) {
        const next = wanted!;
        await writeHead(path, signedHead(next.count, next.hash, key));
        done = next;
      }
    } catch (err) {
      if (!failed) report(new Error(`authkoa: audit: cannot write its head ${path}: ${(err as Error).message}`));
      failed = true;
      done = wanted;
    } finally {
      busy = false; // in the step that saw nothing more wanted: a line written after this starts a new loop
    }
  };
  const name = (n: number, hash: string) => {
    wanted = { count: n, hash };
    if (busy) return;
    busy = true;
    loop = flush();
  };
  return {
    name,
    from(lines: number): HeadKeeper {
      count = lines;
      return {
        written(hash) {
          const n = ++count;
          return (err) => {
            if (!err) name(n, hash);
          };
        },
        idle: () => loop ?? Promise.resolve(),
      };
    },
  };
}
