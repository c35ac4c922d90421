/**
 * Logging: silent unless the application hands one in. Accepts anything with info/warn/error
 * (console, pino, winston) or a single printf-style function, the original's `Logf`.
 */
export interface Logger {
  debug?(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/** A printf-like function: `(format, ...args)`; the original library's Logger.Func adapter. */
export type LogFunc = (msg: string, ...args: unknown[]) => void;

export type LoggerInput = Logger | LogFunc | Pick<Console, 'info' | 'warn' | 'error'> | undefined | null;

const noop = () => {};

/** The default: prints nothing. */
export const noopLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/** Wraps a single function: every level calls it with a `[LEVEL] ` prefix. */
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

/** Turns any accepted logger input into a Logger; throws a TypeError naming `option` otherwise. */
export function toLogger(input: LoggerInput, option = 'logger'): Logger {
  if (input == null) return noopLogger;
  if (typeof input === 'function') return funcLogger(input);
  if (typeof input === 'object' && typeof input.info === 'function' && typeof input.warn === 'function' && typeof input.error === 'function') {
    const l = input as Logger;
    return { debug: (m) => l.debug?.(m), info: (m) => l.info(m), warn: (m) => l.warn(m), error: (m) => l.error(m) };
  }
  throw new TypeError(`authKoa: ${option} must be a function or an object with info, warn and error methods`);
}
