import type { StateStore } from '../state/types.js';
import { updateEntry } from '../state/update.js';
import { retryDelay } from './schedule.js';
import { StateSequence } from './sequence.js';

/**
 * The webhooks' outbox over the service-wide state store, shared by every process on it. Each message has a
 * sequence number and an entry under it (sequence.ts: numbers reserved by compare-and-set on the `head` counter,
 * the `tail` moved past what is done with, never past a number still being written). A process leases a due message
 * by compare-and-set before it sends it, so two processes never send one message at once, and a lease a killed
 * process held runs out so another sends it. Delivered messages are taken out. A message out of tries becomes a dead
 * letter, listed and replayed by `authctl webhooks`.
 */

/** One message to one endpoint, as kept until it is delivered. Times are ms since the epoch. */
export interface OutboxMessage {
  /** `webhook-id`: the same on every try, so receivers drop duplicates. */
  id: string;
  /** The endpoint's id (WebhookEndpoint.id). */
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

/** Messages and counters outlive the retry schedule (under 58 hours) by far. */
const KEEP_MS = 4 * 86_400_000;
const DEAD_KEEP_MS = 30 * 86_400_000;
/** The dead letters listed: the newest this many. */
const DEAD_MAX = 10_000;
const TRIES = 200;

export interface Outbox {
  /** Adds messages (attempts 0, due now), in order. */
  add(messages: Array<Pick<OutboxMessage, 'id' | 'endpoint' | 'type' | 'body'>>): Promise<void>;
  /** Leases up to `limit` due messages for `leaseMs`, looking at `scan` entries at most, on from the last look. */
  lease(limit: number, leaseMs: number, scan?: number): Promise<Leased[]>;
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
 * The outbox over a state store (see above); `random` draws the retry jitter. `ns` names its namespaces (`<ns>`,
 * `<ns>-msg`, `<ns>-dead`): the webhooks' is `wh`, and another sender (the Shared Signals transmitter, `ssf`) keeps
 * an outbox of its own beside it on the same store.
 */
export function stateOutbox(
  store: StateStore,
  clock: () => number,
  random: () => number = Math.random,
  ns = 'wh',
): Outbox {
  return new StateOutbox(store, clock, random, ns);
}

class StateOutbox implements Outbox {
  readonly #store: StateStore;
  readonly #clock: () => number;
  readonly #random: () => number;
  readonly #ns: { NS: string; MESSAGES: string; DEAD: string };
  readonly #seq: StateSequence<OutboxMessage>;
  /** Where this process's next look starts: it goes round the window from the tail to the head. */
  #scanFrom = 0;

  constructor(store: StateStore, clock: () => number, random: () => number, ns: string) {
    this.#store = store;
    this.#clock = clock;
    this.#random = random;
    this.#ns = { NS: ns, MESSAGES: `${ns}-msg`, DEAD: `${ns}-dead` };
    this.#seq = new StateSequence(store, clock, { counters: ns, entries: this.#ns.MESSAGES }, KEEP_MS);
  }

  async add(messages: Parameters<Outbox['add']>[0]): Promise<void> {
    const now = this.#clock();
    await this.#seq.add(messages.map((m) => ({ ...m, attempts: 0, nextAt: now, leaseUntil: 0 })));
  }

  async lease(limit: number, leaseMs: number, scan = 1000): Promise<Leased[]> {
    const counter = await this.#seq.head();
    const head = counter.n;
    const tail = await this.#seq.trim(counter);
    if (this.#scanFrom <= tail || this.#scanFrom > head) this.#scanFrom = tail + 1;
    const got: Leased[] = [];
    for (let looked = 0; looked < scan && got.length < limit && this.#scanFrom <= head; looked++) {
      const leased = await this.#leaseOne(this.#scanFrom++, leaseMs);
      if (leased) got.push(leased);
    }
    // The whole window looked at: the next look starts at the front again, for what fell due meanwhile.
    if (this.#scanFrom > head) this.#scanFrom = 0;
    return got;
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
    await this.add([{ id, endpoint, type, body }]);
    return true;
  }

  /** The message `seq`, leased by compare-and-set when it is due and nobody holds it. */
  async #leaseOne(seq: number, leaseMs: number): Promise<Leased | undefined> {
    const now = this.#clock();
    const cur = await this.#seq.entry(seq);
    if (!cur || cur.expiresAt <= now || cur.value.nextAt > now || cur.value.leaseUntil > now) return undefined;
    const leased = { ...cur.value, leaseUntil: now + leaseMs };
    if (!(await this.#store.replace(this.#ns.MESSAGES, String(seq), cur.rev, leased, cur.expiresAt))) return undefined;
    const mine = await this.#store.get<OutboxMessage>(this.#ns.MESSAGES, String(seq));
    return mine ? { seq, rev: mine.rev, message: leased } : undefined;
  }

  /** Adds a dead letter's id to the list, the newest DEAD_MAX kept. */
  async #listDead(id: string): Promise<void> {
    const ids = (cur: { ids: string[] } | undefined) => ({
      ids: [...(cur?.ids ?? []).filter((x) => x !== id), id].slice(-DEAD_MAX),
    });
    await updateEntry(this.#store, this.#ns.NS, 'dead', ids, () => this.#clock() + DEAD_KEEP_MS, TRIES);
  }
}
