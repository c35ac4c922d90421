import { checkTopic, type Broadcast, type BroadcastFollower } from './broadcast.js';
import type { StateStore } from './types.js';

/**
 * The broadcast of a state store as the service holds it (shared.ts): the store opens on first use, so a
 * follower waits for it, and one whose store could not be opened (the server away at start-up) reports
 * itself down and tries again, as every later call to the store would.
 *
 * What this process publishes, its own followers of the topic are handed at once, before the message goes to
 * the store: a revocation then applies here before the call that made it answers, however long the store
 * takes to bring it back (LMDB's poll, a notification on its way). They hear it again from the store later,
 * as every process does; delivery is at least once, and followers apply messages idempotently.
 */

/** How long a follower waits before trying a store that did not open again. */
const RETRY_MS = 1000;

export function sharedBroadcast(open: () => Promise<StateStore>, unavailable: (err: unknown) => never): Broadcast {
  const local = localFollowers();
  return {
    publish(topic, body, keepMs) {
      return open()
        .then((s) => {
          if (!s.broadcast) return;
          checkTopic(topic);
          // Before the store has it: this process applies what it publishes whatever the store does next.
          if (!s.broadcast.deliversLocally) local.deliver(topic, body);
          return s.broadcast.publish(topic, body, keepMs);
        })
        .catch(unavailable);
    },
    follow(topic, lookbackMs, deliver, status) {
      const unlisten = local.add(topic, deliver);
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
          unlisten();
          clearTimeout(timer);
          inner?.close();
        },
      };
    },
  };
}

/** This process's followers by topic: what it publishes reaches them before the store has it. */
function localFollowers() {
  const byTopic = new Map<string, Set<(body: unknown) => void>>();
  return {
    add(topic: string, deliver: (body: unknown) => void): () => void {
      let set = byTopic.get(topic);
      if (!set) byTopic.set(topic, (set = new Set()));
      set.add(deliver);
      return () => {
        set.delete(deliver);
        if (set.size === 0) byTopic.delete(topic);
      };
    },
    deliver(topic: string, body: unknown): void {
      const followers = byTopic.get(topic);
      if (!followers) return;
      // As the store would hand it over: a copy through JSON, which no follower shares with the publisher.
      const json = JSON.stringify(body);
      for (const deliver of followers)
        try {
          deliver(JSON.parse(json));
        } catch {
          // One follower's failure is its own, as it is when the store delivers: the publish goes on.
        }
    },
  };
}

/**
 * The store kinds that carry a broadcast: what a URI opens knows before it opens. Each one's store must have
 * one (spec/state/broadcast.test.ts opens each): a kind listed without one would leave the revocation channel
 * down for good, and every protected request reading the store.
 */
export const BROADCAST_KINDS: ReadonlySet<string> = new Set(['memory', 'lmdb', 'redis', 'postgres']);
