import { existsSync } from 'node:fs';
import { openStateTarget, parseStateUri } from '../../lib/state/open.js';
import { MissingPackageError } from '../../lib/util/optional.js';
import type { StateStore, StateTarget } from '../../lib/state/types.js';

/** The state stores several processes can share, as `--store` help and errors name them. */
export const SHARED_STORES = 'lmdb://<path>, redis://…, mongodb://… or postgres://…';

/**
 * Checks `--store` for a command that works on the apps' shared state (bot, sessions, passkeys), and
 * returns it parsed. Done in the action, not as a commander argument parser: commander would echo the
 * rejected value, and a Redis or MongoDB URI may carry a password.
 */
export function checkSharedStore(uri: string): StateTarget {
  let target: StateTarget;
  try {
    target = parseStateUri(uri, '--store');
  } catch {
    throw new Error(`--store must be ${SHARED_STORES}`);
  }
  if (target.kind === 'memory')
    throw new Error(
      "--store must be the apps' shared store (the one shared with the app's processes): memory:// is one process's own",
    );
  return target;
}

/**
 * Refuses, for a read-only command, a path store (`lmdb://<path>`, a file store's folder) that is not there:
 * opening it would create an empty one at a mistyped path and answer "none", exit 0. `argument` is what the
 * message names (`--store`, `<store>`).
 */
export function refuseMissingStore(path: string | undefined, uri: string, argument: string): void {
  if (path !== undefined && !existsSync(path))
    throw new Error(`${argument} ${uri}: no store there (read-only commands never create one)`);
}

/**
 * Opens a checked `--store` (`argument` in messages); a store that cannot be opened is a one-line error without the
 * `authKoa:` prefix. With `readOnly` (a list, a status), a path store that is not there is refused, never created.
 */
export async function openSharedStore(
  target: StateTarget,
  { readOnly = false, argument = '--store' }: { readOnly?: boolean; argument?: string } = {},
): Promise<StateStore> {
  if (readOnly) refuseMissingStore(target.path, target.uri, argument);
  try {
    return await openStateTarget(target, {}, argument);
  } catch (err) {
    throw new Error(openFailure('the state store', err));
  }
}

/**
 * What a command says when `what` (the state store, the accounts store) cannot be opened, in one line: a missing
 * package is said as it is (it names the option and `npm install …`), anything else after "cannot open".
 */
export function openFailure(what: string, err: unknown): string {
  const message = String((err as Error)?.message ?? err).replace(/^authKoa: /, '');
  return err instanceof MissingPackageError ? message : `cannot open ${what}: ${message}`;
}
