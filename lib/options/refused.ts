import { loggerOf } from '../logger.js';

/**
 * A bad option, as authKoa() throws it: said through the app's logger (the default prints it, so the
 * message is the first line of a crashing script's output, before Node's excerpt of the throwing line),
 * and its stack trace starting at the caller's line (`entry`'s caller), as Node's own argument errors
 * do: the library frames below say nothing about which option is wrong, the message does.
 */
export function refusedOptions(err: unknown, logger: unknown, entry: (...args: never[]) => unknown): unknown {
  if (!(err instanceof Error)) return err;
  loggerOf(logger).error(`authkoa did not start: ${err.message}`, { code: 'not_started' });
  Error.captureStackTrace(err, entry);
  return err;
}
