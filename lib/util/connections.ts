/**
 * Connections that the stores of one authKoa instance share, one per backend and address: with
 * `stateStore`, `avatarStore` and `mfa.store` all on `postgres://db/app`, one pool serves the three.
 * One ConnectionShare belongs to one instance (never to the process), so two instances in one process
 * keep their own connections and close them on their own.
 */

/** A use of a shared connection; release() closes it once the last user let go. */
export interface Lease<T> {
  readonly value: T;
  release(): Promise<void>;
}

interface Entry {
  opening: Promise<unknown>;
  users: number;
  close: (value: never) => Promise<void>;
}

export class ConnectionShare {
  readonly #entries = new Map<string, Entry>();

  /**
   * The connection under `key` (a backend and its address, credentials included, since two users of
   * one server must not share a login): opened by `open` for the first user, shared with the next. A
   * failed open is forgotten, so the next acquire() tries again.
   */
  async acquire<T>(key: string, open: () => Promise<T>, close: (value: T) => Promise<void>): Promise<Lease<T>> {
    let entry = this.#entries.get(key);
    if (!entry) {
      entry = { opening: open(), users: 0, close: close };
      this.#entries.set(key, entry);
      const mine = entry;
      mine.opening.catch(() => {
        if (this.#entries.get(key) === mine) this.#entries.delete(key);
      });
    }
    entry.users++;
    let value: T;
    try {
      value = (await entry.opening) as T;
    } catch (err) {
      entry.users--;
      throw err;
    }
    let released = false;
    const held = entry;
    return {
      value,
      release: async () => {
        if (released) return;
        released = true;
        if (--held.users > 0) return;
        if (this.#entries.get(key) === held) this.#entries.delete(key);
        await held.close(value as never);
      },
    };
  }

  /** How many connections are open now (tests, and the pool-per-URI claim). */
  get size(): number {
    return this.#entries.size;
  }
}

/** Opens without sharing: what a store opened on its own (no instance around it) uses. */
export function unshared<T>(open: () => Promise<T>, close: (value: T) => Promise<void>): Promise<Lease<T>> {
  return new ConnectionShare().acquire('', open, close);
}
