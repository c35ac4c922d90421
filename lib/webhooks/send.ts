import { addressPolicy } from '../avatar/ip.js';
import { FetchError, safePost } from '../avatar/fetch.js';
import type { WebhookEndpoint } from './options.js';
import type { Leased } from './outbox.js';
import { webhookHeaders } from './sign.js';
import type { SendResult } from './worker.js';

/** A receiver's answer is read up to this much, and thrown away. */
const ANSWER_CAP = 64 * 1024;

/**
 * One try of one message: signed at the time of sending (`webhook-timestamp` from the instance's clock), POSTed under
 * the avatar fetch's rules (no private address unless the endpoint allows it, no redirect, a time limit, a size cap).
 */
export function webhookSender(clock: () => number): (endpoint: WebhookEndpoint, leased: Leased) => Promise<SendResult> {
  const policies = new Map<boolean, (address: string) => boolean>([
    [false, addressPolicy(false)],
    [true, addressPolicy(true)],
  ]);
  return async (endpoint, { message }) => {
    const headers = webhookHeaders(endpoint.key, message.id, Math.floor(clock() / 1000), message.body);
    const limits = {
      timeoutMs: endpoint.timeoutMs,
      maxBytes: ANSWER_CAP,
      allowed: policies.get(endpoint.allowPrivate)!,
    };
    try {
      const status = await safePost(endpoint.url, message.body, headers, limits);
      if (status >= 200 && status < 300) return 'delivered';
      if (status === 410) return 'gone';
      return { failed: `status ${status}` };
    } catch (err) {
      return { failed: err instanceof FetchError ? err.reason : 'transport error' };
    }
  };
}
