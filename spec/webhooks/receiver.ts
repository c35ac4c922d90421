/**
 * A webhook receiver on 127.0.0.1 for the tests: every POST is checked with the third-party `standardwebhooks`
 * package (the specification's own library) against the endpoint's secret, and kept with what the check said. Its
 * answer is a status the test sets (200 by default; 500 to fail, 410 to disable).
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { serve, type Served } from '../helpers/http.js';

export interface Delivery {
  id: string;
  /** What `standardwebhooks` verified, or undefined when it refused the signature. */
  verified?: { type: string; timestamp: string; data: Record<string, unknown> };
  refusal?: string;
  /** The body as it came (an app on a clock far from the real one is refused by the timestamp check). */
  body: string;
  headers: Record<string, string>;
}

export interface Receiver extends Served {
  secret: string;
  deliveries: Delivery[];
  /** The status the next POSTs get. */
  status: number;
  /** Resolves once `n` deliveries arrived in all. */
  until(n: number): Promise<void>;
  /** Resolves once `done` holds, checked after each delivery. */
  when(done: () => boolean): Promise<void>;
}

/** A new `whsec_` secret: 32 random bytes. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export async function startReceiver(secret = newSecret()): Promise<Receiver> {
  const hook = new Webhook(secret);
  const deliveries: Delivery[] = [];
  const waiting: Array<{ done: () => boolean; resolve: () => void }> = [];
  const receiver = { secret, deliveries, status: 200 } as Receiver;
  const served = await serve((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const delivery: Delivery = { id: headers['webhook-id'] ?? '', body, headers };
      try {
        delivery.verified = hook.verify(body, headers) as Delivery['verified'];
      } catch (err) {
        delivery.refusal = (err as Error).message;
      }
      deliveries.push(delivery);
      for (const w of waiting.filter((x) => x.done())) w.resolve();
      res.writeHead(receiver.status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  const when = (done: () => boolean) =>
    done() ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ done, resolve }));
  return Object.assign(receiver, served, {
    until: (n: number) => when(() => deliveries.length >= n),
    when,
  });
}
