import type { StateStore } from '../state/types.js';
import { updateEntry } from '../state/update.js';
import { retryDelay } from './schedule.js';

/**
 * The webhooks' outbox over the service-wide state store, shared by every process on it. Each message has a
 * sequence number and an entry under it: a writer creates the entry at the first free number past the `head` counter
 * (a create is a compare-and-set: of two writers, one gets a number), then moves `head` past it, so every number up
 * to `head` has an entry. A process leases a due message by compare-and-set before it sends it, so two processes
 * never send one message at once, and a lease a killed process held runs out so another sends it. A delivered
 * message leaves a marker for an hour (a slow writer can never take its number again); the `tail` counter moves past
 * markers and expired entries. A message out of tries becomes a dead letter, listed and replayed by `authctl webhooks`.
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
/** How long a delivered message's marker holds its number. */
const DONE_KEEP_MS = 3_600_000;
/** The dead letters listed: the newest this many. */
const DEAD_MAX = 10_000;
const TRIES = 200;

interface Counter {
  n: number;
}

/** What a delivered (or buried) message's entry becomes. */
interface Done {
  done: true;
}

const isDone = (v: OutboxMessage | Done): v is Done => (v as Done).done === true;

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

type NewMessages = Parameters<Outbox['add']>[0];

class StateOutbox implements Outbox {
  readonly #store: StateStore;
  readonly #clock: () => number;
  readonly #random: () => number;
  readonly #ns: { NS: string; MESSAGES: string; DEAD: string };
  /** Where this process's next look starts: it goes round the window from the tail to the head. */
  #scanFrom = 0;
  // This process's additions one after another: they would only race each other for the head counter. What is
  // added while a batch is being written waits for the next one, which takes it all at once.
  #adding: Promise<unknown> = Promise.resolve();
  #batch: { messages: NewMessages; written: Promise<void> } | undefined;

  constructor(store: StateStore, clock: () => number, random: () => number, ns: string) {
    this.#store = store;
    this.#clock = clock;
    this.#random = random;
    this.#ns = { NS: ns, MESSAGES: `${ns}-msg`, DEAD: `${ns}-dead` };
  }

  add(messages: NewMessages): Promise<void> {
    if (this.#batch) {
      this.#batch.messages.push(...messages);
      return this.#batch.written;
    }
    const next = { messages: [...messages], written: Promise.resolve() };
    next.written = this.#adding.then(() => {
      this.#batch = undefined;
      return this.#write(next.messages);
    });
    this.#batch = next;
    this.#adding = next.written.catch(() => {});
    return next.written;
  }

  async lease(limit: number, leaseMs: number, scan = 1000): Promise<Leased[]> {
    const head = await this.#counter('head');
    const tail = await this.#trim(head);
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
    await this.#finish(leased);
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
    await this.#finish(leased);
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

  /**
   * Writes a batch: each message at the next number past the head that no other writer took (an entry there
   * already), then the head moved past the last: a reader never finds a number up to the head without its entry.
   */
  async #write(messages: NewMessages): Promise<void> {
    let seq = await this.#counter('head');
    for (const m of messages) {
      const message: OutboxMessage = { ...m, attempts: 0, nextAt: this.#clock(), leaseUntil: 0 };
      for (
        let tries = 0;
        !(await this.#store.create(this.#ns.MESSAGES, String(++seq), message, this.#clock() + KEEP_MS));
      )
        if (++tries >= TRIES) throw new Error(`outbox ${this.#ns.NS}: no free number after ${TRIES} tries`);
    }
    const last = seq;
    await this.#bump('head', (n) => (n >= last ? undefined : last));
  }

  /** The leased message is done with: a marker in its place until DONE_KEEP_MS, if it is still the one leased. */
  async #finish(leased: Leased): Promise<void> {
    const done: Done = { done: true };
    await this.#store.replace(this.#ns.MESSAGES, String(leased.seq), leased.rev, done, this.#clock() + DONE_KEEP_MS);
  }

  /** The message `seq`, leased by compare-and-set when it is due and nobody holds it. */
  async #leaseOne(seq: number, leaseMs: number): Promise<Leased | undefined> {
    const now = this.#clock();
    const cur = await this.#store.get<OutboxMessage | Done>(this.#ns.MESSAGES, String(seq));
    if (!cur || isDone(cur.value) || cur.expiresAt <= now || cur.value.nextAt > now || cur.value.leaseUntil > now)
      return undefined;
    const leased = { ...cur.value, leaseUntil: now + leaseMs };
    if (!(await this.#store.replace(this.#ns.MESSAGES, String(seq), cur.rev, leased, cur.expiresAt))) return undefined;
    const mine = await this.#store.get<OutboxMessage>(this.#ns.MESSAGES, String(seq));
    return mine ? { seq, rev: mine.rev, message: leased } : undefined;
  }

  /** Moves `tail` past the delivered (and expired) messages at its front. */
  async #trim(head: number): Promise<number> {
    let tail = await this.#counter('tail');
    while (tail < head) {
      const first = await this.#store.get<OutboxMessage | Done>(this.#ns.MESSAGES, String(tail + 1));
      if (first && first.expiresAt > this.#clock() && !isDone(first.value)) break;
      const from = tail;
      tail = (await this.#bump('tail', (n) => (n === from ? n + 1 : undefined))) ?? (await this.#counter('tail'));
    }
    return tail;
  }

  /** Adds a dead letter's id to the list, the newest DEAD_MAX kept. */
  async #listDead(id: string): Promise<void> {
    const ids = (cur: { ids: string[] } | undefined) => ({
      ids: [...(cur?.ids ?? []).filter((x) => x !== id), id].slice(-DEAD_MAX),
    });
    await updateEntry(this.#store, this.#ns.NS, 'dead', ids, () => this.#clock() + DEAD_KEEP_MS, TRIES);
  }

  async #counter(key: 'head' | 'tail'): Promise<number> {
    return (await this.#store.get<Counter>(this.#ns.NS, key))?.value.n ?? 0;
  }

  /** Moves a counter by compare-and-set to `to(n)`; undefined when `to` declines. */
  async #bump(key: 'head' | 'tail', to: (n: number) => number | undefined): Promise<number | undefined> {
    const moved = (cur: Counter | undefined) => {
      const next = to(cur?.n ?? 0);
      return next === undefined ? undefined : { n: next };
    };
    return (await updateEntry(this.#store, this.#ns.NS, key, moved, () => this.#clock() + KEEP_MS, TRIES))?.n;
  }
}
