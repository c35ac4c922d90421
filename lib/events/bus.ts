import type { Context } from 'koa';
import { closest } from '../util/options.js';
import {
  AUTH_EVENT_TYPES,
  type AnyAuthEventListener,
  type AuthEventListener,
  type AuthEventMap,
  type AuthEventType,
} from './types.js';

/** Where a listener's failure goes: Koa's `app.emit('error', err, ctx)` when the event came from a request. */
export type ReportListenerError = (err: Error, ctx: Context | undefined) => void;

type AnyListener = (event: never) => unknown;

/** A tap (AuthEventBus.tap): what it returns, the request of the event waits for. */
export type EventTap = (event: AuthEventMap[AuthEventType]) => Promise<unknown> | undefined;

/** What an emitter gives: the event without `type` and `time`, which the bus adds. */
export type EventFields<T extends AuthEventType> = Omit<AuthEventMap[T], 'type' | 'time'>;

/** The part of the bus the emitting modules see (sessions, providers, throttles, the second factor). */
export interface EventSink {
  has(type: AuthEventType): boolean;
  emit<T extends AuthEventType>(type: T, fields: EventFields<T>, ctx?: Context): void;
}

/** A sink that hears nothing: for modules built without an instance (the CLI, tests of one module). */
export const noEvents: EventSink = { has: () => false, emit: () => {} };

/** Where a request came from, as an event names it. */
export function clientOf(ctx: Context): { ip: string; userAgent: string } {
  return { ip: ipOf(ctx), userAgent: (ctx.get('user-agent') || '').slice(0, 256) };
}

/**
 * `ctx.ip`, or '' once the connection is gone: Koa reads the socket's address, and a request whose body
 * was cut off (too large, aborted) may have no socket left when its refusal is told.
 */
function ipOf(ctx: Context): string {
  try {
    return ctx.ip;
  } catch {
    return '';
  }
}

/**
 * The instance's event stream. Listeners run after the answer is on its way: emit() only queues them
 * (setImmediate), so a listener never delays a response, and one that throws or rejects is reported,
 * never thrown into the request. A listener still running after `slowMs` is reported too, once; it
 * is left to finish. Events are built only when someone listens (`has(type)`), so an instance without
 * listeners pays one Map lookup per event.
 */
export class AuthEventBus implements EventSink {
  readonly #listeners = new Map<AuthEventType, Set<AnyListener>>();
  readonly #report: ReportListenerError;
  readonly #slowMs: number;
  readonly #clock: () => number;
  /** Every type on() takes: authkoa's own and those the features declare. */
  readonly #types: string[];
  /** Listeners of every type (the audit sink, `on('*')`), those declared later included. */
  readonly #every = new Set<AnyListener>();
  /** Taps: every event, in the step that emits it (the webhooks' outbox). */
  readonly #taps = new Set<EventTap>();
  /** What a request's taps are still doing, by the request: its answer waits for it (settled). */
  readonly #held = new WeakMap<object, Array<Promise<unknown>>>();

  constructor(report: ReportListenerError, slowMs: number, clock: () => number, featureTypes: readonly string[] = []) {
    this.#report = report;
    this.#slowMs = slowMs;
    this.#clock = clock;
    this.#types = [...AUTH_EVENT_TYPES, ...featureTypes];
  }

  /** Takes the event types of features known once the bus exists (the built-in ones, by core/features.ts). */
  declare(types: readonly string[]): void {
    for (const type of types) if (!this.#types.includes(type)) this.#types.push(type);
  }

  /** The types on() takes, in order: authkoa's own, then the features'. */
  types(): readonly string[] {
    return [...this.#types];
  }

  /** Hears every event, of every type declared now or later: what the audit sink writes. */
  onEvery(listener: (event: AuthEventMap[AuthEventType]) => unknown): void {
    this.#every.add(listener);
  }

  offEvery(listener: (event: AuthEventMap[AuthEventType]) => unknown): void {
    this.#every.delete(listener);
  }

  /**
   * Hears every event synchronously, in the step that emits it, for a sink that must keep the event before the
   * request that made it answers (the webhooks' outbox). What it returns for an event of a request, that request's
   * answer waits for (settled()); it must not reject, nor take long.
   */
  tap(listener: EventTap): void {
    this.#taps.add(listener);
  }

  untap(listener: EventTap): void {
    this.#taps.delete(listener);
  }

  /** What the taps still do for the events of this request (undefined: nothing): the auth routes wait for it. */
  settled(ctx: Context): Promise<unknown> | undefined {
    const held = this.#taps.size > 0 ? this.#held.get(ctx.req) : undefined;
    if (!held) return undefined;
    this.#held.delete(ctx.req);
    return Promise.all(held);
  }

  /** `'*'`: every event, of every type declared now or later (as onEvery), each carrying its `type`. */
  on<T extends AuthEventType>(type: T, listener: AuthEventListener<T>): void;
  on(type: '*', listener: AnyAuthEventListener): void;
  on(type: AuthEventType | '*', listener: AnyListener): void {
    if (type !== '*') checkType('on', type, this.#types);
    if (typeof listener !== 'function')
      throw new TypeError(`auth.on("${type}", listener): listener must be a function`);
    if (type === '*') {
      this.#every.add(listener);
      return;
    }
    let set = this.#listeners.get(type);
    if (!set) this.#listeners.set(type, (set = new Set()));
    set.add(listener);
  }

  off<T extends AuthEventType>(type: T, listener: AuthEventListener<T>): void;
  off(type: '*', listener: AnyAuthEventListener): void;
  off(type: AuthEventType | '*', listener: AnyListener): void {
    if (type === '*') {
      this.#every.delete(listener);
      return;
    }
    checkType('off', type, this.#types);
    const set = this.#listeners.get(type);
    set?.delete(listener);
    if (set?.size === 0) this.#listeners.delete(type);
  }

  /** Whether anyone listens to `type`: emitters skip building an event nobody reads. */
  has(type: AuthEventType): boolean {
    return this.#every.size > 0 || this.#taps.size > 0 || this.#listeners.has(type);
  }

  /** Queues the listeners of `type` with the event; `ctx` is the request it came from, for reporting. */
  emit<T extends AuthEventType>(type: T, fields: EventFields<T>, ctx?: Context): void {
    const set = this.#listeners.get(type);
    if (!set && this.#every.size === 0 && this.#taps.size === 0) return;
    // A copy: a listener that calls off() does not change who hears this event.
    const listeners: AnyListener[] = [...this.#every, ...(set ?? [])];
    // One frozen object for every listener: none can change what the next one sees.
    const event = Object.freeze({ type, time: this.#clock(), ...fields });
    if (this.#taps.size > 0) this.#tapped(event as unknown as AuthEventMap[AuthEventType], ctx);
    if (listeners.length === 0) return;
    setImmediate(() => {
      for (const listener of listeners) this.#call(type, listener, event, ctx);
    });
  }

  #tapped(event: AuthEventMap[AuthEventType], ctx: Context | undefined): void {
    for (const tap of this.#taps) {
      let kept: Promise<unknown> | undefined;
      try {
        kept = tap(event);
      } catch (err) {
        this.#report(asError(err, event.type), ctx);
      }
      if (!kept || !ctx) continue;
      const held = this.#held.get(ctx.req);
      if (held) held.push(kept);
      else this.#held.set(ctx.req, [kept]);
    }
  }

  #call(type: AuthEventType, listener: AnyListener, event: unknown, ctx: Context | undefined): void {
    const fail = (err: unknown) => this.#report(asError(err, type), ctx);
    let result: unknown;
    try {
      result = (listener as (e: unknown) => unknown)(event);
    } catch (err) {
      fail(err);
      return;
    }
    if (!isThenable(result)) return;
    let settled = false;
    const timer = setTimeout(() => {
      if (!settled)
        this.#report(new Error(`authkoa: a "${type}" event listener is still running after ${this.#slowMs} ms`), ctx);
    }, this.#slowMs);
    timer.unref();
    Promise.resolve(result).then(
      () => {
        settled = true;
        clearTimeout(timer);
      },
      (err: unknown) => {
        settled = true;
        clearTimeout(timer);
        fail(err);
      },
    );
  }
}

function checkType(call: string, type: unknown, types: readonly string[]): asserts type is AuthEventType {
  if (typeof type === 'string' && types.includes(type)) return;
  const guess = typeof type === 'string' ? closest(type, types) : undefined;
  const hint = guess ? ` (did you mean "${guess}"?)` : '';
  throw new TypeError(
    `auth.${call}(): unknown event type ${JSON.stringify(type)}${hint}; the types are ${types.join(', ')}`,
  );
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function asError(err: unknown, type: AuthEventType): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  // Koa's default error handler prints err.message; say where it came from.
  if (!e.message.startsWith('authkoa:')) e.message = `authkoa: a "${type}" event listener failed: ${e.message}`;
  return e;
}
