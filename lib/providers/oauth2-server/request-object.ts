/**
 * Request objects passed by value (`request=`, OpenID Connect Core §6.1), unsigned (`alg: none`) only.
 * An unsigned object says nothing the query could not: it is accepted so clients (and the
 * certification suite) that send one are served, and its parameters win over the query's as §6.3.3
 * sets. A signed object would need each client's keys, which registered clients do not have here, and
 * `request_uri` would make the server fetch URLs a client names: both are refused as unsupported.
 */

/** Largest request object read (the whole query is capped by Node's header limit anyway). */
const MAX_LENGTH = 8 * 1024;

/**
 * The request's parameters with an unsigned request object's merged over them; a string naming what is
 * wrong with the object otherwise (answered `invalid_request_object`).
 */
export function withRequestObject(q: Record<string, string>): Record<string, string> | string {
  const jwt = q.request;
  if (jwt === undefined) return q;
  const parts = jwt.split('.');
  if (jwt.length > MAX_LENGTH || parts.length !== 3) return 'request is not a compact JWT';
  const header = decoded(parts[0]);
  const claims = decoded(parts[1]);
  if (!header || !claims) return 'request is not a compact JWT';
  if (header.alg !== 'none' || parts[2] !== '') return 'only unsigned request objects (alg none) are supported';
  for (const name of ['client_id', 'response_type'] as const)
    if (claims[name] !== undefined && q[name] !== undefined && claims[name] !== q[name])
      return `${name} differs between the request object and the query`;
  const merged: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, q);
  delete merged.request;
  for (const [k, v] of Object.entries(claims)) {
    // Claims about the object itself (RFC 9101 §4) are not request parameters.
    if (['iss', 'aud', 'exp', 'iat', 'nbf', 'jti'].includes(k) || v === null || v === undefined) continue;
    merged[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return merged;
}

function decoded(segment: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
