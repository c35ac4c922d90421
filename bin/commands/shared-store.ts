import { openStateTarget, parseStateUri } from '../../lib/state/open.js';
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

/** Opens a checked `--store`; a store that cannot be opened is a one-line error without the `authKoa:` prefix. */
export async function openSharedStore(target: StateTarget): Promise<StateStore> {
  try {
    return await openStateTarget(target, {}, '--store');
  } catch (err) {
    throw new Error(`cannot open the state store: ${(err as Error).message.replace(/^authKoa: /, '')}`);
  }
}
