import type pg from 'pg';
import type { PostgresDb } from '../postgres/db.js';
import { checkTopic, type Broadcast, type BroadcastFollower } from './broadcast.js';

/**
 * The broadcast of a PostgreSQL state store: each message is a row of `<prefix>broadcast` and a NOTIFY,
 * in one statement (the notification is sent when the row commits). A follower holds a connection of its
 * own that LISTENs; each time it is (re)connected it reads the rows within its look-back by the
 * database's clock before it reports itself live, so what was committed while it was away is delivered
 * (again, perhaps: followers apply messages idempotently). While connected, delivery reads nothing.
 */

/** Waits before connecting again after the link was lost, growing to the last. */
const RETRY_MS = [100, 250, 500, 1000, 2000];
/** Publishes between two prunings of rows older than their keep. */
const PRUNE_EVERY = 64;
/**
 * How often a listening connection is asked a trivial question: a link that died without a word (a host
 * gone, a NAT dropping it) would otherwise stay "live" while notifications no longer arrive.
 */
export const HEARTBEAT_MS = 5000;

export function postgresBroadcast(db: PostgresDb, table: string, channel: string): Broadcast {
  let untilPrune = PRUNE_EVERY;
  return {
    async publish(topic, body, keepMs) {
      checkTopic(topic);
      await db.query(
        'broadcast',
        `WITH ins AS (INSERT INTO ${table} (topic, body) VALUES ($1, $2) RETURNING id, body)
         SELECT pg_notify($3, ins.id || ' ' || $1 || ' ' || ins.body::text) FROM ins`,
        [topic, JSON.stringify(body), channel],
      );
      if (--untilPrune <= 0) {
        untilPrune = PRUNE_EVERY;
        const prune = `DELETE FROM ${table} WHERE topic = $1 AND at < clock_timestamp() - $2 * interval '1 ms'`;
        void db.query('broadcast prune', prune, [topic, Math.ceil(keepMs)]).catch(() => {});
      }
    },
    follow(topic, lookbackMs, deliver, status) {
      checkTopic(topic);
      return new PostgresFollower({ db, table, channel, topic, lookbackMs, deliver, status });
    },
  };
}

interface FollowerParts {
  db: PostgresDb;
  table: string;
  channel: string;
  topic: string;
  lookbackMs: number;
  deliver: (body: unknown) => void;
  status: (live: boolean) => void;
}

class PostgresFollower implements BroadcastFollower {
  private client: pg.Client | undefined;
  private closed = false;
  private retries = 0;
  private timer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly p: FollowerParts) {
    p.status(false);
    void this.connect();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    // A notification already read from the socket can still be emitted before end() completes: drop it.
    this.client?.removeAllListeners('notification');
    void this.client?.end().catch(() => {});
    this.client = undefined;
  }

  private async connect(): Promise<void> {
    const client = this.p.db.client();
    this.client = client;
    const lost = () => this.lost(client);
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => n.channel === this.p.channel && this.received(n.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN ${quoted(this.p.channel)}`);
      const missed = await client.query<{ body: unknown }>(
        `SELECT body FROM ${this.p.table} WHERE topic = $1 AND at >= clock_timestamp() - $2 * interval '1 millisecond'
         ORDER BY id`,
        [this.p.topic, Math.ceil(this.p.lookbackMs)],
      );
      if (this.client !== client || this.closed) return;
      for (const row of missed.rows) this.p.deliver(row.body);
    } catch {
      return this.lost(client);
    }
    this.retries = 0;
    this.p.status(true);
    clearInterval(this.heartbeat);
    // The query has the connection's own timeout: no answer in time is a lost link, caught up on reconnection.
    this.heartbeat = setInterval(() => void client.query('SELECT 1').catch(() => this.lost(client)), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** `<id> <topic> <body>`: this topic's bodies are delivered. */
  private received(payload: string): void {
    if (this.closed) return;
    const first = payload.indexOf(' ');
    const second = payload.indexOf(' ', first + 1);
    if (first < 0 || second < 0 || payload.slice(first + 1, second) !== this.p.topic) return;
    try {
      this.p.deliver(JSON.parse(payload.slice(second + 1)));
    } catch {
      // Not a message of ours: skipped.
    }
  }

  /** The connection failed or ended: down until a new one has caught up. */
  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    clearInterval(this.heartbeat);
    client.removeAllListeners('notification');
    void client.end().catch(() => {});
    this.p.status(false);
    const wait = RETRY_MS[Math.min(this.retries++, RETRY_MS.length - 1)];
    this.timer = setTimeout(() => void this.connect(), wait);
    this.timer.unref();
  }
}

/** A channel name as an identifier for LISTEN. */
function quoted(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
