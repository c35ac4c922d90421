import { randomBytes } from 'node:crypto';
import type { AuthEventBus } from '../events/bus.js';
import type { AuthEvent } from '../events/types.js';
import type { Logger } from '../logger.js';
import type { StateStore } from '../state/types.js';
import type { Tracing } from '../telemetry/types.js';
import { WEBHOOK_EVENTS } from './events.js';
import type { WebhookEndpoint, WebhooksConfig } from './options.js';
import type { Outbox, OutboxMessage } from '../outbox/state-outbox.js';
import { outboxWorker, type SendResult, type Worker } from '../outbox/worker.js';
import { webhookOutbox } from './outbox.js';
import { webhookSender } from './send.js';

/**
 * The webhooks of one instance (docs/events.md#webhooks): every event an endpoint asked for goes to the outbox in the
 * state store as the bus tells it, and this process's worker delivers what is due, sharing the outbox with every
 * other process on the store.
 */

export interface WebhooksParts {
  bus: Pick<AuthEventBus, 'tap' | 'untap'>;
  stateStore: StateStore;
  clock: () => number;
  logger: Logger;
  emit: (type: (typeof WEBHOOK_EVENTS)[number], fields: Record<string, unknown>) => void;
  /** How a message is sent; the real POST by default (tests put a receiver of their own behind it). */
  send?: (endpoint: WebhookEndpoint, leased: Parameters<ReturnType<typeof webhookSender>>[1]) => Promise<SendResult>;
  /** Where each try is traced (OpenTelemetry, when the instance has it). */
  tracing?: Tracing;
  /** The pause between looks when there is nothing to send. Default 1 s. */
  intervalMs?: number;
}

/** A dead letter as listed: no body (it may name users), its endpoint by URL. */
export interface DeadLetter {
  id: string;
  endpoint: string;
  type: string;
  attempts: number;
  lastError?: string;
}

/** `auth.features.get('webhooks')`: the dead letters, and a replay. */
export interface WebhooksAdmin {
  dead(): Promise<DeadLetter[]>;
  /** The dead letter back in the outbox, due now; false when there is none of that id. */
  replay(id: string): Promise<boolean>;
  /** An endpoint a 410 disabled, enabled again (by its URL); false when it was not disabled. */
  enable(url: string): Promise<boolean>;
  /** Resolves once every event told so far is in the outbox (a graceful shutdown waits for it; close() does). */
  flushed(): Promise<void>;
}

const DISABLED = 'wh-off';
const FOREVER = 8_640_000_000_000_000;

/** The endpoint as the events and lists name it: origin and path, never a secret a query might carry. */
export const endpointName = (e: WebhookEndpoint) => {
  const u = new URL(e.url);
  return u.origin + u.pathname;
};

export function createWebhooks(config: WebhooksConfig, p: WebhooksParts) {
  const endpoints = new Map(config.endpoints.map((e) => [e.id, e]));
  const outbox = webhookOutbox(p.stateStore, p.clock);
  const worker = deliveryWorker(outbox, endpoints, p);
  const intake = eventIntake(config, outbox, worker, p);
  return {
    admin: webhooksAdmin(config, outbox, worker, p, intake),
    /** One look of the worker now (WebhooksParts.intervalMs long, tests drive it with this). */
    lookNow: () => worker.lookNow(),
    start() {
      p.bus.tap(intake.enqueue);
      worker.start();
    },
    async close() {
      p.bus.untap(intake.enqueue);
      await intake.flushed(); // what was told before the close is kept for the next process
      await worker.stop();
    },
  };
}

/** This process's worker, its outcomes told as the webhooks' events and a 410 recorded for every process. */
function deliveryWorker(outbox: Outbox, endpoints: ReadonlyMap<string, WebhookEndpoint>, p: WebhooksParts): Worker {
  return outboxWorker<WebhookEndpoint>({
    outbox,
    endpoints,
    send: p.send ?? webhookSender(p.clock, p.tracing),
    disabled: async (e) => (await p.stateStore.get(DISABLED, e.id)) !== undefined,
    async disable(e) {
      await p.stateStore.create(DISABLED, e.id, { at: p.clock() }, FOREVER);
      p.emit('webhook_disabled', { endpoint: endpointName(e) });
    },
    failed(e, { message }, reason, dead) {
      const fields = { endpoint: endpointName(e), messageId: message.id, eventType: message.type };
      p.emit('webhook_failed', { ...fields, attempt: message.attempts + 1, reason, dead });
    },
    report: (err) =>
      p.logger.error(`webhooks: a delivery step failed: ${(err as Error)?.message}`, { code: 'webhook_worker_failed' }),
    intervalMs: p.intervalMs ?? 1000,
    concurrency: 16,
  });
}

/** The bus's events into the outbox: each to every endpoint that asked for its type, but the webhooks' own. */
function eventIntake(config: WebhooksConfig, outbox: Outbox, worker: Worker, p: WebhooksParts) {
  const own = new Set<string>(WEBHOOK_EVENTS);
  // The latest addition: the outbox writes batches one after another, so it settles after every earlier one.
  let written: Promise<unknown> = Promise.resolve();
  return {
    /** Starts keeping the event; what it returns, the request that told it waits for (AuthEventBus.tap). */
    enqueue: (event: AuthEvent): Promise<unknown> | undefined => {
      if (own.has(event.type)) return undefined;
      const body = JSON.stringify({ type: event.type, timestamp: new Date(event.time).toISOString(), data: event });
      const messages = config.endpoints
        .filter((e) => e.events === undefined || e.events.has(event.type))
        .map((e) => ({ id: `msg_${randomBytes(16).toString('base64url')}`, endpoint: e.id, type: event.type, body }));
      if (messages.length === 0) return undefined;
      written = outbox.add(messages).then(
        () => worker.kick(),
        (err: unknown) =>
          p.logger.error(`webhooks: an event could not be kept for delivery: ${(err as Error)?.message}`, {
            code: 'webhook_enqueue_failed',
          }),
      );
      return written;
    },
    flushed: () => written.then(() => undefined),
  };
}

/** `auth.features.get('webhooks')`. */
function webhooksAdmin(
  config: WebhooksConfig,
  outbox: Outbox,
  worker: Worker,
  p: WebhooksParts,
  intake: { flushed(): Promise<void> },
): WebhooksAdmin {
  const endpoints = new Map(config.endpoints.map((e) => [e.id, e]));
  return {
    async dead() {
      return (await outbox.dead()).map((m: OutboxMessage) => ({
        id: m.id,
        endpoint: endpoints.has(m.endpoint) ? endpointName(endpoints.get(m.endpoint)!) : m.endpoint,
        type: m.type,
        attempts: m.attempts,
        ...(m.lastError && { lastError: m.lastError }),
      }));
    },
    async replay(id) {
      const back = await outbox.replay(id);
      if (back) worker.kick();
      return back;
    },
    async enable(url) {
      const e = config.endpoints.find((x) => x.url === new URL(url).href);
      if (!e) throw new TypeError(`enable(url): ${url} is not a configured webhook`);
      const was = (await p.stateStore.get(DISABLED, e.id)) !== undefined;
      await p.stateStore.remove(DISABLED, e.id);
      return was;
    },
    flushed: () => intake.flushed(),
  };
}
