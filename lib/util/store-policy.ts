/**
 * What an instance does about the stores it is configured with, beyond opening them: how long start-up
 * waits for each (`storeCheckTimeout`), whether one that cannot be reached stops start-up or is only
 * reported (`startWithStoresDown`), and whether a store that forgets everything when the process ends
 * may hold durable data (`allowVolatileStores`). One policy belongs to one instance.
 */
export interface StorePolicy {
  /** How long start-up waits for each configured store to answer, in ms. */
  readonly checkTimeoutMs: number;
  /** A store that cannot be reached at start-up is reported (report()) instead of rejecting `auth.ready`. */
  readonly startWithStoresDown: boolean;
  /** A volatile store (memory) may hold durable data: second factors, passkeys. */
  readonly allowVolatileStores: boolean;
  /**
   * Where a store failure met outside any request goes when the app chose to start anyway: the logger
   * now, and Koa's `app.emit('error')` with the next request (the first place the app can be reached).
   */
  report(err: Error, code: string): void;
  /**
   * Where the stores under this policy are configured, before the option in messages:
   * `providers[1] (passkey): ` for a provider's own.
   */
  readonly place?: string;
}

/** What a store opened alone (no instance around it) checks with: a failure rejects. */
export const STRICT_STORES: StorePolicy = {
  checkTimeoutMs: 3000,
  startWithStoresDown: false,
  allowVolatileStores: false,
  report() {},
};

/** Why a store could not be opened: its option, its URI (password redacted) and the cause, or the bound run out. */
export class StoreUnreachableError extends Error {
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
    this.name = 'StoreUnreachableError';
    // One line when printed, as MissingPackageError: the frames would only show the start-up check;
    // the cause keeps its own.
    this.stack = `${this.name}: ${this.message}`;
  }
}

const TIMED_OUT = Symbol('timed out');

/**
 * Waits for `opening` at most `policy.checkTimeoutMs`. Resolves once it is open; rejects with what it
 * rejected with when that is a configuration error (`isFatal`), else with a StoreUnreachableError
 * naming `option` and `uri` (redacted here), unless `policy.startWithStoresDown`: then the error is
 * reported and start-up goes on (the store is opened again on first use).
 */
export async function checkStoreOpens(
  opening: Promise<unknown>,
  where: { option: string; uri: string; code: string; local: boolean },
  policy: StorePolicy,
  isFatal: (err: unknown) => boolean,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(resolve, policy.checkTimeoutMs, TIMED_OUT);
  });
  let cause: unknown = TIMED_OUT;
  try {
    if ((await Promise.race([opening, bound])) !== TIMED_OUT) return;
  } catch (err) {
    if (isFatal(err)) throw err;
    cause = err;
  } finally {
    clearTimeout(timer);
  }
  // A late open that settles after the bound is still the store's: on failure it is tried again on first use.
  opening.catch(() => undefined);
  const store = `${policy.place ?? ''}${where.option} ${redactUri(where.uri)}`;
  // A path is opened, a server connected to. "within" only for the bound running out: a refusal met after
  // 150 ms is said as what it was.
  const what = cause === TIMED_OUT ? `no answer within ${policy.checkTimeoutMs} ms` : reason(cause);
  const message = `authKoa: ${store}: cannot ${where.local ? 'open' : 'connect'}: ${what}`;
  const failure = new StoreUnreachableError(message, { cause: cause === TIMED_OUT ? 'no answer' : cause });
  if (!policy.startWithStoresDown) throw failure;
  policy.report(failure, where.code);
}

/** System error codes a store open meets, in words; the code follows them, for a search. */
const IN_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'timed out',
  EACCES: 'permission denied',
  ENOENT: 'no such file or folder',
  ENOTDIR: 'not a directory',
};

/**
 * The shortest true account of a failure: a system error's code from its cause chain, in words
 * (`connection refused (ECONNREFUSED)`), else its innermost message.
 */
function reason(cause: unknown): string {
  let cur = cause;
  let message = typeof cause === 'string' ? cause : String((cause as Error)?.message ?? cause);
  for (let depth = 0; depth < 8 && cur && typeof cur === 'object'; depth++) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code))
      return Object.hasOwn(IN_WORDS, code) ? `${IN_WORDS[code]} (${code})` : code;
    if (typeof (cur as Error).message === 'string' && (cur as Error).message) message = (cur as Error).message;
    cur = (cur as Error).cause;
  }
  return message;
}

/** A store URI with any password replaced by `***`; a plain path as it is. */
export function redactUri(uri: string): string {
  try {
    const url = new URL(uri);
    if (url.password) url.password = '***';
    return url.href;
  } catch {
    return uri;
  }
}

/**
 * Refuses a volatile store for durable data (TypeError naming `option`) unless `allowed` (allowVolatileStores):
 * a restart would lose every user's second factor or passkey without a word. `durable` lists what the option
 * takes instead.
 */
export function requireDurable(
  store: { readonly volatile?: boolean },
  option: string,
  what: string,
  allowed: boolean,
  durable = 'lmdb://<path>, postgres://…, redis:// with persistence, mongodb://…',
): void {
  if (store.volatile !== true || allowed) return;
  throw new TypeError(
    `${option} is a memory store, which forgets ${what} when the process ends: ` +
      `use a durable store (${durable}), or set allowVolatileStores: true (tests, demos)`,
  );
}

/** The `stateStore` option as given is a memory store: unset (the default), `memory`, `memory://`, or volatile. */
export function isVolatileStateOption(stateStore: unknown): boolean {
  if (stateStore === undefined || stateStore === 'memory') return true;
  if (typeof stateStore === 'string') return stateStore.startsWith('memory:');
  return (
    typeof stateStore === 'object' && stateStore !== null && 'volatile' in stateStore && stateStore.volatile === true
  );
}

/**
 * The policy of an instance from its options: a store failure it starts with is logged at once and
 * handed to `pending`, which emits it on the Koa app with the next request.
 */
export function storePolicy(
  o: {
    storeCheckTimeoutMs: number;
    startWithStoresDown: boolean;
    allowVolatileStores: boolean;
    logger: { error(msg: string, fields?: Record<string, unknown>): void };
  },
  pending: { add(err: Error): void },
): StorePolicy {
  return {
    checkTimeoutMs: o.storeCheckTimeoutMs,
    startWithStoresDown: o.startWithStoresDown,
    allowVolatileStores: o.allowVolatileStores,
    report(err, code) {
      o.logger.error(`${err.message}; started anyway (startWithStoresDown), tried again on first use`, { code });
      pending.add(err);
    },
  };
}
