import { setTimeout as sleep } from 'node:timers/promises';
import {
  checkTarget,
  FetchError,
  guardedRequest,
  parseTarget,
  readCapped,
  requestError,
  type RequestLimits,
} from '../http/safe-request.js';

/** Limits of one picture fetch. */
export interface FetchLimits extends RequestLimits {
  /** Redirects followed, each one re-checked. */
  maxRedirects: number;
  /**
   * Extra attempts after a transport error (reset, refused), `retryDelayMs` apart; never after a refusal or a non-200.
   */
  retries: number;
  retryDelayMs: number;
}

/** The proxy loads the fetch and its error in one lazy import. */
export { FetchError };

const TRANSPORT = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** What every picture request says of itself; the provider's own headers go on top. */
const PICTURE_HEADERS = { 'user-agent': 'authkoa-avatar', accept: 'image/*' };

/**
 * GETs an image URL under the outbound-request rules (http/safe-request.ts: every hop's address checked at lookup,
 * on the socket and for IP literals), following redirects up to `maxRedirects`, each checked again, and trying again
 * after a transport error. Resolves to the body of a 200 response; anything else rejects with a FetchError.
 */
export async function safeFetch(url: string, headers: Record<string, string>, limits: FetchLimits): Promise<Buffer> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetchFollowing(url, headers, limits, signal);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (attempt >= limits.retries || !TRANSPORT.has(code) || signal.aborted) throw requestError(err, signal);
      await sleep(limits.retryDelayMs, undefined, { signal }).catch(() => {});
    }
  }
}

async function fetchFollowing(
  start: string,
  headers: Record<string, string>,
  limits: FetchLimits,
  signal: AbortSignal,
): Promise<Buffer> {
  let url = parseTarget(start);
  let sendHeaders = headers;
  for (let hop = 0; ; hop++) {
    checkTarget(url, limits.allowed);
    const res = await guardedRequest(url, { ...PICTURE_HEADERS, ...sendHeaders }, limits.allowed, signal);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      if (hop >= limits.maxRedirects) throw new FetchError('too many redirects');
      const next = parseTarget(res.headers.location, url);
      // Credentials the provider handed us (a bearer token) are for its own origin only.
      if (next.origin !== url.origin) sendHeaders = {};
      url = next;
      continue;
    }
    if (status !== 200) {
      res.resume();
      throw new FetchError(`upstream status ${status}`);
    }
    return readCapped(res, limits.maxBytes);
  }
}
