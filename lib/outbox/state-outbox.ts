import type { StateStore } from '../state/types.js';
import { updateEntry } from '../state/update.js';
import { DueSchedule } from './due-bound.js';
import { FOREVER, NumberedLog, type Head } from './numbered-log.js';
import { retryDelay } from './retry-schedule.js';

/**
 * An outbox over the service-wide state store, shared by every process on it: the webhooks' messages wait in one, the
 * Shared Signals transmitter's pushes in another. Each message has a sequence number and an entry under it
 * (numbered-log.ts: numbers reserved by compare-and-set on the `head` counter, the `tail` moved past what is done with,
 * never past a number still being written). A process leases a due message by compare-and-set before it sends it, so
 * two processes never send one message at once, and a lease a killed process held runs out so another sends it.
 * Delivered messages are taken out. A message out of tries becomes a dead letter, listed and replayed by the outbox's
 * owner (`authctl webhooks`, a feature's admin object). A look reads the messages added since this process's last one,
 * and the waiting ones (retries, leases) only once the due bound says one may be due (due-bound.ts), so a look with
 * many messages waiting for a receiver that is down reads a few entries, not the outbox.
 */

/** One message to one endpoint, as kept until it is delivered. Times are ms since the epoch. */
export interface OutboxMessage {
  /** The same on every try (a webhook's `webhook-id`, a SET's `jti`), so receivers drop duplicates. */
  id: string;
  /** The id of the endpoint it goes to, as its sender names it (a webhook endpoint's, a push receiver's key). */
  endpoint: string;
  /** The event's type, for the events and the list. */
  type: string;
  /** The JSON body, as sent on every try. */
  body: string;
  attempts: number;
  nextAt: number;
  /** A process is sending it until then; 0 when none is. */
  leaseUntil: number;
  /** Why the last try failed: a status or a transport reason, never the receiver's body. */
  lastError?: string;
}

/** A message leased for sending: its place, and the revision that finishing it must still find. */
export interface Leased {
  seq: number;
  rev: string;
  message: OutboxMessage;
}

/** One look's leases, and the soonest due time of the new messages it found not due yet. */
interface Look {
  got: Leased[];
  limit: number;
  leaseMs: number;
  /** The due bound was lowered to this look's lease time. */
  lowered: boolean;
  later: number;
}

/** Messages outlive the retry schedule (under 58 hours) by far. */
const KEEP_MS = 4 * 86_400_000;
const DEAD_KEEP_MS = 30 * 86_400_000;
/** The dead letters listed: the newest this many. */
const DEAD_MAX = 10_000;
const TRIES = 200;

export interface Outbox {
  /** Adds messages (attempts 0, due now), in order. */
  add(messages: Array<Pick<OutboxMessage, 'id' | 'endpoint' | 'type' | 'body'>>): Promise<void>;
  /**
   * Leases up to `limit` due messages for `leaseMs`: the new ones this process has not read yet, and the waiting ones
   * when the due bound (due-bound.ts) says one may be due.
   */
  lease(limit: number, leaseMs: number): Promise<Leased[]>;
  /** A leased message was delivered: taken out. */
  delivered(leased: Leased): Promise<void>;
  /** A try failed: due again after the schedule's next delay, or a dead letter after the last (true then). */
  failed(leased: Leased, reason: string): Promise<boolean>;
  /** A leased message goes to the dead letters at once (its endpoint disabled itself with 410). */
  bury(leased: Leased, reason: string): Promise<void>;
  /** The dead letters, newest last. */
  dead(): Promise<OutboxMessage[]>;
  /** A dead letter back in the outbox, due now with its tries counted afresh; false when there is none of that id. */
  replay(id: string): Promise<boolean>;
}

/**
 * The outbox over a state store (see above). `ns` names its namespaces (`<ns>`, `<ns>-msg`, `<ns>-dead`), so each
 * sender keeps an outbox of its own beside the others on the same store; `random` draws the retry jitter.
 */
export function stateOutbox(
  store: StateStore,
  clock: () => number,
  ns: string,
  random: () => number = Math.random,
): Outbox {
  return new StateOutbox(store, clock, random, ns);
}

class StateOutbox implements Outbox {
  readonly #store: StateStore;
  readonly #clock: () => number;
  readonly #random: () => number;
  readonly #ns: { NS: string; MESSAGES: string; DEAD: string };
  readonly #seq: NumberedLog<OutboxMessage>;
  readonly #due: DueSchedule;
  /** The last number this process looked at as new: what comes after it, it has not read yet. */
  #seen = 0;
  /** Numbers read while their entries were still being written (another process's batch). */
  readonly #unwritten = new Set<number>();
  /** The pass over the waiting messages under way here (it goes on at the next look when a look fills up). */
  #pass: { epoch: number; at: number; soonest: number } | undefined;

  constructor(store: StateStore, clock: () => number, random: () => number, ns: string) {
    this.#store = store;
    this.#clock = clock;
    this.#random = random;
    this.#ns = { NS: ns, MESSAGES: `${ns}-msg`, DEAD: `${ns}-dead` };
    this.#seq = new NumberedLog(store, clock, { counters: ns, entries: this.#ns.MESSAGES }, KEEP_MS);
    this.#due = new DueSchedule(this.#seq);
  }

  async add(messages: Parameters<Outbox['add']>[0]): Promise<void> {
    const now = this.#clock();
    await this.#seq.add(messages.map((m) => ({ ...m, attempts: 0, nextAt: now, leaseUntil: 0 })));
  }

  async lease(limit: number, leaseMs: number): Promise<Leased[]> {
    const counter = await this.#seq.head();
    const head = counter.n;
    const tail = await this.#seq.trim(counter);
    const look: Look = { got: [], limit, leaseMs, lowered: false, later: FOREVER };
    // New messages first: every process reads each once, as it comes (the outbox started afresh: from the tail).
    if (this.#seen < tail || this.#seen > head) this.#seen = tail;
    for (const seq of [...this.#unwritten])
      if (seq <= tail) this.#unwritten.delete(seq);
      else if (look.got.length < limit) await this.#readNew(seq, counter, look);
    while (look.got.length < limit && this.#seen < head) await this.#readNew(++this.#seen, counter, look);
    // One not due yet (leased by another process, or stamped by a clock ahead of this one's) is the bound's to recall.
    if (look.later < FOREVER) await this.#due.lower(look.later);
    if (look.got.length < limit) await this.#passWaiting(tail, look);
    return look.got;
  }

  async delivered(leased: Leased): Promise<void> {
    await this.#seq.remove(leased.seq, leased.rev);
  }

  async failed(leased: Leased, reason: string): Promise<boolean> {
    const attempts = leased.message.attempts + 1;
    const delay = retryDelay(attempts, this.#random());
    if (delay === undefined) {
      await this.bury({ ...leased, message: { ...leased.message, attempts } }, reason);
      return true;
    }
    const now = this.#clock();
    const next = { ...leased.message, attempts, nextAt: now + delay, leaseUntil: 0, lastError: reason };
    await this.#due.lower(next.nextAt);
    await this.#store.replace(this.#ns.MESSAGES, String(leased.seq), leased.rev, next, now + KEEP_MS);
    return false;
  }

  async bury(leased: Leased, reason: string): Promise<void> {
    const message = { ...leased.message, lastError: reason, leaseUntil: 0 };
    await this.#store.remove(this.#ns.DEAD, message.id);
    await this.#store.create(this.#ns.DEAD, message.id, message, this.#clock() + DEAD_KEEP_MS);
    await this.#listDead(message.id);
    await this.#seq.remove(leased.seq, leased.rev);
  }

  async dead(): Promise<OutboxMessage[]> {
    const ids = (await this.#store.get<{ ids: string[] }>(this.#ns.NS, 'dead'))?.value.ids ?? [];
    const found = await Promise.all(
      ids.map(async (id) => (await this.#store.get<OutboxMessage>(this.#ns.DEAD, id))?.value),
    );
    return found.filter((m): m is OutboxMessage => m !== undefined);
  }

  async replay(id: string): Promise<boolean> {
    const cur = await this.#store.get<OutboxMessage>(this.#ns.DEAD, id);
    if (!cur || !(await this.#store.take(this.#ns.DEAD, id, cur.rev))) return false;
    const { endpoint, type, body } = cur.value;
    try {
      await this.add([{ id, endpoint, type, body }]);
    } catch (err) {
      // Not back in the outbox: the dead letter stays one, to be replayed again.
      await this.#store.create(this.#ns.DEAD, id, cur.value, cur.expiresAt);
      throw err;
    }
    return true;
  }

  /** A new message read: leased when due; one whose entry is still being written is read again at each look. */
  async #readNew(seq: number, counter: Head, look: Look): Promise<void> {
    const found = await this.#take(seq, look);
    if (found === null && this.#seq.beingWritten(counter, seq)) this.#unwritten.add(seq);
    else this.#unwritten.delete(seq);
    if (typeof found === 'number') look.later = Math.min(look.later, found);
  }

  /**
   * The waiting messages, those tried and failed or leased: passed over once the due bound has come (due-bound.ts),
   * each due one leased, the soonest due time of the rest recorded as the new bound when the pass is through.
   */
  async #passWaiting(tail: number, look: Look): Promise<void> {
    const due = await this.#due.read();
    if (this.#pass && this.#pass.epoch !== due.epoch) this.#pass = undefined; // another process's pass was recorded
    if (!this.#pass) {
      if (due.at > this.#clock()) return;
      this.#pass = { epoch: due.epoch, at: tail + 1, soonest: FOREVER };
    }
    const pass = this.#pass;
    pass.at = Math.max(pass.at, tail + 1);
    while (look.got.length < look.limit && pass.at <= this.#seen) {
      const found = await this.#take(pass.at++, look);
      if (typeof found === 'number') pass.soonest = Math.min(pass.soonest, found);
    }
    if (pass.at <= this.#seen) return;
    this.#pass = undefined;
    await this.#due.passed(pass.epoch, pass.soonest);
  }

  /**
   * The message `seq`, leased by compare-and-set when it is due and nobody holds it; else when it may be due next
   * (its next try, or its lease running out); undefined when it is done with or leased here, null when it has no
   * entry (taken out, or not written yet).
   */
  async #take(seq: number, look: Look): Promise<Leased | number | null | undefined> {
    const now = this.#clock();
    const cur = await this.#seq.entry(seq);
    if (!cur) return null;
    if (cur.expiresAt <= now) return undefined;
    const { nextAt, leaseUntil } = cur.value;
    if (nextAt > now || leaseUntil > now) return Math.max(nextAt, leaseUntil);
    // Before the first lease of a look: should this process die holding it, the bound brings another one here.
    const until = now + look.leaseMs;
    if (!look.lowered) await this.#due.lower(until);
    look.lowered = true;
    const leased = { ...cur.value, leaseUntil: until };
    if (!(await this.#store.replace(this.#ns.MESSAGES, String(seq), cur.rev, leased, cur.expiresAt))) return undefined;
    const mine = await this.#store.get<OutboxMessage>(this.#ns.MESSAGES, String(seq));
    if (!mine) return undefined;
    look.got.push({ seq, rev: mine.rev, message: leased });
    return undefined;
  }

  /** Adds a dead letter's id to the list, the newest DEAD_MAX kept. */
  async #listDead(id: string): Promise<void> {
    const ids = (cur: { ids: string[] } | undefined) => ({
      ids: [...(cur?.ids ?? []).filter((x) => x !== id), id].slice(-DEAD_MAX),
    });
    await updateEntry(this.#store, this.#ns.NS, 'dead', ids, () => this.#clock() + DEAD_KEEP_MS, TRIES);
  }
}
