import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Limits of one picture fetch. */
export interface FetchLimits {
  /** Whole fetch, redirects included, in ms. */
  timeoutMs: number;
  /** Body cap in bytes; a larger body is refused, not truncated. */
  maxBytes: number;
  /** Redirects followed, each one re-checked. */
  maxRedirects: number;
  /** Which connected addresses are acceptable (see addressPolicy). */
  allowed: (address: string) => boolean;
  /**
   * Extra attempts after a transport error (reset, refused), `retryDelayMs` apart; never after a refusal or a non-200.
   */
  retries: number;
  retryDelayMs: number;
}

/** Why a fetch was refused or failed; `reason` is short and safe to log (no URL, no token). */
export class FetchError extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'FetchError';
  }
}

const TRANSPORT = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/**
 * GETs an image URL under SSRF rules: http(s) only; every hop's address is checked when the socket
 * resolves (a custom `lookup`, so DNS rebinding between a check and the connect cannot slip through),
 * again on the connected socket, and for IP literals (which skip lookup) before connecting.
 * Resolves to the body of a 200 response; anything else rejects with a FetchError.
 */
export async function safeFetch(url: string, headers: Record<string, string>, limits: FetchLimits): Promise<Buffer> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetchFollowing(url, headers, limits, signal);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (attempt >= limits.retries || !TRANSPORT.has(code) || signal.aborted) throw wrap(err, signal);
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
  let url = parseUrl(start);
  let sendHeaders = headers;
  for (let hop = 0; ; hop++) {
    checkTarget(url, limits.allowed);
    const res = await request(url, sendHeaders, limits.allowed, signal);
    const status = res.statusCode ?? 0;
    if (status >= 300 && status < 400 && res.headers.location) {
      res.resume();
      if (hop >= limits.maxRedirects) throw new FetchError('too many redirects');
      const next = parseUrl(res.headers.location, url);
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

function parseUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new FetchError('malformed url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError(`scheme ${url.protocol} not allowed`);
  return url;
}

/** IP-literal hosts never reach `lookup`, so they are checked here. */
function checkTarget(url: URL, allowed: (address: string) => boolean): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0 && !allowed(host)) throw new FetchError('address not allowed');
}

/** dns.lookup that refuses a name when any of its addresses is forbidden. */
function guardedLookup(allowed: (address: string) => boolean) {
  return (
    hostname: string,
    options: LookupOptions,
    callback: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (addresses.some((a) => !allowed(a.address))) return callback(new FetchError('address not allowed'), '');
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new FetchError('no address'), '');
      callback(null, first.address, first.family);
    });
  };
}

/**
 * POSTs `body` under the same rules (a webhook's delivery): the address checked at lookup, on the socket and for IP
 * literals; no redirect followed (a 3xx is an answer like any other); the answer's body read up to `maxBytes`.
 * Resolves to the status; a transport failure, a timeout or a refused address rejects with a FetchError.
 */
export async function safePost(
  url: string,
  body: string,
  headers: Record<string, string>,
  limits: Pick<FetchLimits, 'timeoutMs' | 'maxBytes' | 'allowed'>,
): Promise<number> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    const target = parseUrl(url);
    checkTarget(target, limits.allowed);
    const res = await request(target, headers, limits.allowed, signal, { method: 'POST', body });
    // The answer's body is read to let the connection end, never kept: one over the cap is cut, the status stands.
    await readCapped(res, limits.maxBytes).catch((err: unknown) => {
      if (!(err instanceof FetchError)) throw err;
    });
    return res.statusCode ?? 0;
  } catch (err) {
    throw wrap(err, signal);
  }
}

function request(
  url: URL,
  headers: Record<string, string>,
  allowed: (address: string) => boolean,
  signal: AbortSignal,
  post?: { method: 'POST'; body: string },
): Promise<IncomingMessage> {
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const base = post
      ? { 'user-agent': 'authkoa-webhooks', 'content-length': String(Buffer.byteLength(post.body)) }
      : { 'user-agent': 'authkoa-avatar', accept: 'image/*' };
    const req = mod.request(url, {
      method: post ? 'POST' : 'GET',
      agent: false, // no pooled sockets: each hop connects, and so is checked, afresh
      lookup: guardedLookup(allowed),
      headers: { ...base, ...headers },
      signal,
    });
    const verify = (socket: Socket) => {
      const addr = socket.remoteAddress;
      if (!addr || !allowed(addr)) req.destroy(new FetchError('address not allowed'));
    };
    req.once('socket', (socket) => socket.once('connect', () => verify(socket)));
    req.once('response', (res) => {
      verify(res.socket); // belt and braces: what we actually talk to
      if (req.destroyed) return res.destroy();
      resolve(res);
    });
    req.on('error', reject); // 'on': a late second error must not go unhandled
    req.end(post?.body);
  });
}

async function readCapped(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(res.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    res.destroy();
    throw new FetchError('body over the byte cap');
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of res) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      res.destroy();
      throw new FetchError('body over the byte cap');
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

function wrap(err: unknown, signal: AbortSignal): FetchError {
  if (err instanceof FetchError) return err;
  if (signal.aborted) return new FetchError('timeout', { cause: err });
  const code = (err as NodeJS.ErrnoException).code;
  // A lookup refusal surfaces wrapped by net; keep its reason.
  if ((err as { cause?: unknown }).cause instanceof FetchError) return (err as { cause: FetchError }).cause;
  return new FetchError(code ? `transport ${code}` : 'transport error', { cause: err });
}
