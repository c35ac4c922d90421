/**
 * How avatar-store chores grow: list and prune over N avatars in the file and LMDB stores. Each
 * (store, N) runs in a fresh process so its peak RSS is its own. Prune removes every other avatar,
 * through the same prune() that `authctl avatars prune` runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore, prune } from './built.js';

export interface ScaleResult {
  store: string;
  count: number;
  listMs: number;
  pruneMs: number;
  peakRssMiB: number;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Runs every (store, count) pair in a child process and collects the results. */
export async function scaleBench(counts: number[]): Promise<ScaleResult[]> {
  const out: ScaleResult[] = [];
  for (const store of ['file', 'lmdb']) {
    for (const count of counts) {
      process.stderr.write(`scale: ${store} store, ${count} avatars…\n`);
      const line = execFileSync(
        process.execPath,
        ['--import=tsx', join(ROOT, 'bench/scale.ts'), store, String(count)],
        { cwd: ROOT, maxBuffer: 1 << 20 },
      ).toString();
      out.push(JSON.parse(line) as ScaleResult);
    }
  }
  return out;
}

async function one(kind: string, count: number): Promise<ScaleResult> {
  const dir = mkdtempSync(join(os.tmpdir(), `authkoa-scale-${kind}-`));
  try {
    const store = await openStore(kind === 'lmdb' ? `lmdb://${dir}` : dir);
    const image = Buffer.alloc(512, 1);
    for (let i = 0; i < count; i += 500) {
      await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, j) => store.put(`user_${i + j}`, image)));
    }
    let t = performance.now();
    const ids: string[] = [];
    for await (const entry of store.list()) ids.push(entry.id);
    const listMs = performance.now() - t;
    if (ids.length !== count) throw new Error(`listed ${ids.length} of ${count}`);
    t = performance.now();
    const doomed = new Set(ids.filter((_, i) => i % 2 === 0));
    const pruned = await prune(store, (e) => doomed.has(e.id));
    const pruneMs = performance.now() - t;
    if (pruned.removed.length !== doomed.size) throw new Error(`pruned ${pruned.removed.length} of ${doomed.size}`);
    await store.close();
    return {
      store: kind,
      count,
      listMs: Math.round(listMs),
      pruneMs: Math.round(pruneMs),
      peakRssMiB: process.resourceUsage().maxRSS / 1024,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(JSON.stringify(await one(process.argv[2]!, Number(process.argv[3]))) + '\n');
}
