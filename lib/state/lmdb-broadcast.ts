import type { Database, RootDatabase } from 'lmdb';
import { checkTopic, type Broadcast, type BroadcastFollower } from './broadcast.js';

/**
 * The broadcast of an LMDB state store, for the processes of one host that share its environment. A
 * topic is a log in the `broadcast` sub-database: its counter under `[topic, 0]` and each message under
 * `[topic, <sequence>]` (array keys sort element by element, numbers in numeric order), both written by
 * one write transaction, so a reader sees a message once it sees the counter that numbers it. A follower
 * checks the counter every 100 ms, a read of one key with no lock, and reads the log only when it moved.
 */

/** One message of a topic's log: when it was published (the store's clock) and its body as JSON. */
export interface LogEntry {
  at: number;
  body: string;
}

/** The broadcast sub-database: counters (numbers) at sequence 0, messages after. */
export type BroadcastDb = Database<LogEntry | number, [string, number]>;

/** How often a follower reads the counter. */
export const CHECK_MS = 100;
/** Publishes (by this process) between two prunings of a topic's old messages; the first one prunes too. */
const PRUNE_EVERY = 64;
/** Past every sequence number of a topic's log. */
const END = Number.MAX_SAFE_INTEGER;

/** A broadcast whose followers close() stops (the store's close: a closed environment never comes back). */
export interface LmdbBroadcast extends Broadcast {
  close(): void;
}

export function lmdbBroadcast(root: RootDatabase, db: BroadcastDb, clock: () => number): LmdbBroadcast {
  const followers = new Set<LmdbFollower>();
  let untilPrune = 1;
  let closed = false;
  return {
    publish(topic, body, keepMs) {
      checkTopic(topic);
      if (closed) return Promise.reject(new Error('state store is closed (publish)'));
      const json = JSON.stringify(body);
      const prune = --untilPrune <= 0;
      if (prune) untilPrune = PRUNE_EVERY;
      return root.transaction(() => {
        const now = clock();
        const seq = ((db.get([topic, 0]) as number | undefined) ?? 0) + 1;
        void db.put([topic, 0], seq); // part of the transaction, which settles the write
        void db.put([topic, seq], { at: now, body: json });
        if (prune) pruneLog(db, topic, now - keepMs);
      });
    },
    follow(topic, lookbackMs, deliver, status) {
      checkTopic(topic);
      if (closed) {
        status(false);
        return { close() {} };
      }
      const follower = new LmdbFollower(db, topic, clock, lookbackMs, deliver, status, followers);
      followers.add(follower);
      follower.start();
      return follower;
    },
    close() {
      closed = true;
      for (const f of followers) f.stop();
    },
  };
}

/**
 * Removes the messages of `topic` published before `before`, oldest first, up to the first younger one
 * (inside the publish's write transaction: collected first, removed after).
 */
function pruneLog(db: BroadcastDb, topic: string, before: number): void {
  const old: [string, number][] = [];
  for (const { key, value } of db.getRange({ start: [topic, 1], end: [topic, END] })) {
    if ((value as LogEntry).at >= before) break;
    old.push(key);
  }
  for (const key of old) void db.remove(key);
}

class LmdbFollower implements BroadcastFollower {
  /** The sequence number of the last message read. */
  private last = 0;
  /** Until the first read succeeds: that one goes by the look-back. */
  private first = true;
  /** What was last reported through status (nothing yet: undefined). */
  private live: boolean | undefined;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: BroadcastDb,
    private readonly topic: string,
    private readonly clock: () => number,
    private readonly lookbackMs: number,
    private readonly deliver: (body: unknown) => void,
    private readonly status: (live: boolean) => void,
    private readonly followers: Set<LmdbFollower>,
  ) {}

  /** The first check at once (what was published within the look-back), then one every CHECK_MS. */
  start(): void {
    this.timer = setInterval(() => this.check(), CHECK_MS);
    this.timer.unref();
    this.check();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.followers.delete(this);
  }

  /** The environment closed under it: down for good. */
  stop(): void {
    if (this.closed) return;
    this.close();
    if (this.live) this.status(false);
  }

  /** Reads the counter; when it moved, the messages after the last one read, then delivers them. */
  private check(): void {
    if (this.closed) return;
    let bodies: string[];
    try {
      bodies = this.read();
    } catch {
      if (this.live !== false) this.status(false);
      this.live = false;
      return;
    }
    for (const json of bodies) {
      if (this.closed) return;
      let body: unknown;
      try {
        body = JSON.parse(json);
      } catch {
        continue; // a body that does not parse is nobody's message: skipped
      }
      this.deliver(body);
    }
    if (this.closed || this.live === true) return;
    this.live = true;
    this.status(true);
  }

  /** The bodies published since the last read: none when the counter has not moved. */
  private read(): string[] {
    const counter = (this.db.get([this.topic, 0]) as number | undefined) ?? 0;
    if (counter === this.last && !this.first) return [];
    const since = this.first ? this.clock() - this.lookbackMs : -Infinity;
    const bodies: string[] = [];
    let last = this.last;
    for (const { key, value } of this.db.getRange({ start: [this.topic, last + 1], end: [this.topic, END] })) {
      last = key[1];
      if ((value as LogEntry).at >= since) bodies.push((value as LogEntry).body);
    }
    // Only once the whole read succeeded: a read cut short is read again whole by the next check.
    this.last = last;
    this.first = false;
    return bodies;
  }
}
