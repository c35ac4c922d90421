import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';

/**
 * Outbound requests to a URL someone else chose (a user's picture, a webhook endpoint, a Shared Signals receiver, a
 * client's back-channel logout URI), under SSRF rules: http(s) only; the address checked when the socket resolves (a
 * custom `lookup`, so DNS rebinding between a check and the connect cannot slip through), again on the connected
 * socket, and for IP literals (which skip lookup) before connecting; a time limit and a byte cap on the answer.
 * `safePost` is the whole of a POST, `safeGet` of a GET that follows no redirect (a client's metadata document); the
 * avatar's picture fetch (avatar/fetch.ts) builds its redirects and retries on the same pieces.
 */

/** Limits of one request. */
export interface RequestLimits {
  /** The whole request (redirects included, where they are followed), in ms. */
  timeoutMs: number;
  /** Body cap in bytes. */
  maxBytes: number;
  /** Which connected addresses are acceptable (see address-policy.ts). */
  allowed: (address: string) => boolean;
}

/**
 * Trust anchors for https in place of the process's own (which include NODE_EXTRA_CA_CERTS): only tests set it,
 * with a throwaway CA, since NODE_EXTRA_CA_CERTS is read once when the process starts.
 */
export interface TlsTrust {
  ca?: string | string[];
}

/** Why a request was refused or failed; `reason` is short and safe to log (no URL, no token). */
export class FetchError extends Error {
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
    this.name = 'FetchError';
  }
}

/** `text` (against `base`) as an http(s) URL; a FetchError otherwise. */
export function parseTarget(text: string, base?: URL): URL {
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
export function checkTarget(url: URL, allowed: (address: string) => boolean): void {
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
 * One request to `url` (already checked by checkTarget) with exactly `headers`, its address checked at lookup and on
 * the socket; resolves to the response, its body not read yet.
 */
export function guardedRequest(
  url: URL,
  headers: Record<string, string>,
  allowed: (address: string) => boolean,
  signal: AbortSignal,
  post?: { method: 'POST'; body: string },
  tls?: TlsTrust,
): Promise<IncomingMessage> {
  const secure = url.protocol === 'https:';
  const mod = secure ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(url, {
      method: post ? 'POST' : 'GET',
      agent: false, // no pooled sockets: each hop connects, and so is checked, afresh
      lookup: guardedLookup(allowed),
      headers,
      signal,
      ...(secure && tls?.ca ? { ca: tls.ca } : {}),
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

/** The response's body; over `maxBytes` (declared or read) the response is cut and a FetchError thrown. */
export async function readCapped(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
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

/** Any failure of a request as a FetchError: a timeout, a refused address, a transport error by its code. */
export function requestError(err: unknown, signal: AbortSignal): FetchError {
  if (err instanceof FetchError) return err;
  if (signal.aborted) return new FetchError('timeout', { cause: err });
  const code = (err as NodeJS.ErrnoException).code;
  // A lookup refusal surfaces wrapped by net; keep its reason.
  if ((err as { cause?: unknown }).cause instanceof FetchError) return (err as { cause: FetchError }).cause;
  return new FetchError(code ? `transport ${code}` : 'transport error', { cause: err });
}

/**
 * POSTs `body` under the rules above (a webhook's delivery, a Shared Signals push, a back-channel logout): no redirect
 * followed (a 3xx is an answer like any other); the answer's body read up to `maxBytes`. `headers` go on top of a
 * `user-agent: authkoa` and the body's length. Resolves to the status; a transport failure, a timeout or a refused
 * address rejects with a FetchError.
 */
export async function safePost(
  url: string,
  body: string,
  headers: Record<string, string>,
  limits: RequestLimits,
): Promise<number> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    const target = parseTarget(url);
    checkTarget(target, limits.allowed);
    const sent = { 'user-agent': 'authkoa', 'content-length': String(Buffer.byteLength(body)), ...headers };
    const res = await guardedRequest(target, sent, limits.allowed, signal, { method: 'POST', body });
    // The answer's body is read to let the connection end, never kept: one over the cap is cut, the status stands.
    await readCapped(res, limits.maxBytes).catch((err: unknown) => {
      if (!(err instanceof FetchError)) throw err;
    });
    return res.statusCode ?? 0;
  } catch (err) {
    throw requestError(err, signal);
  }
}

/** What a GET answered: its status, its headers and its body, read whole up to the cap. */
export interface FetchedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * GETs `url` under the rules above: no redirect followed (a 3xx is answered like any other status, for the caller to
 * refuse), the body read up to `maxBytes` (over it: a FetchError, since a cut document is no document). `headers`
 * go on top of a `user-agent: authkoa`. A transport failure, a timeout or a refused address rejects with a
 * FetchError; `tls` replaces the process's trust anchors (tests).
 */
export async function safeGet(
  url: string,
  headers: Record<string, string>,
  limits: RequestLimits,
  tls?: TlsTrust,
): Promise<FetchedResponse> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    const target = parseTarget(url);
    checkTarget(target, limits.allowed);
    const res = await guardedRequest(
      target,
      { 'user-agent': 'authkoa', ...headers },
      limits.allowed,
      signal,
      undefined,
      tls,
    );
    const body = await readCapped(res, limits.maxBytes);
    return { status: res.statusCode ?? 0, headers: res.headers, body };
  } catch (err) {
    throw requestError(err, signal);
  }
}
