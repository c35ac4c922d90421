import type { IncomingHttpHeaders } from 'node:http';

/** A metadata document is kept at most this long, whatever its headers say. */
export const MAX_DOCUMENT_AGE_MS = 24 * 3_600_000;
/**
 * How long a document with no freshness information is kept: the heuristic freshness RFC 9111 §4.2.2 lets a cache
 * give a 200 answer, short, so a client's change reaches this server soon.
 */
export const HEURISTIC_AGE_MS = 5 * 60_000;

/**
 * How long a response may be kept, in ms, by its caching headers (RFC 9111 §4.2.1): `no-store` or `no-cache`: 0;
 * else `max-age`, else `Expires` minus `Date`, else the heuristic; less its `Age`; at most a day.
 */
export function freshnessMs(headers: IncomingHttpHeaders, now: number): number {
  const directives = new Map(
    (headers['cache-control'] ?? '')
      .split(',')
      .map((d) => d.trim().toLowerCase().split('=') as [string, string | undefined])
      .filter(([name]) => name !== ''),
  );
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  const age = seconds(headers.age) ?? 0;
  let lifetime: number;
  const maxAge = directives.get('max-age');
  if (maxAge !== undefined) {
    const s = seconds(maxAge.replace(/^"|"$/g, ''));
    if (s === undefined) return 0; // an invalid max-age is stale (§4.2.1)
    lifetime = s * 1000;
  } else if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    const date = headers.date !== undefined ? Date.parse(headers.date) : now;
    if (Number.isNaN(expires) || Number.isNaN(date)) return 0; // an invalid date means already expired (§5.3)
    lifetime = expires - date;
  } else {
    lifetime = HEURISTIC_AGE_MS;
  }
  return Math.max(0, Math.min(lifetime - age * 1000, MAX_DOCUMENT_AGE_MS));
}

/** A delta-seconds value (RFC 9111 §1.2.2), or undefined. */
function seconds(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}
