import { addressPolicy } from '../http/address-policy.js';
import { FetchError, safePost } from '../http/safe-request.js';
import type { Leased } from '../outbox/state-outbox.js';
import type { SendResult } from '../outbox/worker.js';
import { noTracing, type Tracing } from '../telemetry/types.js';
import type { WebhookEndpoint } from './options.js';
import { webhookHeaders } from './sign.js';

/** A receiver's answer is read up to this much, and thrown away. */
const ANSWER_CAP = 64 * 1024;

/**
 * One try of one message: signed at the time of sending (`webhook-timestamp` from the instance's clock), POSTed under
 * the outbound-request rules (`safePost`: no private address unless the endpoint allows it, no redirect, a time limit,
 * a size cap).
 */
export function webhookSender(
  clock: () => number,
  tracing: Tracing = noTracing,
): (endpoint: WebhookEndpoint, leased: Leased) => Promise<SendResult> {
  const policies = new Map<boolean, (address: string) => boolean>([
    [false, addressPolicy(false)],
    [true, addressPolicy(true)],
  ]);
  return async (endpoint, { message }) => {
    const headers = {
      'user-agent': 'authkoa-webhooks',
      ...webhookHeaders(endpoint.key, message.id, Math.floor(clock() / 1000), message.body),
    };
    const limits = {
      timeoutMs: endpoint.timeoutMs,
      maxBytes: ANSWER_CAP,
      allowed: policies.get(endpoint.allowPrivate)!,
    };
    // A client span and the request-duration histogram per try, as for every outbound call (`authkoa.call: webhook`).
    const call = { method: 'POST', url: endpoint.url, what: 'webhook' };
    try {
      return await tracing.client(call, async (status) => {
        const code = await safePost(endpoint.url, message.body, headers, limits);
        status(code);
        if (code >= 200 && code < 300) return 'delivered';
        return code === 410 ? 'gone' : { failed: `status ${code}` };
      });
    } catch (err) {
      return { failed: err instanceof FetchError ? err.reason : 'transport error' };
    }
  };
}
