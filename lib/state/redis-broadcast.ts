import type { Redis } from 'ioredis';
import { checkTopic, type Broadcast, type BroadcastFollower } from './broadcast.js';

/**
 * The broadcast of a Redis state store: each message is appended to a stream (`<prefix>bc:<topic>`,
 * trimmed by the server's clock to what followers may still need) and published on the channel of the
 * same name, in one script. A follower holds a connection of its own subscribed to the channel; each time
 * it is (re)connected it reads from the stream what was appended since the last message it saw (or, the
 * first time, within the look-back), and only then reports itself live. Delivery while connected costs
 * the server nothing but the publish: no polling, no read per message.
 */

/** Appends to the stream (trimmed to `keepMs` by the server's time) and publishes `<id> <body>`; returns the id. */
export const PUBLISH = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id = redis.call('XADD', KEYS[1], 'MINID', '~', tostring(now - tonumber(ARGV[1])), '*', 'b', ARGV[2])
redis.call('PUBLISH', KEYS[1], id .. ' ' .. ARGV[2])
return id
`;

/**
 * How often a subscribed connection is pinged: a link that died without a word (a host gone, a NAT dropping
 * it) would otherwise stay "live" while messages no longer arrive. A ping unanswered within the connection's
 * command timeout drops it, and the reconnection catches up.
 */
const HEARTBEAT_MS = 5000;

/** Waits before reading what was missed again, after a failed read. */
const RETRY_MS = [100, 250, 500, 1000, 2000];

export interface BroadcastRedis extends Redis {
  authkoaPublish(key: string, keepMs: number, body: string): Promise<string>;
}

export function redisBroadcast(client: BroadcastRedis, keyOf: (topic: string) => string): Broadcast {
  return {
    async publish(topic, body, keepMs) {
      checkTopic(topic);
      if (client.status !== 'ready') throw new Error(`redis is unavailable (${client.status})`);
      await client.authkoaPublish(keyOf(topic), Math.max(1, Math.ceil(keepMs)), JSON.stringify(body));
    },
    follow(topic, lookbackMs, deliver, status) {
      checkTopic(topic);
      return new RedisFollower(client, keyOf(topic), lookbackMs, deliver, status);
    },
  };
}

/** Stream ids `<ms>-<seq>`, compared as such. */
function after(a: string, b: string | undefined): boolean {
  if (b === undefined) return true;
  const [am, as] = a.split('-').map(Number) as [number, number];
  const [bm, bs] = b.split('-').map(Number) as [number, number];
  return am > bm || (am === bm && as > bs);
}

class RedisFollower implements BroadcastFollower {
  private readonly sub: Redis;
  /** The newest message delivered: what a catch-up reads after. */
  private lastId: string | undefined;
  private closed = false;
  private live = false;
  private retries = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  /** Bumped by each (re)connection, so a catch-up that a newer one overtook does not report live. */
  private round = 0;
  /**
   * The messages pushed while a catch-up reads the stream, delivered after it: taken at once, one would move
   * `lastId` past the older ones the read is about to return, and they would be skipped.
   */
  private pushed: string[] | undefined;

  constructor(
    private readonly reader: Redis,
    private readonly key: string,
    private readonly lookbackMs: number,
    private readonly deliver: (body: unknown) => void,
    private readonly status: (live: boolean) => void,
  ) {
    // A connection of its own: a subscribed connection can do nothing else.
    this.sub = reader.duplicate({ lazyConnect: true, enableOfflineQueue: true, autoResubscribe: false });
    this.sub.on('error', () => {}); // reported through status; ioredis would print it otherwise
    this.sub.on('message', (_channel: string, message: string) => this.received(message));
    this.sub.on('ready', () => void this.connected());
    this.sub.on('close', () => this.down());
    this.status(false);
    this.sub.connect().catch(() => {}); // it goes on trying by its retry strategy
    this.heartbeat = setInterval(() => this.ping(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  private ping(): void {
    if (!this.live || this.closed) return;
    this.sub.ping().catch(() => this.sub.disconnect(true));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    clearInterval(this.heartbeat);
    this.sub.disconnect();
  }

  private received(message: string): void {
    if (this.closed) return;
    if (this.pushed) return void this.pushed.push(message);
    const space = message.indexOf(' ');
    const id = message.slice(0, space);
    this.take(id, message.slice(space + 1));
  }

  private take(id: string, json: string): void {
    if (after(id, this.lastId)) this.lastId = id;
    try {
      this.deliver(JSON.parse(json));
    } catch {
      // A body that does not parse is nobody's message: skipped.
    }
  }

  private down(): void {
    this.round++;
    if (this.live) {
      this.live = false;
      if (!this.closed) this.status(false);
    }
  }

  /** Subscribed (again): reads what was missed, then reports live. */
  private async connected(): Promise<void> {
    const round = ++this.round;
    this.pushed = [];
    try {
      await this.sub.subscribe(this.key);
      await this.catchUp();
    } catch {
      if (this.closed || round !== this.round) return;
      const wait = RETRY_MS[Math.min(this.retries++, RETRY_MS.length - 1)];
      this.timer = setTimeout(() => void (round === this.round && this.connected()), wait);
      this.timer.unref();
      return;
    }
    if (this.closed || round !== this.round) return;
    const pushed = this.pushed;
    this.pushed = undefined;
    // What the stream read returned is delivered; of what was pushed meanwhile, only what came after it.
    for (const message of pushed ?? []) {
      const id = message.slice(0, message.indexOf(' '));
      if (after(id, this.lastId)) this.received(message);
    }
    this.retries = 0;
    this.live = true;
    this.status(true);
  }

  private async catchUp(): Promise<void> {
    let start: string;
    if (this.lastId) start = `(${this.lastId}`;
    else {
      const [s, us] = await this.reader.time();
      start = String(Number(s) * 1000 + Math.floor(Number(us) / 1000) - this.lookbackMs);
    }
    const entries = await this.reader.xrange(this.key, start, '+');
    for (const [id, fields] of entries) {
      const b = fields.indexOf('b');
      if (b >= 0 && after(id, this.lastId)) this.take(id, fields[b + 1]);
    }
  }
}
