import { createHash } from 'node:crypto';
import { parseDuration, type Duration } from '../util/duration.js';
import { unknownOption } from '../util/options.js';
import { isVolatileStateOption, requireDurable } from '../util/store-policy.js';
import { secretKey } from './sign.js';

/** One endpoint of the `webhooks` option: where the events go, signed with its secret. */
export interface WebhookEndpointOptions {
  /** An http(s) URL; a private or loopback address only with `allowPrivate`. */
  url: string;
  /** `whsec_` and the base64 of at least 24 random bytes (`authctl webhooks secret`). */
  secret: string;
  /** The event types sent there (docs/events.md), or `['*']` for every one but the webhooks' own. */
  events: string[];
  /** Allow a private, loopback or link-local address (a receiver inside your network). Default false. */
  allowPrivate?: boolean;
  /** One delivery's time limit. Default `10s`. */
  timeout?: Duration;
}

/** An endpoint, checked. `id` names it in the outbox and the events: a hash of its URL, never the secret. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly url: string;
  readonly key: Buffer;
  /** undefined: every event type but the webhooks' own. */
  readonly events: ReadonlySet<string> | undefined;
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
}

export interface WebhooksConfig {
  readonly endpoints: readonly WebhookEndpoint[];
}

/** What the reader needs from the options read before it. */
export interface WebhooksOptionsContext {
  /** `stateStore` as given: the outbox, which must outlive the process. */
  stateStore: unknown;
  allowVolatileStores: boolean;
}

const ENDPOINT_OPTIONS = ['url', 'secret', 'events', 'allowPrivate', 'timeout'];

/** Checks the `webhooks` option (a TypeError naming `webhooks[i].<key>`); undefined when it is not set or empty. */
export function readWebhooksOptions(input: unknown, ctx: WebhooksOptionsContext): WebhooksConfig | undefined {
  if (input === undefined || input === false) return undefined;
  if (!Array.isArray(input))
    throw new TypeError("authKoa: webhooks must be a list: [{ url, secret: 'whsec_…', events: ['login'] }]");
  if (input.length === 0) return undefined;
  // Every event not yet delivered would be gone at the next restart: at least once needs a durable outbox.
  requireDurable(
    { volatile: isVolatileStateOption(ctx.stateStore) },
    'authKoa: stateStore (where webhooks keeps its outbox)',
    'every event not yet delivered',
    ctx.allowVolatileStores,
    'lmdb://<path>, redis:// with persistence, postgres://…, mongodb://…',
  );
  const endpoints = input.map((e, i) => readEndpoint(e, `webhooks[${i}]`));
  const ids = new Set(endpoints.map((e) => e.id));
  if (ids.size !== endpoints.length) throw new TypeError('authKoa: webhooks: each url may be listed once');
  return { endpoints };
}

function readEndpoint(input: unknown, at: string): WebhookEndpoint {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError(`authKoa: ${at} must be an object: { url, secret, events }`);
  for (const key of Object.keys(input))
    if (!ENDPOINT_OPTIONS.includes(key)) throw new TypeError(`authKoa: ${at}: ${unknownOption(key, ENDPOINT_OPTIONS)}`);
  const o = input as Partial<WebhookEndpointOptions>;
  let url: URL | undefined;
  try {
    url = typeof o.url === 'string' ? new URL(o.url) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password)
    throw new TypeError(`authKoa: ${at}.url must be an http(s) URL without credentials`);
  const events = o.events;
  if (!Array.isArray(events) || events.length === 0 || !events.every((t) => typeof t === 'string' && t !== ''))
    throw new TypeError(`authKoa: ${at}.events must be a list of event types, or ['*'] for every one`);
  if (o.allowPrivate !== undefined && typeof o.allowPrivate !== 'boolean')
    throw new TypeError(`authKoa: ${at}.allowPrivate must be a boolean`);
  return {
    id: createHash('sha256').update(url.href).digest('base64url').slice(0, 16),
    url: url.href,
    key: secretKey(o.secret, `${at}.secret`),
    events: events.includes('*') ? undefined : new Set(events),
    allowPrivate: o.allowPrivate === true,
    timeoutMs: parseDuration(o.timeout ?? '10s', `${at}.timeout`),
  };
}
