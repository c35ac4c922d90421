import type { Broadcast, BroadcastFollower } from './broadcast.js';
import type { StateStore } from './types.js';

/**
 * The broadcast of a state store as the service holds it (shared.ts): the store opens on first use, so a
 * follower waits for it, and one whose store could not be opened (the server away at start-up) reports
 * itself down and tries again, as every later call to the store would.
 */

/** How long a follower waits before trying a store that did not open again. */
const RETRY_MS = 1000;

export function sharedBroadcast(open: () => Promise<StateStore>, unavailable: (err: unknown) => never): Broadcast {
  return {
    publish: (topic, body, keepMs) =>
      open()
        .then((s) => s.broadcast?.publish(topic, body, keepMs))
        .catch(unavailable),
    follow(topic, lookbackMs, deliver, status) {
      let inner: BroadcastFollower | undefined;
      let closed = false;
      let timer: NodeJS.Timeout | undefined;
      const attempt = () => {
        open().then(
          (s) => {
            if (closed) return;
            if (!s.broadcast) return status(false);
            inner = s.broadcast.follow(topic, lookbackMs, deliver, (live) => !closed && status(live));
          },
          () => {
            if (closed) return;
            status(false);
            timer = setTimeout(attempt, RETRY_MS);
            timer.unref();
          },
        );
      };
      attempt();
      return {
        close() {
          closed = true;
          clearTimeout(timer);
          inner?.close();
        },
      };
    },
  };
}

/**
 * The store kinds that carry a broadcast: what a URI opens knows before it opens. Each one's store must have
 * one (spec/state/broadcast.test.ts opens each): a kind listed without one would leave the revocation channel
 * down for good, and every protected request reading the store.
 */
export const BROADCAST_KINDS: ReadonlySet<string> = new Set(['memory', 'lmdb', 'redis', 'postgres']);
