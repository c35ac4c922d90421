import type { StateEntry, StateStore } from '../state/types.js';

/**
 * A numbered log in a state store, shared by every process on it: what the outbox (state-outbox.ts) and the Shared
 * Signals poll queues are built on. The `head` counter is moved by compare-and-set: a writer reserves the numbers of a
 * batch by moving it, writes one entry per number, then says it is done. The `tail` moves past the numbers at the
 * front that are done with: an entry taken out or expired. A number whose writer has not written it yet is told from
 * one taken out by the head's list of batches being written: the tail waits there, for WRITING_MS at most (a writer
 * killed mid-batch leaves its numbers empty; they are passed after that). The counters are kept for good: one that
 * expired would read as its last number but refuse every write (replace() takes only a live entry), and one swept
 * away would start the numbers again behind the tail, where no look finds them.
 */

/** The head counter's entry: the last number reserved, and the batches being written. */
export interface Head {
  n: number;
  writing?: Array<[from: number, to: number, since: number]>;
}

/** Lost compare-and-set races before a counter's change gives up. */
const TRIES = 200;
/** The counters' expiry: never (the latest time a Date holds). */
export const FOREVER = 8_640_000_000_000_000;
/** A batch being written longer than this was left by a killed writer. */
const WRITING_MS = 60_000;

export interface LogNames {
  /** The namespace of the `head` and `tail` counters (the outbox keeps its dead letters' list there too). */
  counters: string;
  /** The namespace of the entries, each under its number. */
  entries: string;
}

export class NumberedLog<V> {
  readonly #store: StateStore;
  readonly #clock: () => number;
  readonly #ns: LogNames;
  readonly #keepMs: number;
  // This process's additions one after another: they would only race each other for the head counter. What is
  // added while a batch is being written waits for the next one, which takes it all at once.
  #adding: Promise<unknown> = Promise.resolve();
  #batch: { values: V[]; first: Promise<number> } | undefined;

  constructor(store: StateStore, clock: () => number, ns: LogNames, keepMs: number) {
    this.#store = store;
    this.#clock = clock;
    this.#ns = ns;
    this.#keepMs = keepMs;
  }

  /** Adds values in order; resolves to the number of each once it is written. */
  add(values: readonly V[]): Promise<number[]> {
    let batch = this.#batch;
    if (!batch) {
      const next: { values: V[]; first: Promise<number> } = { values: [], first: Promise.resolve(0) };
      next.first = this.#adding.then(() => {
        this.#batch = undefined;
        return this.#write(next.values);
      });
      this.#adding = next.first.catch(() => {});
      this.#batch = batch = next;
    }
    const offset = batch.values.length;
    batch.values.push(...values);
    return batch.first.then((first) => values.map((_, i) => first + offset + i));
  }

  /** The entry under `seq`, live or not. */
  entry(seq: number): Promise<StateEntry<V> | undefined> {
    return this.#store.get<V>(this.#ns.entries, String(seq));
  }

  /** Takes the entry under `seq` out, if it still has revision `rev` (any revision without one). */
  async remove(seq: number, rev?: string): Promise<void> {
    if (rev === undefined) await this.#store.remove(this.#ns.entries, String(seq));
    else await this.#store.take(this.#ns.entries, String(seq), rev);
  }

  /** The last number reserved. */
  async head(): Promise<Head> {
    return (await this.#store.get<Head>(this.#ns.counters, 'head'))?.value ?? { n: 0 };
  }

  async tail(): Promise<number> {
    return (await this.#store.get<{ n: number }>(this.#ns.counters, 'tail'))?.value.n ?? 0;
  }

  /** The counter `key` of this log's namespace (one of the owner's own, beside `head` and `tail`). */
  async counter<T>(key: string): Promise<T | undefined> {
    return (await this.#store.get<T>(this.#ns.counters, key))?.value;
  }

  /** Changes the counter `key` of this log's namespace by compare-and-set (updateCounter). */
  update<T>(key: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    return updateCounter(this.#store, this.#ns.counters, key, change, this.#clock);
  }

  /**
   * Moves `tail` past the numbers at its front that are done with (taken out, expired, or `done(value)`), never past
   * one still being written; resolves to the tail. `floor`: numbers up to it are passed whatever they hold.
   */
  async trim(head: Head, done: (value: V) => boolean = () => false, floor = 0): Promise<number> {
    let tail = await this.tail();
    while (tail < head.n) {
      const seq = tail + 1;
      if (seq > floor) {
        const first = await this.entry(seq);
        if (first ? first.expiresAt > this.#clock() && !done(first.value) : this.beingWritten(head, seq)) break;
      }
      const from = tail;
      const moved = (cur: { n: number } | undefined) => ((cur?.n ?? 0) === from ? { n: from + 1 } : undefined);
      tail = (await this.update('tail', moved))?.n ?? (await this.tail());
    }
    return tail;
  }

  #keep = () => this.#clock() + this.#keepMs;

  /** Whether the number `seq`, without an entry, is still to be written (its writer is at it). */
  beingWritten(head: Head, seq: number): boolean {
    const stale = this.#clock() - WRITING_MS;
    return (head.writing ?? []).some(([from, to, since]) => from <= seq && seq <= to && since > stale);
  }

  /** Writes a batch: its numbers reserved by one move of the head (marked as being written), an entry each, done. */
  async #write(values: V[]): Promise<number> {
    if (values.length === 0) return 0;
    const now = this.#clock();
    const live = (h: Head | undefined) => (h?.writing ?? []).filter(([, , since]) => since > now - WRITING_MS);
    // Never behind the tail: numbers there count as done with, whatever is written under them.
    const tail = await this.tail();
    const reserve = (h: Head | undefined): Head => {
      const n = Math.max(h?.n ?? 0, tail);
      return { n: n + values.length, writing: [...live(h), [n + 1, n + values.length, now]] };
    };
    const last = (await this.update('head', reserve))!.n;
    const first = last - values.length + 1;
    let seq = first;
    for (const v of values)
      if (!(await this.#store.create(this.#ns.entries, String(seq++), v, this.#keep())))
        throw new Error(`${this.#ns.entries}: entry ${seq - 1} exists`);
    const written = (h: Head | undefined): Head => ({
      n: h?.n ?? last,
      writing: live(h).filter(([from]) => from !== first),
    });
    await this.update('head', written);
    return first;
  }
}

/**
 * A counter changed by compare-and-set, kept for good. A counter never goes back, so one found expired (kept for a
 * while only, by an earlier version) is carried on from its value: written over by create(), which takes an expired
 * entry's place as atomically as replace() takes a live one's, so of two racing writers one wins either way.
 */
export async function updateCounter<T>(
  store: StateStore,
  ns: string,
  key: string,
  change: (current: T | undefined) => T | undefined,
  clock: () => number,
): Promise<T | undefined> {
  for (let i = 0; i < TRIES; i++) {
    const cur = await store.get<T>(ns, key);
    const next = change(cur?.value);
    if (next === undefined) return undefined;
    const written =
      cur && cur.expiresAt > clock()
        ? await store.replace(ns, key, cur.rev, next, FOREVER)
        : await store.create(ns, key, next, FOREVER);
    if (written) return next;
  }
  throw new Error(`${ns} ${key}: the counter kept changing`);
}
