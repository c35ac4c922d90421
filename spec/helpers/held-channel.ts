/**
 * A real state store (LMDB files, redis-server, PostgreSQL, memory) handed to an app as an object whose broadcast
 * delivers nothing until the test says so: what a slow channel looks like to the process that follows it (LMDB's
 * poll not come round yet, a Redis or PostgreSQL notification still on the wire), made deterministic. Publishing
 * goes to the store as it is; the follower's status is passed on at once, so the process believes its channel live.
 * Also counts the store's reads by namespace, for the tests that must show a request read nothing.
 */
import type { Broadcast } from '../../lib/state/broadcast.js';
import type { StateStore } from '../../lib/state/types.js';

export interface HeldChannelStore {
  /** The store to pass as `stateStore`. */
  store: StateStore;
  /** Messages received from the backend and not yet delivered. */
  readonly held: number;
  /** Delivers every message held so far, in the order it came, and each later one at once from now on. */
  release(): void;
  /** Resolves once a follower of `topic` has reported itself live. */
  live(topic: string): Promise<void>;
  /** `get` calls so far, in order, as `<namespace> <key>`. */
  readonly reads: readonly string[];
}

export function heldChannel(inner: StateStore): HeldChannelStore {
  const held: Array<() => void> = [];
  let holding = true;
  const liveTopics = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  const reads: string[] = [];
  const real = inner.broadcast!;
  const broadcast: Broadcast = {
    publish: (topic, body, keepMs) => real.publish(topic, body, keepMs),
    follow(topic, lookbackMs, deliver, status) {
      return real.follow(
        topic,
        lookbackMs,
        (body) => (holding ? held.push(() => deliver(body)) : deliver(body)),
        (isLive) => {
          status(isLive);
          if (!isLive) return;
          liveTopics.add(topic);
          for (const resolve of waiting.get(topic) ?? []) resolve();
          waiting.delete(topic);
        },
      );
    },
  };
  const store: StateStore = {
    create: (ns, key, value, exp) => inner.create(ns, key, value, exp),
    get: (ns, key) => {
      reads.push(`${ns} ${key}`);
      return inner.get(ns, key);
    },
    replace: (ns, key, rev, value, exp) => inner.replace(ns, key, rev, value, exp),
    take: (ns, key, rev) => inner.take(ns, key, rev),
    remove: (ns, key) => inner.remove(ns, key),
    sweep: () => inner.sweep(),
    markUsed: (id, exp) => inner.markUsed(id, exp),
    ...(inner.hit && { hit: inner.hit.bind(inner) }),
    close: () => inner.close(),
    volatile: inner.volatile,
    broadcast,
  };
  return {
    store,
    get held() {
      return held.length;
    },
    release() {
      holding = false;
      for (const deliver of held.splice(0)) deliver();
    },
    live: (topic) =>
      liveTopics.has(topic)
        ? Promise.resolve()
        : new Promise((resolve) => waiting.set(topic, [...(waiting.get(topic) ?? []), resolve])),
    reads,
  };
}
