import { openStateStore, parseStateUri, type StateStore } from '../../lib/state/index.js';

/** The state stores several processes can share, as `--store` help and errors name them. */
export const SHARED_STORES = 'lmdb://<path>, redis://… or mongodb://…';

/**
 * Checks `--store` for a command that works on the apps' shared state (bot, sessions, passkeys). Done in
 * the action, not as a commander argument parser: commander would echo the rejected value, and a Redis or
 * MongoDB URI may carry a password.
 */
export function checkSharedStore(uri: string): void {
  let kind: string;
  try {
    kind = parseStateUri(uri, '--store').kind;
  } catch {
    throw new Error(`--store must be ${SHARED_STORES}`);
  }
  if (kind === 'memory') throw new Error("--store must be the apps' shared store (the one shared with the app's processes): memory:// is one process's own");
}

/** Checks and opens `--store`; a store that cannot be opened is a one-line error without the `authKoa:` prefix. */
export async function openSharedStore(uri: string): Promise<StateStore> {
  checkSharedStore(uri);
  try {
    return await openStateStore(uri, {}, '--store');
  } catch (err) {
    throw new Error(`cannot open the state store: ${(err as Error).message.replace(/^authKoa: /, '')}`);
  }
}
