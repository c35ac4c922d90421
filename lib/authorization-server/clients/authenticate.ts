import { createHash, timingSafeEqual } from 'node:crypto';
import type { ClientError, OAuthClient } from './types.js';

/**
 * A client's authentication at the token endpoint (RFC 6749 §2.3.1, OAuth 2.1 §2.4.1): `client_secret_basic` (the
 * Authorization header), `client_secret_post` (form fields), or for a public client its `client_id` alone. One
 * method per request. Secrets are compared as SHA-256 digests with timingSafeEqual: constant time, and the
 * configured secret's length is not told either.
 */

export type Authenticated = { client: OAuthClient } | { error: 'invalid_client'; description: string };

/** What it needs: the clients, and a client's secret digest (undefined for a public one). */
export interface ClientLookup {
  find(clientId: string): Promise<OAuthClient | ClientError | undefined>;
  secretDigest(client: OAuthClient): Promise<Buffer | undefined>;
}

const refused = (description: string): Authenticated => ({ error: 'invalid_client', description });
export const secretDigest = (secret: string): Buffer => createHash('sha256').update(secret).digest();

export async function authenticateClient(
  req: { authorization?: string; form: Record<string, string | undefined> },
  clients: ClientLookup,
): Promise<Authenticated> {
  const basic = readBasic(req.authorization);
  if (basic === null) return refused('the Authorization header is not valid Basic credentials');
  const { client_id: formId, client_secret: formSecret } = req.form;
  if (basic && formSecret !== undefined) return refused('the client authenticated in more than one way');
  if (basic && formId !== undefined && formId !== basic.id) return refused('client_id differs from the credentials');
  const id = basic?.id ?? formId;
  if (!id) return refused('no client authentication');
  // A public client that sends an empty secret field sent none.
  const secret = basic ? basic.secret : formSecret === '' ? undefined : formSecret;
  const found = await clients.find(id);
  if (found === undefined) return refused('client authentication failed');
  if ('error' in found) return refused(found.description);
  if (!found.confidential) {
    if (secret !== undefined && !(basic && secret === ''))
      return refused('this client is public: it has no secret to send');
    return { client: found };
  }
  const digest = await clients.secretDigest(found);
  if (secret === undefined || !digest || !timingSafeEqual(secretDigest(secret), digest))
    return refused('client authentication failed');
  return { client: found };
}

/**
 * The `Basic` credentials of an Authorization header: undefined when the header is absent or of another scheme,
 * null when it is Basic but malformed. Both halves are form-urlencoded first (RFC 6749 §2.3.1).
 */
function readBasic(header: string | undefined): { id: string; secret: string } | null | undefined {
  const m = header === undefined ? null : /^basic +([A-Za-z0-9+/]+=*) *$/i.exec(header);
  if (!m) return header !== undefined && /^basic\b/i.test(header) ? null : undefined;
  const text = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  try {
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: decode(text.slice(0, colon)), secret: decode(text.slice(colon + 1)) };
  } catch {
    return null;
  }
}
