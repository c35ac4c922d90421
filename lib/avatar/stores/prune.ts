import type { AvatarEntry, AvatarStore } from './types.js';

export interface PruneOptions {
  /** Only report what would be removed. */
  dryRun?: boolean;
  /** Removals in flight at once (default 64): LMDB folds concurrent writes into one commit. */
  concurrency?: number;
  /** Called after each removal (or each would-be removal in a dry run). */
  onProgress?: (done: number, total: number, id: string) => void;
}

export interface PruneResult {
  /** Avatars listed in the store. */
  listed: number;
  /** Ids removed (or that would be, in a dry run), in id order. */
  removed: string[];
}

/**
 * Removes the avatars `doomed` picks. The whole list is read first and only then are removals issued,
 * several at a time: removing while a store's list is still open keeps an LMDB read transaction alive
 * (its file grows instead of reusing pages), and one awaited commit per avatar makes large prunes crawl.
 */
export async function prune(
  store: AvatarStore,
  doomed: (entry: AvatarEntry) => boolean,
  opts: PruneOptions = {},
): Promise<PruneResult> {
  const entries: AvatarEntry[] = [];
  for await (const e of store.list()) entries.push(e);
  const removed = entries
    .filter(doomed)
    .map((e) => e.id)
    .sort();
  let done = 0;
  let next = 0;
  const worker = async () => {
    while (next < removed.length) {
      const id = removed[next++];
      if (!opts.dryRun) await store.remove(id);
      opts.onProgress?.(++done, removed.length, id);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 64) }, worker));
  return { listed: entries.length, removed };
}
