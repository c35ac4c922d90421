import { openStore } from './open.js';
import { avatarHash, type AvatarEntry, type AvatarStore } from './types.js';

/** Outcome of a migration. */
export interface MigrateResult {
  /** Avatars listed in the source. */
  total: number;
  /** Copied into the destination. */
  copied: number;
  /** Ids that could not be read or written (logged through onError and skipped, as the original). */
  failed: string[];
}

export interface MigrateOptions {
  /** Called after each avatar with the running count (total is known once the source is listed). */
  onProgress?: (done: number, total: number, id: string) => void;
  /** Called for an avatar that failed; the migration goes on. */
  onError?: (id: string, err: unknown) => void;
  /** Avatars copied at once (default 8). */
  concurrency?: number;
}

/**
 * Copies every avatar of `from` into `to`, ids and modified times kept (the 40-hex hash passes through avatarId).
 * Either
 * side may be a URI (opened and closed here) or an open store (left open). Per-avatar failures are
 * reported and skipped; listing or opening failures reject.
 */
export async function migrate(
  from: string | AvatarStore,
  to: string | AvatarStore,
  opts: MigrateOptions = {},
): Promise<MigrateResult> {
  const src = await openStore(from, 'from');
  let dst: AvatarStore | undefined;
  try {
    dst = await openStore(to, 'to');
    const entries: AvatarEntry[] = [];
    for await (const e of src.list()) entries.push(e); // list first: the total drives progress bars
    const ids = entries.map((e) => e.id);
    const modified = new Map(entries.map((e) => [e.id, e.modified]));
    const result: MigrateResult = { total: ids.length, copied: 0, failed: [] };
    let done = 0;
    let next = 0;
    // A few copies in flight: file stores fsync every write, and serial fsyncs make big stores crawl.
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++];
        try {
          const got = await src.get(id);
          if (got) {
            await dst!.put(avatarHash(id), got.data, { modified: modified.get(id) });
            result.copied++;
          }
        } catch (err) {
          result.failed.push(id);
          opts.onError?.(id, err);
        }
        opts.onProgress?.(++done, ids.length, id);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 8) }, worker));
    return result;
  } finally {
    if (typeof to === 'string') await dst?.close();
    if (typeof from === 'string') await src.close();
  }
}
