/**
 * Logging: without a logger, warnings and errors go to `console.error` (Koa's own convention for
 * errors) and info and debug stay silent; `logger: () => {}` silences it, as the application's
 * choice. Accepts anything with info/warn/error
 * (console, pino, winston) or a single printf-style function, the original's `Logf`. Messages carry
 * fields (the provider, the error code, the user id) beside their text: a pino logger receives them
 * as its merging object (`logger.warn(fields, message)`), other objects as a second argument
 * (`logger.warn(message, fields)`: winston's meta, console's extra), a function only the text.
 */

/** What a message is about, for structured logs. Never a secret, a token or a password. */
export interface LogFields {
  provider?: string;
  /** The error code (ERROR_CODES) answered or met. */
  code?: string;
  status?: number;
  userId?: string;
  [field: string]: unknown;
}

export interface Logger {
  debug?(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** A printf-like function: `(format, ...args)`; the original library's Logger.Func adapter. */
export type LogFunc = (msg: string, ...args: unknown[]) => void;

/** Methods as pino (and bunyan) take them: the fields first, then the message. */
interface FieldsFirst {
  bindings(): unknown;
  child(...args: unknown[]): unknown;
}

export type LoggerInput = Logger | LogFunc | Pick<Console, 'info' | 'warn' | 'error'> | undefined | null;

const noop = () => {};

/** Prints nothing: what an application passes for silence (`logger: () => {}` does the same). */
export const noopLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/** One line on the standard error, `authkoa warn: <message>` (the message's own `authkoa:` dropped). */
const toConsole = (level: string) => (m: string) => {
  console.error(`authkoa ${level}: ${m.replace(/^auth[kK]oa:? /, '')}`);
};

/**
 * The default, as Koa treats errors: warnings and errors on `console.error`, info and debug silent. A
 * request's 5xx does not go here: Koa's `app.emit('error')` prints it (see reportError), once.
 */
export const consoleLogger: Logger = { debug: noop, info: noop, warn: toConsole('warn'), error: toConsole('error') };

/** Wraps a single function: every level calls it with a `[LEVEL] ` prefix; fields are not passed (it formats text). */
export function funcLogger(fn: LogFunc): Logger {
  return {
    debug: (m) => fn(`[DEBUG] ${m}`),
    info: (m) => fn(`[INFO] ${m}`),
    warn: (m) => fn(`[WARN] ${m}`),
    error: (m) => fn(`[ERROR] ${m}`),
  };
}

/** Writes to the process's standard streams, like Go's Std adapter. */
export const stdLogger: Logger = funcLogger((m) => process.stderr.write(`authkoa ${m}\n`));

type Level = 'debug' | 'info' | 'warn' | 'error';
type Method = (...args: unknown[]) => void;

/** True for pino's shape: `bindings()` and `child()` beside the level methods. */
function fieldsFirst(l: object): l is FieldsFirst {
  return typeof (l as FieldsFirst).bindings === 'function' && typeof (l as FieldsFirst).child === 'function';
}

/** Turns any accepted logger input into a Logger; throws a TypeError naming `option` otherwise. */
export function toLogger(input: LoggerInput, option = 'logger'): Logger {
  if (input == null) return consoleLogger;
  if (typeof input === 'function') return funcLogger(input);
  if (
    typeof input === 'object' &&
    typeof input.info === 'function' &&
    typeof input.warn === 'function' &&
    typeof input.error === 'function'
  ) {
    const l = input as unknown as Record<Level, Method | undefined>;
    const pino = fieldsFirst(input);
    // Called as methods of `l`: pino's and winston's need their `this`.
    const level = (name: Level) => (m: string, f?: LogFields) => {
      if (typeof l[name] !== 'function') return;
      if (f === undefined) l[name](m);
      else if (pino) l[name](f, m);
      else l[name](m, f);
    };
    return { debug: level('debug'), info: level('info'), warn: level('warn'), error: level('error') };
  }
  throw new TypeError(`authKoa: ${option} must be a function or an object with info, warn and error methods`);
}

/** The `logger` option as far as it can be read, for saying why the options were refused: else the default. */
export function loggerOf(input: unknown): Logger {
  try {
    return toLogger(input as LoggerInput);
  } catch {
    return consoleLogger;
  }
}
