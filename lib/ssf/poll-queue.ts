import type { StateStore } from '../state/types.js';
import { NumberedLog } from '../outbox/numbered-log.js';

/**
 * The SETs waiting for a poll receiver (RFC 8936), in the service-wide state store, so every process answers a poll
 * with the same ones. Per receiver, a numbered log as the push outbox keeps (outbox/numbered-log.ts), and an index by
 * `jti` that finds a SET again for its acknowledgement, which takes both out. A poll reads from the log's tail. A SET
 * not acknowledged is kept for KEEP_MS, and at most MAX_PENDING per receiver (the oldest go first).
 */

/** A SET of one receiver, as kept: its `jti`, the compact SET, and its CAEP event's last segment. */
export interface Pending {
  jti: string;
  set: string;
  event: string;
}

const BY_JTI = 'ssf-qj';
/** Like the push outbox: four days. */
const KEEP_MS = 4 * 86_400_000;
const MAX_PENDING = 100_000;
/** One poll looks at this many numbers beyond what it returns, at most (acknowledged ones leave holes). */
const SCAN_SLACK = 1000;

export interface PollQueue {
  /** Adds SETs for the receiver `rk` (its key), in order. */
  add(rk: string, sets: readonly Pending[]): Promise<void>;
  /** Up to `max` SETs not yet acknowledged, oldest first, and whether more wait. */
  read(rk: string, max: number): Promise<{ sets: Pending[]; more: boolean }>;
  /** Takes the SETs of these `jti`s out (acknowledged, or reported in `setErrs`) and returns them; unknown: ignored. */
  remove(rk: string, jtis: readonly string[]): Promise<Pending[]>;
}

/** The poll queues over a state store. */
export function pollQueue(store: StateStore, clock: () => number): PollQueue {
  const logs = new Map<string, NumberedLog<Pending>>();
  const log = (rk: string) => {
    let l = logs.get(rk);
    if (!l)
      logs.set(rk, (l = new NumberedLog(store, clock, { counters: `ssf-q:${rk}`, entries: `ssf-qm:${rk}` }, KEEP_MS)));
    return l;
  };
  return {
    async add(rk, sets) {
      const seqs = await log(rk).add(sets);
      for (const [i, p] of sets.entries())
        await store.create(BY_JTI, `${rk}:${p.jti}`, { seq: seqs[i] }, clock() + KEEP_MS);
    },
    async read(rk, max) {
      const l = log(rk);
      const head = await l.head();
      let at = await l.trim(head, undefined, head.n - MAX_PENDING);
      const sets: Pending[] = [];
      const stop = Math.min(head.n, at + max + SCAN_SLACK);
      while (at < stop) {
        const entry = await l.entry(++at);
        if (!entry || entry.expiresAt <= clock()) continue;
        if (sets.length === max) return { sets, more: true };
        sets.push(entry.value);
      }
      return { sets, more: at < head.n };
    },
    async remove(rk, jtis) {
      const removed: Pending[] = [];
      for (const jti of jtis) {
        const index = await store.get<{ seq: number }>(BY_JTI, `${rk}:${jti}`);
        if (!index) continue;
        const cur = await log(rk).entry(index.value.seq);
        if (cur?.value.jti === jti) {
          await log(rk).remove(index.value.seq, cur.rev);
          removed.push(cur.value);
        }
        await store.remove(BY_JTI, `${rk}:${jti}`);
      }
      return removed;
    },
  };
}
