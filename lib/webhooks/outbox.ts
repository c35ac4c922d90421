import type { StateStore } from '../state/types.js';
import { retryDelay } from './schedule.js';

/**
 * The webhooks' outbox over the service-wide state store, shared by every process on it. Each message has a
 * sequence number (a counter moved by compare-and-set) and an entry under it; a process leases a due message by
 * compare-and-set before it sends it, so two processes never send one message at once, and a lease a killed process
 * held runs out so another sends it. Delivered messages are taken out; the `tail` counter moves past them. A message
 * out of tries becomes a dead letter, listed and replayed by `authctl webhooks`.
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

const NS = 'wh';
const MESSAGES = 'wh-msg';
const DEAD = 'wh-dead';
/** Messages and counters outlive the retry schedule (under 58 hours) by far. */
const KEEP_MS = 4 * 86_400_000;
const DEAD_KEEP_MS = 30 * 86_400_000;
/** The dead letters listed: the newest this many. */
const DEAD_MAX = 10_000;
const TRIES = 200;

interface Counter {
  n: number;
}

export interface Outbox {
  /** Adds messages (attempts 0, due now), in order. */
  add(messages: Array<Pick<OutboxMessage, 'id' | 'endpoint' | 'type' | 'body'>>): Promise<void>;
  /** Leases up to `limit` due messages for `leaseMs`, looking at most `scan` entries from where the last look stopped. */
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

export function stateOutbox(store: StateStore, clock: () => number, random: () => number = Math.random): Outbox {
  let scanFrom = 0;
  // This process's additions one after another: they would only race each other for the head counter.
  let adding: Promise<unknown> = Promise.resolve();

  async function bump(key: 'head' | 'tail', to?: (n: number) => number | undefined): Promise<number | undefined> {
    for (let i = 0; i < TRIES; i++) {
      const cur = await store.get<Counter>(NS, key);
      const n = cur?.value.n ?? 0;
      const next = to ? to(n) : n + 1;
      if (next === undefined) return undefined;
      const value = { n: next };
      const exp = clock() + KEEP_MS;
      if (cur ? await store.replace(NS, key, cur.rev, value, exp) : await store.create(NS, key, value, exp))
        return next;
    }
    throw new Error(`webhooks outbox: the ${key} counter kept changing`);
  }
  const counter = async (key: 'head' | 'tail') => (await store.get<Counter>(NS, key))?.value.n ?? 0;

  /** Writes a batch: its sequence numbers reserved by one move of the head, then one entry each. */
  async function addAll(messages: Parameters<Outbox['add']>[0]): Promise<void> {
    const last = (await bump('head', (n) => n + messages.length))!;
    let seq = last - messages.length;
    for (const m of messages) {
      const message: OutboxMessage = { ...m, attempts: 0, nextAt: clock(), leaseUntil: 0 };
      if (!(await store.create(MESSAGES, String(++seq), message, clock() + KEEP_MS)))
        throw new Error(`webhooks outbox: message ${seq} exists`);
    }
  }

  /** Moves `tail` past the delivered messages at its front. */
  async function trim(head: number): Promise<number> {
    let tail = await counter('tail');
    while (tail < head) {
      const first = await store.get<OutboxMessage>(MESSAGES, String(tail + 1));
      if (first && first.expiresAt > clock()) break;
      const moved = await bump('tail', (n) => (n === tail ? n + 1 : undefined));
      tail = moved ?? (await counter('tail'));
    }
    return tail;
  }

  async function toDead(leased: Leased, reason: string): Promise<void> {
    const message = { ...leased.message, lastError: reason, leaseUntil: 0 };
    await store.remove(DEAD, message.id);
    await store.create(DEAD, message.id, message, clock() + DEAD_KEEP_MS);
    for (let i = 0; i < TRIES; i++) {
      const cur = await store.get<{ ids: string[] }>(NS, 'dead');
      const ids = [...(cur?.value.ids ?? []).filter((x) => x !== message.id), message.id].slice(-DEAD_MAX);
      const exp = clock() + DEAD_KEEP_MS;
      if (cur ? await store.replace(NS, 'dead', cur.rev, { ids }, exp) : await store.create(NS, 'dead', { ids }, exp))
        break;
    }
    await store.take(MESSAGES, String(leased.seq), leased.rev);
  }

  // What is added while a batch is being written waits for the next one, which takes it all at once.
  let batch: { messages: Parameters<Outbox['add']>[0]; written: Promise<void> } | undefined;
  const add: Outbox['add'] = (messages) => {
    if (batch) {
      batch.messages.push(...messages);
      return batch.written;
    }
    const next = { messages: [...messages], written: Promise.resolve() };
    next.written = adding.then(() => {
      batch = undefined;
      return addAll(next.messages);
    });
    batch = next;
    adding = next.written.catch(() => {});
    return next.written;
  };

  return {
    add,
    async lease(limit, leaseMs, scan = 1000) {
      const head = await counter('head');
      const tail = await trim(head);
      if (scanFrom <= tail || scanFrom > head) scanFrom = tail + 1;
      const got: Leased[] = [];
      const now = clock();
      for (let looked = 0; looked < scan && got.length < limit && scanFrom <= head; looked++, scanFrom++) {
        const cur = await store.get<OutboxMessage>(MESSAGES, String(scanFrom));
        if (!cur || cur.expiresAt <= now) continue;
        const m = cur.value;
        if (m.nextAt > now || m.leaseUntil > now) continue;
        const leased = { ...m, leaseUntil: now + leaseMs };
        if (await store.replace(MESSAGES, String(scanFrom), cur.rev, leased, cur.expiresAt)) {
          const mine = await store.get<OutboxMessage>(MESSAGES, String(scanFrom));
          if (mine) got.push({ seq: scanFrom, rev: mine.rev, message: leased });
        }
      }
      // The whole window looked at: the next look starts at the front again, for what fell due meanwhile.
      if (scanFrom > head) scanFrom = 0;
      return got;
    },
    async delivered(leased) {
      await store.take(MESSAGES, String(leased.seq), leased.rev);
    },
    async failed(leased, reason) {
      const attempts = leased.message.attempts + 1;
      const delay = retryDelay(attempts, random());
      if (delay === undefined) {
        await toDead({ ...leased, message: { ...leased.message, attempts } }, reason);
        return true;
      }
      const next = { ...leased.message, attempts, nextAt: clock() + delay, leaseUntil: 0, lastError: reason };
      await store.replace(MESSAGES, String(leased.seq), leased.rev, next, clock() + KEEP_MS);
      return false;
    },
    bury: (leased, reason) => toDead(leased, reason),
    async dead() {
      const ids = (await store.get<{ ids: string[] }>(NS, 'dead'))?.value.ids ?? [];
      const found = await Promise.all(ids.map(async (id) => (await store.get<OutboxMessage>(DEAD, id))?.value));
      return found.filter((m): m is OutboxMessage => m !== undefined);
    },
    async replay(id) {
      const cur = await store.get<OutboxMessage>(DEAD, id);
      if (!cur || !(await store.take(DEAD, id, cur.rev))) return false;
      const { endpoint, type, body } = cur.value;
      await add([{ id, endpoint, type, body }]);
      return true;
    },
  };
}
