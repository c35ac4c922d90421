import type { VerifyKey } from '../session/jws.js';
import { parseDuration, type Duration } from '../util/duration.js';
import { Poller } from './poller.js';
import { SignalReceiver, type SignalEvents } from './signals.js';

/**
 * The `events` option of verifier(): the verifier as a Shared Signals receiver of the app (docs/verify.md), its
 * options checked, and its parts (the receiver, the poller or the push path, the listeners) made and started.
 */

/** Revocations from the app: polled from its poll endpoint, or pushed to a path of this service. */
export interface VerifierEventsOptions {
  /** Poll: the app's poll endpoint (`<url>/auth/ssf/poll`, its stream's `delivery.endpoint_url`). */
  poll?: string | URL;
  /** Push: the path of this service the app POSTs SETs to (`/ssf/events`); the verifier's middleware answers it. */
  push?: string;
  /** The credential of this service's entry in the app's `ssf.receivers`. */
  credential: string;
  /** Its `id` there: the SETs' `aud`. Default: the only one of `audiences`. */
  audience?: string;
  /** How often the app is polled. Default `2s`: a revoked session's token is refused within about that. */
  interval?: Duration;
  /** The deadline of one poll. Default `5s`. */
  timeout?: Duration;
  /** The app's `tokenDuration`: how long a revocation is kept (its tokens are expired by then). Default `15m`. */
  tokenLifetime?: Duration;
}

/** Where the verifier's warnings go (an outage of the app's events). Default: `console.error`. */
export interface VerifierLogger {
  warn(message: string): void;
  info?(message: string): void;
}

export type VerifierEventType = keyof SignalEvents;
/** An event of the verifier (Verifier.on): its type, when (the verifier's clock), and its fields. */
export type VerifierEvent<T extends VerifierEventType = VerifierEventType> = SignalEvents[T] & {
  type: T;
  time: number;
};
export type VerifierListener<T extends VerifierEventType> = (event: VerifierEvent<T>) => void;

/** The option checked. */
export interface EventsConfig {
  poll: string | undefined;
  push: string | undefined;
  credential: string;
  audience: string;
  intervalMs: number;
  timeoutMs: number;
  lifetimeMs: number;
}

const NAMES = ['poll', 'push', 'credential', 'audience', 'interval', 'timeout', 'tokenLifetime'];
export const EVENT_TYPES: readonly VerifierEventType[] = ['signal', 'unavailable', 'restored'];

/** Checks `events` (TypeErrors naming `<caller>: events.<field>`, verifier by default); undefined when not given. */
export function checkEvents(
  input: unknown,
  audiences: string[] | undefined,
  caller = 'verifier',
): EventsConfig | undefined {
  if (input === undefined) return undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw new TypeError(
      `${caller}: events must be { poll: '<url>', credential } or { push: '/ssf/events', credential }`,
    );
  for (const k of Object.keys(input))
    if (!NAMES.includes(k)) throw new TypeError(`${caller}: unknown option "events.${k}" (known: ${NAMES.join(', ')})`);
  const o = input as Partial<VerifierEventsOptions>;
  if ((o.poll === undefined) === (o.push === undefined))
    throw new TypeError(`${caller}: events needs one of poll (the app’s poll URL) or push (a path of this service)`);
  const poll = o.poll === undefined ? undefined : String(o.poll);
  if (poll !== undefined && !/^https?:$/.test(URL.canParse(poll) ? new URL(poll).protocol : ''))
    throw new TypeError(`${caller}: events.poll must be an http(s) URL (got ${JSON.stringify(poll)})`);
  if (o.push !== undefined && (typeof o.push !== 'string' || !/^\/[^?#\s]*$/.test(o.push)))
    throw new TypeError(`${caller}: events.push must be a path of this service such as '/ssf/events'`);
  if (typeof o.credential !== 'string' || o.credential.length < 32)
    throw new TypeError(`${caller}: events.credential must be the receiver's credential (32 characters or more)`);
  const audience = o.audience ?? (audiences?.length === 1 ? audiences[0] : undefined);
  if (typeof audience !== 'string' || audience === '')
    throw new TypeError(`${caller}: events.audience must be this service's receiver id in the app's ssf.receivers`);
  return {
    poll: poll === undefined ? undefined : new URL(poll).href,
    push: o.push,
    credential: o.credential,
    audience,
    intervalMs: parseDuration(o.interval ?? '2s', `${caller}: events.interval`),
    timeoutMs: parseDuration(o.timeout ?? '5s', `${caller}: events.timeout`),
    lifetimeMs: parseDuration(o.tokenLifetime ?? '15m', `${caller}: events.tokenLifetime`),
  };
}

/** A verifier's receiver at work: what verify() asks, the push path, the listeners, and its start and close. */
export interface Signals {
  receiver: SignalReceiver;
  poller: Poller | undefined;
  /** The path the middleware answers POSTs on (push), or undefined. */
  push: string | undefined;
  on<T extends VerifierEventType>(type: T, listener: VerifierListener<T>): void;
  off<T extends VerifierEventType>(type: T, listener: VerifierListener<T>): void;
  close(): Promise<void>;
}

/** Makes and starts the receiver (a poller's first poll at once). */
export function startSignals(
  c: EventsConfig,
  p: { issuers: readonly string[]; clock: () => number; keys: (kid: string) => Promise<VerifyKey | undefined> },
  logger: VerifierLogger,
): Signals {
  const listeners = new Map<VerifierEventType, Set<(e: never) => void>>();
  const emit = <T extends VerifierEventType>(type: T, fields: SignalEvents[T]) => {
    const event = Object.freeze({ type, time: p.clock(), ...fields });
    for (const listener of listeners.get(type) ?? []) {
      try {
        (listener as (e: typeof event) => void)(event);
      } catch (err) {
        logger.warn(`authkoa/verify: a "${type}" listener failed: ${(err as Error)?.message}`);
      }
    }
  };
  const receiver = new SignalReceiver({ ...p, ...c, emit });
  const poller =
    c.poll === undefined
      ? undefined
      : new Poller({
          url: c.poll,
          credential: c.credential,
          intervalMs: c.intervalMs,
          timeoutMs: c.timeoutMs,
          clock: p.clock,
          receiver,
          warn: (m) => logger.warn(m),
          info: (m) => logger.info?.(m),
        });
  poller?.start();
  return {
    receiver,
    poller,
    push: c.push,
    on(type, listener) {
      if (!EVENT_TYPES.includes(type))
        throw new TypeError(`verifier.on(): unknown event type ${JSON.stringify(type)} (${EVENT_TYPES.join(', ')})`);
      if (typeof listener !== 'function')
        throw new TypeError('verifier.on(type, listener): listener must be a function');
      let set = listeners.get(type);
      if (!set) listeners.set(type, (set = new Set()));
      set.add(listener);
    },
    off(type, listener) {
      listeners.get(type)?.delete(listener);
    },
    close: async () => poller?.stop(),
  };
}

/** What a verifier's or a protected resource's `events` shows: a poll now (tests, a health check), and its state. */
/** What verifier() and protectedResource() both offer of their receiver: its events, its state, its end. */
export interface ReceiverHandle {
  /** Hears the receiver's events (`signal`, `unavailable`, `restored`); one without `events` has none. */
  on<T extends VerifierEventType>(type: T, listener: VerifierListener<T>): void;
  off<T extends VerifierEventType>(type: T, listener: VerifierListener<T>): void;
  /** The receiver's state: a poll now (tests, a health check), revocations held, whether the app is reachable. */
  readonly events: ReceiverView | undefined;
  /** Stops polling the app (the timer never keeps the process alive either). */
  close(): Promise<void>;
}

export interface ReceiverView {
  /** One poll now, after the one under way: true when the app said more wait (false for a pushed receiver). */
  poll(): Promise<boolean>;
  /** The revocations held. */
  readonly revoked: number;
  /** Whether the app answers polls (always true for a pushed receiver). */
  readonly reachable: boolean;
}

/** The view of a started receiver. */
export function receiverView(s: Signals): ReceiverView {
  return {
    poll: () => (s.poller ? s.poller.poll() : Promise.resolve(false)),
    get revoked() {
      return s.receiver.revoked.size;
    },
    get reachable() {
      return s.poller?.reachable ?? true;
    },
  };
}
