import type { Leased, Outbox } from './state-outbox.js';

/**
 * The delivery loop of one process: it leases due messages from the shared outbox, sends each to its endpoint through
 * its sender (a signed webhook, a Shared Signals push), and records the outcome: delivered, tried again on the
 * schedule, a dead letter, or the endpoint disabled by a 410. It looks again at once while it finds work, else every
 * `intervalMs`, and at once when this process adds a message. Time decisions read the instance's clock; only the pause
 * between looks is a timer.
 */

/**
 * What one try came to: a 2xx, 410 Gone, why it failed (a status or a transport reason: tried again), or why the
 * receiver refused this message for good (`refused`: a dead letter at once, its endpoint left as it is).
 */
export type SendResult = 'delivered' | 'gone' | { failed: string } | { refused: string };

/** What the worker needs of an endpoint: one try's time limit (a lease outlives it). */
export interface WorkerEndpoint {
  readonly timeoutMs: number;
}

/** The parts of a worker; `E` is its sender's endpoint (a webhook's, a Shared Signals push receiver). */
export interface WorkerParts<E extends WorkerEndpoint> {
  outbox: Outbox;
  endpoints: ReadonlyMap<string, E>;
  /** Sends one message to its endpoint (the sender's send.ts). */
  send: (endpoint: E, leased: Leased) => Promise<SendResult>;
  /** Whether an endpoint was disabled (a 410, from any process), and marking it so (a sender without it: never). */
  disabled: (endpoint: E) => Promise<boolean>;
  disable: (endpoint: E) => Promise<void>;
  failed: (endpoint: E, leased: Leased, reason: string, dead: boolean) => void;
  report: (err: unknown) => void;
  intervalMs: number;
  /** Messages sent at once by this process. */
  concurrency: number;
}

export interface Worker {
  start(): void;
  /** One look now, after the one under way: true when it found work (tests drive the worker with it). */
  lookNow(): Promise<boolean>;
  /** Look now (a message was added). */
  kick(): void;
  /** Stops looking and waits for the sends under way. */
  stop(): Promise<void>;
}

export function outboxWorker<E extends WorkerEndpoint>(p: WorkerParts<E>): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = true;

  async function deliver(leased: Leased): Promise<void> {
    const endpoint = p.endpoints.get(leased.message.endpoint);
    // An endpoint no longer configured: its messages wait (the outbox keeps them 4 days) in case it comes back.
    if (!endpoint) return;
    if (await p.disabled(endpoint)) return void (await p.outbox.bury(leased, 'endpoint disabled (410 Gone)'));
    const result = await p.send(endpoint, leased);
    if (result === 'delivered') return p.outbox.delivered(leased);
    if (result === 'gone') {
      await p.disable(endpoint);
      return p.outbox.bury(leased, 'endpoint answered 410 Gone');
    }
    if ('refused' in result) {
      await p.outbox.bury(leased, result.refused);
      return p.failed(endpoint, leased, result.refused, true);
    }
    const dead = await p.outbox.failed(leased, result.failed);
    p.failed(endpoint, leased, result.failed, dead);
  }

  /** One look: lease, send, record; true when it found work (so the next look comes at once). */
  async function look(): Promise<boolean> {
    // A lease outlives the send it covers (its time limit) by a margin; a killed process's runs out soon after.
    const leaseMs = Math.max(...[...p.endpoints.values()].map((e) => e.timeoutMs)) + 5_000;
    const batch = await p.outbox.lease(p.concurrency, leaseMs);
    await Promise.all(batch.map((leased) => deliver(leased).catch(p.report)));
    return batch.length > 0;
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(run, delayMs);
    timer.unref();
  }

  function run(): void {
    if (running) {
      again = true;
      return;
    }
    running = look()
      .catch((err: unknown) => {
        p.report(err);
        return false;
      })
      .then((busy) => {
        running = undefined;
        const now = busy || again;
        again = false;
        schedule(now ? 0 : p.intervalMs);
      });
  }

  return {
    start() {
      stopped = false;
      schedule(0);
    },
    kick() {
      if (!stopped) schedule(0);
    },
    async lookNow() {
      await running;
      return look();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
