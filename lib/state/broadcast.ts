import { copyValue } from './copy.js';

/**
 * A log every process of a service follows: what one process publishes, every process receives, and a
 * process that was away (starting, reconnecting) first reads what it missed. The state stores that can
 * carry one have it as `StateStore.broadcast`: memory (one process), LMDB (one host, a cheap check of a
 * counter), Redis (pub/sub, a stream for what was missed) and PostgreSQL (LISTEN/NOTIFY, a table for
 * what was missed). The revocation channel is its first user (lib/session/revocation-watch.ts).
 *
 * Delivery is at least once: a message may come twice (a catch-up overlapping what was pushed; the
 * publishing process's own copy, handed over before the store has it: shared-broadcast.ts), so a follower
 * applies messages idempotently. Bodies are plain JSON and small (a NOTIFY carries 8 000 bytes).
 */

/** Stops a follower: no delivery or status call after it. */
export interface BroadcastFollower {
  close(): void;
}

export interface Broadcast {
  /**
   * True when publish() itself hands the message to this process's followers before it resolves (the memory
   * store's): the service's broadcast then does not hand it to them first (shared-broadcast.ts).
   */
  readonly deliversLocally?: boolean;
  /**
   * Appends `body` to `topic`, kept at least `keepMs` for followers that catch up, and tells every live
   * follower. Rejects when the message could not be stored (the backend is away).
   */
  publish(topic: string, body: unknown, keepMs: number): Promise<void>;
  /**
   * Follows `topic`: first the messages published in the last `lookbackMs` (by the store's own clock: the
   * server's for Redis and PostgreSQL), then each new one as it comes. `status(true)` once what was missed
   * has been delivered and new messages arrive as they are published; `status(false)` when the link is
   * lost, until the next `true` (which again comes after what was missed meanwhile). Never throws: failures
   * are reported through `status`.
   */
  follow(
    topic: string,
    lookbackMs: number,
    deliver: (body: unknown) => void,
    status: (live: boolean) => void,
  ): BroadcastFollower;
}

/** Checks a topic name: letters, digits, `_`, `-` and `.`, as every backend can use it in a key or channel. */
export function checkTopic(topic: string): void {
  if (typeof topic !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(topic))
    throw new TypeError(`broadcast topic must be 1 to 64 letters, digits, _, - or . (got ${JSON.stringify(topic)})`);
}

/** The broadcast of one process (the memory store's): a log per topic in memory, followers told at once. */
export function memoryBroadcast(clock: () => number): Broadcast {
  const topics = new Map<string, { log: { at: number; body: unknown }[]; followers: Set<(body: unknown) => void> }>();
  const topicOf = (name: string) => {
    let t = topics.get(name);
    if (!t) topics.set(name, (t = { log: [], followers: new Set() }));
    return t;
  };
  return {
    deliversLocally: true,
    publish(topic, body, keepMs) {
      checkTopic(topic);
      const t = topicOf(topic);
      const now = clock();
      // Each follower and the log get their own copy, as from a backend's JSON: a revocation notice is a flat
      // record, copied by spread (copyValue), where structuredClone took 1–2 µs of every login that ends a session.
      t.log.push({ at: now, body: copyValue(body) });
      while (t.log.length && t.log[0].at < now - keepMs) t.log.shift();
      // One follower's failure is its own: the others are told, and the publish succeeds.
      for (const deliver of t.followers)
        try {
          deliver(copyValue(body));
        } catch {}
      return Promise.resolve();
    },
    follow(topic, lookbackMs, deliver, status) {
      checkTopic(topic);
      const t = topicOf(topic);
      const since = clock() - lookbackMs;
      for (const m of t.log) if (m.at >= since) deliver(copyValue(m.body));
      t.followers.add(deliver);
      status(true);
      return { close: () => void t.followers.delete(deliver) };
    },
  };
}
