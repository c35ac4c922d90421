import { createHash } from 'node:crypto';
import { parseDuration, type Duration } from '../util/duration.js';
import { unknownOption } from '../util/options.js';
import { isVolatileStateOption, requireDurable } from '../util/store-policy.js';

/** A receiver the transmitter pushes its Security Event Tokens to (RFC 8935). */
export interface SsfPushReceiverOptions {
  /** The receiver's name: the `aud` of its SETs and of its stream. */
  id: string;
  /** The shared bearer secret: it calls the stream route with it, and each push carries it. 32 characters or more. */
  credential: string;
  /** The receiver's URL (http or https) each SET is POSTed to. */
  push: string;
  /** Allow a private, loopback or link-local address (a receiver inside your network). Default false. */
  allowPrivate?: boolean;
  /** One push's time limit. Default `10s`. */
  timeout?: Duration;
}

/** A receiver that polls the transmitter for its Security Event Tokens (RFC 8936). */
export interface SsfPollReceiverOptions {
  id: string;
  credential: string;
  poll: true;
}

/** One receiver of the `ssf` option. */
export type SsfReceiverOptions = SsfPushReceiverOptions | SsfPollReceiverOptions;

/** The `ssf` option: the Shared Signals transmitter (docs/ssf.md). Needs `signing` and a durable state store. */
export interface SsfOptions {
  receivers: SsfReceiverOptions[];
}

/** A receiver, checked. `key` names it in the state store and is its stream's id: a hash of its `id`. */
export interface SsfReceiver {
  readonly id: string;
  readonly key: string;
  readonly credential: string;
  /** Where SETs are pushed; undefined for a poll receiver. */
  readonly push: string | undefined;
  readonly allowPrivate: boolean;
  readonly timeoutMs: number;
}

export interface SsfConfig {
  readonly receivers: readonly SsfReceiver[];
}

/** What the reader needs from the options read before it. */
export interface SsfOptionsContext {
  /** `stateStore` as given: the outbox and the poll queues, which must outlive the process. */
  stateStore: unknown;
  allowVolatileStores: boolean;
  /** Whether the `signing` option is set: SETs are signed with its key. */
  signing: boolean;
}

const RECEIVER_OPTIONS = ['id', 'credential', 'push', 'poll', 'allowPrivate', 'timeout'];
/** RFC 6750 §2.1 b64token: what an Authorization: Bearer header can carry. */
const BEARER = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Checks the `ssf` option (a TypeError naming `ssf.receivers[i].<field>`); undefined when it is not set. */
export function readSsfOptions(input: unknown, ctx: SsfOptionsContext): SsfConfig | undefined {
  if (input === undefined || input === false) return undefined;
  if (typeof input !== 'object' || input === null) throw new TypeError('authKoa: ssf must be an object');
  const o: { receivers?: unknown } = input;
  if (!Array.isArray(o.receivers))
    throw new TypeError("authKoa: ssf must be { receivers: [{ id, credential, push: 'https://…' }] }");
  for (const key of Object.keys(o))
    if (key !== 'receivers') throw new TypeError(`authKoa: ssf: ${unknownOption(key, ['receivers'])}`);
  if (!ctx.signing)
    throw new TypeError(
      "authKoa: ssf needs the signing option: Security Event Tokens are signed with the service's signing key " +
        'and verified against its key set (docs/ssf.md)',
    );
  requireDurable(
    { volatile: isVolatileStateOption(ctx.stateStore) },
    'authKoa: stateStore (where ssf keeps the events not yet delivered or acknowledged)',
    'every event not yet delivered',
    ctx.allowVolatileStores,
    'lmdb://<path>, redis:// with persistence, postgres://…, mongodb://…',
  );
  const receivers = o.receivers.map((r, i) => readReceiver(r, `ssf.receivers[${i}]`));
  const ids = new Set(receivers.map((r) => r.id));
  if (ids.size !== receivers.length) throw new TypeError('authKoa: ssf.receivers: each id may be listed once');
  // The credential is how a request names its receiver: two receivers of one credential could read each other's.
  if (new Set(receivers.map((r) => r.credential)).size !== receivers.length)
    throw new TypeError('authKoa: ssf.receivers: each receiver needs a credential of its own');
  return receivers.length > 0 ? { receivers } : undefined;
}

function readReceiver(input: unknown, at: string): SsfReceiver {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError(`authKoa: ${at} must be an object: { id, credential, push } or { id, credential, poll: true }`);
  for (const key of Object.keys(input))
    if (!RECEIVER_OPTIONS.includes(key)) throw new TypeError(`authKoa: ${at}: ${unknownOption(key, RECEIVER_OPTIONS)}`);
  const o = input as Partial<SsfPushReceiverOptions & { poll: unknown }>;
  if (typeof o.id !== 'string' || o.id === '' || o.id.length > 256)
    throw new TypeError(`authKoa: ${at}.id must be a non-empty string (the receiver's name, its SETs' aud)`);
  if (typeof o.credential !== 'string' || o.credential.length < 32 || !BEARER.test(o.credential))
    throw new TypeError(
      `authKoa: ${at}.credential must be a bearer secret of 32 characters or more (letters, digits, -._~+/)`,
    );
  if ((o.push === undefined) === (o.poll === undefined))
    throw new TypeError(`authKoa: ${at} needs one of push: '<receiver URL>' or poll: true`);
  if (o.poll !== undefined && o.poll !== true) throw new TypeError(`authKoa: ${at}.poll must be true`);
  if (o.allowPrivate !== undefined && typeof o.allowPrivate !== 'boolean')
    throw new TypeError(`authKoa: ${at}.allowPrivate must be a boolean`);
  if (o.poll === true && (o.allowPrivate !== undefined || o.timeout !== undefined))
    throw new TypeError(`authKoa: ${at}: allowPrivate and timeout are for a push receiver`);
  return {
    id: o.id,
    key: createHash('sha256').update(o.id).digest('base64url').slice(0, 22),
    credential: o.credential,
    push: o.push === undefined ? undefined : pushUrl(o.push, `${at}.push`),
    allowPrivate: o.allowPrivate === true,
    timeoutMs: parseDuration(o.timeout ?? '10s', `authKoa: ${at}.timeout`),
  };
}

function pushUrl(input: unknown, at: string): string {
  const url = typeof input === 'string' && URL.canParse(input) ? new URL(input) : undefined;
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password || url.hash)
    throw new TypeError(`authKoa: ${at} must be an http(s) URL without credentials or fragment`);
  return url.href;
}
