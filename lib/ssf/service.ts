import { randomBytes } from 'node:crypto';
import type { AuthEventBus } from '../events/bus.js';
import type { AuthEvent } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { JwtSigner } from '../session/signer.js';
import type { StateStore } from '../state/types.js';
import type { Tracing } from '../telemetry/types.js';
import { stateOutbox, type Leased, type Outbox } from '../outbox/state-outbox.js';
import { outboxWorker, type SendResult, type Worker } from '../outbox/worker.js';
import type { SsfConfig, SsfReceiver } from './options.js';
import { pollQueue, type PollQueue } from './poll-queue.js';
import { ssfSender } from './send.js';
import { setClaims, signalOf, type Signal } from './sets.js';

/**
 * The Shared Signals transmitter of one instance (docs/ssf.md): each event that ends a session or changes a
 * credential becomes one Security Event Token per receiver, signed with the service's key and kept in the state
 * store in the step that emits the event (the bus's tap: the request that told it answers once it is kept). A push
 * receiver's SETs go through the shared outbox (lib/outbox/, in its own namespace, `ssf`, beside the webhooks' `wh`):
 * leased by compare-and-set, sent by this process's worker, tried again on the outbox's retry schedule. A poll
 * receiver's wait in its poll queue.
 */

export interface SsfParts {
  bus: Pick<AuthEventBus, 'tap' | 'untap'>;
  stateStore: StateStore;
  clock: () => number;
  logger: Logger;
  /** The service's signing key, as a sign function. */
  signer: JwtSigner;
  /** The SETs' `iss`: the service's `issuer`. */
  issuer: string;
  emit: (type: 'ssf_delivery_failed', fields: Record<string, unknown>) => void;
  /** How a SET is pushed; the real POST by default. */
  send?: (receiver: SsfReceiver, leased: Leased) => Promise<SendResult>;
  tracing?: Tracing;
  /** The pause between looks of the push worker when there is nothing to send. Default 1 s. */
  intervalMs?: number;
}

/** A SET a push receiver never took, as listed: its `jti`, receiver and event, never the SET. */
export interface SsfDeadLetter {
  jti: string;
  receiver: string;
  event: string;
  attempts: number;
  lastError?: string;
}

/** `auth.features.get('ssf')`. */
export interface SsfAdmin {
  /** The SETs a push receiver never accepted (out of tries, or refused with 400). */
  dead(): Promise<SsfDeadLetter[]>;
  /** A dead letter back in the outbox, due now; false when there is none of that jti. */
  replay(jti: string): Promise<boolean>;
  /** Resolves once every event told so far is kept (a graceful shutdown waits for it; close() does). */
  flushed(): Promise<void>;
}

export interface Transmitter {
  admin: SsfAdmin;
  queue: PollQueue;
  start(): void;
  close(): Promise<void>;
}

export function createTransmitter(config: SsfConfig, p: SsfParts): Transmitter {
  const byKey = new Map(config.receivers.map((r) => [r.key, r]));
  const outbox = stateOutbox(p.stateStore, p.clock, 'ssf');
  const queue = pollQueue(p.stateStore, p.clock);
  const worker = pushWorker(outbox, byKey, p);
  const pending = new Set<Promise<unknown>>();

  /** Starts keeping the event's SETs; what it returns, the request that told it waits for (AuthEventBus.tap). */
  const enqueue = (event: AuthEvent): Promise<unknown> | undefined => {
    const signal = signalOf(event);
    if (!signal) return undefined;
    const kept = keep(config, signal, outbox, queue, p).then(
      () => worker.kick(),
      (err: unknown) =>
        p.logger.error(`ssf: an event could not be kept for its receivers: ${(err as Error)?.message}`, {
          code: 'ssf_enqueue_failed',
        }),
    );
    pending.add(kept);
    void kept.finally(() => pending.delete(kept));
    return kept;
  };
  const flushed = async () => void (await Promise.all([...pending]));
  return {
    queue,
    admin: {
      async dead() {
        return (await outbox.dead()).map((m) => ({
          jti: m.id,
          receiver: byKey.get(m.endpoint)?.id ?? m.endpoint,
          event: m.type,
          attempts: m.attempts,
          ...(m.lastError && { lastError: m.lastError }),
        }));
      },
      async replay(jti) {
        const back = await outbox.replay(jti);
        if (back) worker.kick();
        return back;
      },
      flushed,
    },
    start() {
      p.bus.tap(enqueue);
      worker.start();
    },
    async close() {
      p.bus.untap(enqueue);
      await flushed(); // what was told before the close is kept for the next process
      await worker.stop();
    },
  };
}

/** One SET per receiver, signed; a push receiver's to the outbox, a poll receiver's to its queue. */
async function keep(config: SsfConfig, signal: Signal, outbox: Outbox, queue: PollQueue, p: SsfParts): Promise<void> {
  const txn = randomBytes(12).toString('base64url');
  const sets = await Promise.all(
    config.receivers.map(async (r) => {
      const jti = randomBytes(16).toString('base64url');
      const claims = setClaims(signal, { iss: p.issuer, aud: r.id, jti, txn });
      return { r, jti, set: await p.signer.sign(claims, { typ: 'secevent+jwt' }) };
    }),
  );
  const pushed = sets
    .filter(({ r }) => r.push !== undefined)
    .map(({ r, jti, set }) => ({ id: jti, endpoint: r.key, type: signal.event, body: set }));
  await Promise.all([
    pushed.length > 0 ? outbox.add(pushed) : undefined,
    ...sets
      .filter(({ r }) => r.push === undefined)
      .map(({ r, jti, set }) => queue.add(r.key, [{ jti, set, event: signal.event }])),
  ]);
}

/** This process's push worker over the outbox: the outbox's loop, its failures told as `ssf_delivery_failed`. */
function pushWorker(outbox: Outbox, byKey: ReadonlyMap<string, SsfReceiver>, p: SsfParts): Worker {
  const pushes = new Map([...byKey].filter(([, r]) => r.push !== undefined));
  return outboxWorker<SsfReceiver>({
    outbox,
    endpoints: pushes,
    send: p.send ?? ssfSender(p.tracing),
    // RFC 8935 has no 410: a receiver is never disabled, only its SETs buried after the last try.
    disabled: () => Promise.resolve(false),
    disable: () => Promise.resolve(),
    failed(r, { message }, reason, dead) {
      const attempt = message.attempts + 1;
      p.emit('ssf_delivery_failed', { receiver: r.id, jti: message.id, event: message.type, attempt, reason, dead });
    },
    report: (err) =>
      p.logger.error(`ssf: a push step failed: ${(err as Error)?.message}`, { code: 'ssf_worker_failed' }),
    intervalMs: p.intervalMs ?? 1000,
    concurrency: 16,
  });
}
