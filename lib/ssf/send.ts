import { addressPolicy } from '../http/address-policy.js';
import { FetchError, safePost } from '../http/safe-request.js';
import type { Leased } from '../outbox/state-outbox.js';
import type { SendResult } from '../outbox/worker.js';
import { noTracing, type Tracing } from '../telemetry/types.js';
import type { SsfReceiver } from './options.js';

/** A receiver's answer is read up to this much, and thrown away. */
const ANSWER_CAP = 64 * 1024;

/**
 * One push of one SET (RFC 8935 §2): POSTed as `application/secevent+jwt` with the receiver's credential as
 * `Authorization: Bearer`, under the outbound-request rules (`safePost`: no private address unless the receiver allows
 * it, no redirect, a time limit, a size cap). 202 is delivered; 400 is the receiver refusing this SET for good
 * (RFC 8935 §2.3: a dead letter at once); anything else is tried again on the outbox's schedule.
 */
export function ssfSender(
  tracing: Tracing = noTracing,
): (receiver: SsfReceiver, leased: Leased) => Promise<SendResult> {
  const policies = new Map<boolean, (address: string) => boolean>([
    [false, addressPolicy(false)],
    [true, addressPolicy(true)],
  ]);
  return async (receiver, { message }) => {
    const url = receiver.push!;
    const headers = {
      'content-type': 'application/secevent+jwt',
      accept: 'application/json',
      authorization: `Bearer ${receiver.credential}`,
      'user-agent': 'authkoa-ssf',
    };
    const limits = {
      timeoutMs: receiver.timeoutMs,
      maxBytes: ANSWER_CAP,
      allowed: policies.get(receiver.allowPrivate)!,
    };
    const call = { method: 'POST', url, what: 'ssf push' };
    try {
      return await tracing.client(call, async (status) => {
        const code = await safePost(url, message.body, headers, limits);
        status(code);
        if (code === 202) return 'delivered';
        return code === 400 ? { refused: 'status 400 (the receiver refused the SET)' } : { failed: `status ${code}` };
      });
    } catch (err) {
      return { failed: err instanceof FetchError ? err.reason : 'transport error' };
    }
  };
}
