import { request } from '../http/client.js';
import { SetError, type SignalReceiver } from './signals.js';

/**
 * The poll loop of a verifier's receiver (RFC 8936): every `intervalMs` (at once while the app says more wait) it
 * POSTs the acknowledgements and errors of the last answer and takes the SETs not yet acknowledged. A poll that fails
 * (the app down, a timeout, a refusal of the credential) starts an outage: told once (`unavailable`, one warning)
 * until a poll succeeds again (`restored`). Its timer is unref'd: it never keeps the process alive.
 */

export interface PollerParts {
  url: string;
  credential: string;
  intervalMs: number;
  timeoutMs: number;
  clock: () => number;
  receiver: SignalReceiver;
  warn: (message: string) => void;
  info: (message: string) => void;
}

/** The largest poll answer read: 100 SETs of a few kilobytes each, with room to spare. */
const MAX_BYTES = 4 * 1024 * 1024;
const MAX_EVENTS = 100;

export class Poller {
  #timer: NodeJS.Timeout | undefined;
  /** The polls one after another: the last one's end. */
  #chain: Promise<unknown> = Promise.resolve();
  #stopped = true;
  /** What the next poll acknowledges and reports: the SETs of the answers before it. */
  #ack: string[] = [];
  #errs: Record<string, { err: string; description: string }> = {};
  /** The outage under way: since when, and why. */
  #down: { since: number; reason: string } | undefined;

  constructor(private readonly p: PollerParts) {}

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  /** Stops polling; resolves once a poll under way has ended. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#chain;
  }

  /** One poll now, after the one under way: true when the app said more wait. Rejects when the poll failed. */
  poll(): Promise<boolean> {
    const run = this.#chain.then(async () => {
      try {
        return await this.#once();
      } catch (err) {
        this.#failed(err);
        throw err;
      }
    });
    this.#chain = run.catch(() => {});
    return run;
  }

  /** Whether the app is being polled successfully (false during an outage). */
  get reachable(): boolean {
    return this.#down === undefined;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#run(), delayMs);
    this.#timer.unref();
  }

  #run(): void {
    void this.poll()
      .catch(() => false)
      .then((more) => this.#schedule(more ? 0 : this.p.intervalMs));
  }

  async #once(): Promise<boolean> {
    const ack = this.#ack;
    const errs = this.#errs;
    const body = JSON.stringify({
      ack,
      ...(Object.keys(errs).length > 0 && { setErrs: errs }),
      maxEvents: MAX_EVENTS,
      returnImmediately: true,
    });
    const res = await request(this.p.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.p.credential}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body,
      timeoutMs: this.p.timeoutMs,
      maxBytes: MAX_BYTES,
    });
    if (res.status !== 200) throw new Error(`the poll endpoint answered ${res.status}`);
    const answer = parse(res.body);
    this.#up(); // the app answers: told before what it brings is applied
    // Sent and taken: what this answer brings is acknowledged or reported by the next poll.
    this.#ack = [];
    this.#errs = {};
    for (const [jti, set] of Object.entries(answer.sets)) {
      try {
        if (typeof set !== 'string') throw new SetError('invalid_request', 'a SET must be a compact JWS string');
        await this.p.receiver.accept(set);
        this.#ack.push(jti);
      } catch (err) {
        // A SET that cannot be checked now (no key yet) is neither acknowledged nor reported: it comes again.
        if (err instanceof SetError) this.#errs[jti] = { err: err.err, description: err.message };
      }
    }
    return answer.moreAvailable === true;
  }

  #up(): void {
    const down = this.#down;
    if (!down) return;
    this.#down = undefined;
    const downMs = this.p.clock() - down.since;
    this.p.info(`authkoa/verify: the app's events are back after ${Math.round(downMs / 1000)} s (${this.p.url})`);
    this.p.receiver.p.emit('restored', { downMs });
  }

  #failed(err: unknown): void {
    if (this.#down) return;
    const reason = (err as Error)?.message ?? String(err);
    this.#down = { since: this.p.clock(), reason };
    this.p.warn(
      `authkoa/verify: the app's events cannot be polled (${reason}): until they are, a token is refused only ` +
        'when a revocation already arrived; others are accepted until they expire',
    );
    this.p.receiver.p.emit('unavailable', { reason, since: this.#down.since });
  }
}

function parse(body: Buffer): { sets: Record<string, unknown>; moreAvailable?: unknown } {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Error('the poll answer is not JSON');
  }
  const sets = (doc as { sets?: unknown })?.sets;
  if (typeof sets !== 'object' || sets === null || Array.isArray(sets))
    throw new Error('the poll answer has no "sets" object');
  return doc as { sets: Record<string, unknown>; moreAvailable?: unknown };
}
