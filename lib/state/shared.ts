import { noTracing, type Tracing } from '../telemetry/types.js';
import { AuthError } from '../errors.js';
import type { ConnectionShare } from '../util/connections.js';
import { lazyResource } from '../util/lazy.js';
import { checkStoreOpens, STRICT_STORES, type StorePolicy } from '../util/store-policy.js';
import { MissingPackageError } from '../util/optional.js';
import { rejected } from '../util/promised.js';
import { openStateTarget, parseStateUri } from './open.js';
import { stateSchemes } from './schemes.js';
import { hitIn, stateLimiter, type Limiter } from './limiter.js';
import { BROADCAST_KINDS, sharedBroadcast } from './shared-broadcast.js';
import { isStateStore, type StateStore, type StateTarget } from './types.js';

/**
 * A state store as the service and its providers hold it: opened at start-up (or on first use when the
 * server was away then), and answering every failure of the backend with one error a route can send,
 * `503 state_store_unavailable`, with the cause attached for the log.
 */
export interface SharedState {
  /** The store; its calls reject with AuthError 503 when the backend fails (argument errors stay TypeErrors). */
  readonly store: StateStore;
  /** Rate limits counted in this store, so every process sharing it shares the counts. */
  readonly limiter: Limiter;
  /**
   * Loads the backend and opens it, waiting at most the policy's `checkTimeoutMs`. A missing package or
   * a refused password/database rejects (a start-up error); so does a server that cannot be reached in
   * time, naming the option and the URI, unless the policy starts with stores down: then it is reported
   * and tried again on first use.
   */
  start(): Promise<void>;
  /** Closes the store when it was opened from a URI; an object passed in belongs to its owner. */
  close(): Promise<void>;
}

export interface SharedStateOptions {
  clock: () => number;
  /** The option being served, for messages: `stateStore`, `providers[2].stateStore`. */
  option: string;
  /** The instance's connections: stores on one database URI share one pool. */
  connections?: ConnectionShare;
  /** Where operation durations and failures are recorded (OpenTelemetry, when the instance has it). */
  tracing?: Tracing;
  /** The instance's store policy: the start-up bound, and whether a store that is down stops start-up. */
  policy?: StorePolicy;
}

/**
 * A SharedState for `source`: a parsed URI (`memory://`, `lmdb://…`, `redis://…`, `mongodb://…`, a
 * registered scheme; see parseStateUri) or a StateStore, which is used as it is.
 */
export function sharedState(source: StateTarget | StateStore, opts: SharedStateOptions): SharedState {
  const { clock, option, connections } = opts;
  const tracing = opts.tracing ?? noTracing;
  const given = stateSchemes.source(source, option);
  const target = isStateStore(given) ? undefined : given;
  const opened = lazyResource(
    async () => (target ? openStateTarget(target, { clock, connections }, option) : (given as StateStore)),
    {
      owned: target !== undefined,
      final: true,
      what: 'state store',
    },
  );
  let current: StateStore | undefined;
  const close = () => {
    current = undefined;
    return opened.close();
  };
  /**
   * Runs one store call; a backend failure becomes the 503 every route answers alike, carrying the
   * cause, which the service logs when it answers (redacted by the store: no password in it).
   */
  function guarded<T>(operation: string, call: (s: StateStore) => Promise<T>): Promise<T> {
    if (tracing.on) return timed(tracing, operation, option, () => untimed(call));
    return untimed(call);
  }

  function untimed<T>(call: (s: StateStore) => Promise<T>): Promise<T> {
    // Once open, the store's own promise is passed on with only the error mapping: the basic-auth path
    // reads the store on every request, and each extra await there showed in the bench.
    let pending: Promise<T>;
    try {
      pending = current ? call(current) : opened.get().then((s) => call((current = s)));
    } catch (err) {
      pending = rejected(err);
    }
    return pending.catch(unavailable);
  }

  const store: StateStore = {
    create: (ns, key, value, exp) => guarded('create', (s) => s.create(ns, key, value, exp)),
    get: (ns, key) => guarded('get', (s) => s.get(ns, key)),
    replace: (ns, key, rev, value, exp) => guarded('replace', (s) => s.replace(ns, key, rev, value, exp)),
    take: (ns, key, rev) => guarded('take', (s) => s.take(ns, key, rev)),
    remove: (ns, key) => guarded('remove', (s) => s.remove(ns, key)),
    sweep: () => guarded('sweep', (s) => s.sweep()),
    markUsed: (id, exp) => guarded('markUsed', (s) => s.markUsed(id, exp)),
    hit: (ns, keys, windowMs) => guarded('hit', (s) => hitIn(s, ns, keys, windowMs, clock)),
    close,
    // A memory store (by URI or the object's own word) forgets everything when the process ends.
    volatile: target ? target.kind === 'memory' : (given as StateStore).volatile === true,
    broadcast: (target ? BROADCAST_KINDS.has(target.kind) : (given as StateStore).broadcast)
      ? sharedBroadcast(
          () => (current ? Promise.resolve(current) : opened.get().then((s) => (current = s))),
          unavailable,
        )
      : undefined,
  };

  return {
    store,
    limiter: stateLimiter(store, clock),
    async start() {
      if (!target) return;
      // Loading the backend's code (a missing package rejects here) is not the store answering: outside the bound.
      await stateSchemes.loadFor(target, option);
      const where = { option, uri: target.uri, code: 'state_store_unavailable', local: target.path !== undefined };
      const fatal = (err: unknown) => err instanceof TypeError || err instanceof MissingPackageError;
      await checkStoreOpens(opened.get(), where, opts.policy ?? STRICT_STORES, fatal);
    },
    close,
  };
}

/** guarded()'s traced path, apart as it needs only the call: a span, its duration and outcome recorded. */
function timed<T>(tracing: Tracing, operation: string, option: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  return tracing
    .span(`authkoa.state_store.${operation}`, { 'db.operation.name': operation, 'authkoa.state_store': option }, run)
    .then(
      (value) => {
        tracing.storeOperation(operation, performance.now() - started, false);
        return value;
      },
      (err: unknown) => {
        // A TypeError is the caller's mistake, not the store's: not counted as a store failure.
        tracing.storeOperation(operation, performance.now() - started, !(err instanceof TypeError));
        throw err;
      },
    );
}

/** A backend failure as every route answers it; argument errors (TypeErrors) and AuthErrors pass unchanged. */
function unavailable(err: unknown): never {
  if (err instanceof TypeError || err instanceof AuthError) throw err;
  throw new AuthError('state_store_unavailable', 'login state is unavailable', { cause: err });
}

/**
 * A provider's own store option (Telegram's `stateStore`, a passkey provider's `credentials`): checked
 * now, with a TypeError naming `option` (the registry adds the provider entry), opened by start(), closed
 * with the provider. Without one, the service's store, which the provider neither starts nor closes.
 */
export function providerState(
  source: string | StateStore | undefined,
  service: StateStore,
  opts: SharedStateOptions,
): Pick<SharedState, 'store' | 'start' | 'close'> {
  if (source === undefined) return { store: service, start: async () => {}, close: async () => {} };
  if (typeof source !== 'string') {
    if (!isStateStore(source))
      throw new TypeError(
        `${opts.option} must be a state store URI (memory://, lmdb://<path>, redis://…, mongodb://…, ` +
          `postgres://…) or a StateStore object`,
      );
    return sharedState(source, opts);
  }
  let target: StateTarget;
  try {
    target = parseStateUri(source, opts.option);
  } catch (err) {
    throw new TypeError((err as Error).message.replace(/^authKoa: /, ''));
  }
  return sharedState(target, opts);
}
