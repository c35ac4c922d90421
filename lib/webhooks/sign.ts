import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): the secret is `whsec_` and the base64 of the key;
 * a message is signed as `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`, the timestamp in seconds.
 * Receivers check it with any of the specification's libraries (`standardwebhooks` on npm).
 */

/** The key of a `whsec_…` secret; a TypeError naming `option` for anything else or a key under 24 bytes. */
export function secretKey(secret: unknown, option: string): Buffer {
  const base64 = typeof secret === 'string' && secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : undefined;
  const key = base64 !== undefined && /^[A-Za-z0-9+/]+={0,2}$/.test(base64) ? Buffer.from(base64, 'base64') : undefined;
  if (!key || key.length < 24)
    throw new TypeError(
      `authKoa: ${option} must be whsec_ and the base64 of at least 24 random bytes ` +
        '(authctl webhooks secret makes one)',
    );
  return key;
}

/** The `webhook-signature` header's value for one message. */
export function signature(key: Buffer, id: string, timestampS: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64')}`;
}

/** The three headers of a delivery. */
export function webhookHeaders(key: Buffer, id: string, timestampS: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': signature(key, id, timestampS, body),
  };
}
