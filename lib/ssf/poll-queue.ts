import type { StateStore } from '../state/types.js';
import { updateEntry } from '../state/update.js';

/**
 * The SETs waiting for a poll receiver (RFC 8936), in the service-wide state store, so every process answers a poll
 * with the same ones. Per receiver, as in the push outbox (webhooks/outbox.ts): each SET is an entry created at the
 * first free number past the `head` counter, which then moves past it, and an index by `jti` finds it again for the
 * acknowledgement, which leaves a marker in its place for an hour. A poll reads from the `tail`, which moves past
 * markers and expired entries. A SET not acknowledged is kept for KEEP_MS, and at most MAX_PENDING per receiver (the
 * oldest go first).
 */

/** A SET of one receiver, as kept: its `jti`, the compact SET, and its CAEP event's last segment. */
export interface Pending {
  jti: string;
  set: string;
  event: string;
}

interface Counter {
  n: number;
}

interface Done {
  done: true;
}

const isDone = (v: Pending | Done): v is Done => (v as Done).done === true;

const QUEUE = 'ssf-q';
const BY_JTI = 'ssf-qj';
const COUNTERS = 'ssf-qc';
/** Like the push outbox: four days. */
const KEEP_MS = 4 * 86_400_000;
const DONE_KEEP_MS = 3_600_000;
const MAX_PENDING = 100_000;
/** One poll looks at this many places beyond what it returns, at most (acknowledged ones leave holes). */
const SCAN_SLACK = 1000;
const TRIES = 200;

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
  const keep = () => clock() + KEEP_MS;
  const counter = async (rk: string, which: 'head' | 'tail') =>
    (await store.get<Counter>(COUNTERS, `${rk}:${which}`))?.value.n ?? 0;
  const bump = (rk: string, which: 'head' | 'tail', to: (n: number) => number | undefined) =>
    updateEntry<Counter>(
      store,
      COUNTERS,
      `${rk}:${which}`,
      (cur) => {
        const next = to(cur?.n ?? 0);
        return next === undefined ? undefined : { n: next };
      },
      keep,
      TRIES,
    );

  /** Moves the tail past missing or expired places at the front, and past the oldest beyond MAX_PENDING. */
  async function trim(rk: string, head: number): Promise<number> {
    let tail = await counter(rk, 'tail');
    const floor = head - MAX_PENDING;
    while (tail < head) {
      const first = tail < floor ? undefined : await store.get<Pending | Done>(QUEUE, `${rk}:${tail + 1}`);
      if (first && first.expiresAt > clock() && !isDone(first.value)) break;
      const from = tail;
      tail = (await bump(rk, 'tail', (n) => (n === from ? n + 1 : undefined)))?.n ?? (await counter(rk, 'tail'));
    }
    return tail;
  }

  return {
    async add(rk, sets) {
      if (sets.length === 0) return;
      let seq = await counter(rk, 'head');
      for (const p of sets) {
        for (let tries = 0; !(await store.create(QUEUE, `${rk}:${++seq}`, p, keep()));)
          if (++tries >= TRIES) throw new Error(`ssf poll queue: no free number after ${TRIES} tries`);
        await store.create(BY_JTI, `${rk}:${p.jti}`, { seq }, keep());
      }
      const last = seq;
      await bump(rk, 'head', (n) => (n >= last ? undefined : last));
    },
    async read(rk, max) {
      const head = await counter(rk, 'head');
      let at = await trim(rk, head);
      const sets: Pending[] = [];
      const stop = Math.min(head, at + max + SCAN_SLACK);
      while (at < stop) {
        const entry = await store.get<Pending | Done>(QUEUE, `${rk}:${++at}`);
        if (!entry || entry.expiresAt <= clock() || isDone(entry.value)) continue;
        if (sets.length === max) return { sets, more: true };
        sets.push(entry.value);
      }
      return { sets, more: at < head };
    },
    async remove(rk, jtis) {
      const removed: Pending[] = [];
      for (const jti of jtis) {
        const index = await store.get<{ seq: number }>(BY_JTI, `${rk}:${jti}`);
        if (!index) continue;
        const key = `${rk}:${index.value.seq}`;
        const cur = await store.get<Pending | Done>(QUEUE, key);
        if (cur && !isDone(cur.value)) {
          await store.replace(QUEUE, key, cur.rev, { done: true }, clock() + DONE_KEEP_MS);
          removed.push(cur.value);
        }
        await store.remove(BY_JTI, `${rk}:${jti}`);
      }
      return removed;
    },
  };
}
