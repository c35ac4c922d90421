/**
 * Outbound HTTP with the two limits every call to a third party needs (DESIGN: "every outbound HTTP
 * call has a timeout and a size limit"): one deadline covering connect, headers and body, and a cap
 * on the body size that stops reading as soon as it is passed. A provider that hangs or streams
 * garbage therefore costs at most `timeoutMs` and `maxBytes`, never a stuck request or a full heap.
 */

import type { Tracing } from '../telemetry/types.js';

/** Default deadline for one outbound call. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Default cap on a response body: 1 MiB is far above any token, user-info, discovery or JWKS answer. */
export const DEFAULT_MAX_BYTES = 1024 * 1024;

export interface HttpRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Deadline for the whole call in ms (default 10 s). */
  timeoutMs?: number;
  /** Largest body accepted in bytes (default 1 MiB). */
  maxBytes?: number;
  /** Abandons the call early (the caller is closing); a network error then. */
  signal?: AbortSignal;
  /** Records the call as a client span (OpenTelemetry, when the instance has it), named by `what`. */
  tracing?: { tracing: Tracing; what: string };
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** Why an outbound call failed before a complete response was read. */
export type HttpFailure = 'timeout' | 'too_large' | 'network';

/** A call that produced no usable response; `reason` tells a slow peer from a broken one. */
export class HttpError extends Error {
  constructor(
    readonly reason: HttpFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HttpError';
  }
}

/**
 * Performs one request and reads the whole body under the limits. Redirects are not followed: a
 * bearer token must never travel to a host the configuration did not name. Any status is returned;
 * the caller decides what a non-2xx means.
 */
export async function request(url: string, req: HttpRequest = {}): Promise<HttpResponse> {
  const t = req.tracing;
  if (!t?.tracing.on) return send(url, req);
  return t.tracing.client({ method: req.method ?? 'GET', url, what: t.what }, async (status) => {
    const res = await send(url, req);
    status(res.status);
    return res;
  });
}

async function send(url: string, req: HttpRequest): Promise<HttpResponse> {
  const timeoutMs = req.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = req.maxBytes ?? DEFAULT_MAX_BYTES;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const abandon = () => controller.abort();
  if (req.signal?.aborted) abandon();
  req.signal?.addEventListener('abort', abandon, { once: true });
  try {
    let res: Response;
    try {
      res = await fetch(url, {
        method: req.method ?? 'GET',
        headers: req.headers,
        body: req.body,
        redirect: 'manual',
        signal: controller.signal,
      });
    } catch (err) {
      throw timedOut
        ? timeoutError(timeoutMs, err)
        : new HttpError('network', `request failed: ${(err as Error).message}`, { cause: err });
    }
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      controller.abort();
      throw new HttpError('too_large', `response body of ${declared} bytes exceeds ${maxBytes}`);
    }
    const body = await readCapped(res, maxBytes).catch((err) => {
      if (err instanceof HttpError) {
        controller.abort();
        throw err;
      }
      throw timedOut
        ? timeoutError(timeoutMs, err)
        : new HttpError('network', `reading the response failed: ${(err as Error).message}`, { cause: err });
    });
    return { status: res.status, headers: res.headers, body };
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', abandon);
  }
}

/**
 * A `fetch` for third-party clients that accept one (the Telegram client): redirects are not followed
 * and the body is read under `maxBytes` before the client sees it. The client keeps its own deadline,
 * which reaches the transfer through its signal.
 */
export function cappedFetch(maxBytes: number, traced?: { tracing: Tracing; what: string }): typeof fetch {
  const capped: typeof fetch = async (input, init) => {
    const res = await fetch(input, { ...init, redirect: 'manual' });
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > maxBytes) {
      await res.body?.cancel();
      throw new HttpError('too_large', `response body of ${declared} bytes exceeds ${maxBytes}`);
    }
    const body = await readCapped(res, maxBytes);
    return new Response(res.status === 204 || res.status === 304 ? null : new Uint8Array(body), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
  if (!traced) return capped;
  return (input, init) => {
    if (!traced.tracing.on) return capped(input, init);
    const url = input instanceof Request ? input.url : String(input);
    return traced.tracing.client(
      { method: init?.method ?? (input instanceof Request ? input.method : 'GET'), url, what: traced.what },
      async (status) => {
        const res = await capped(input, init);
        status(res.status);
        return res;
      },
    );
  };
}

/** Reads a body chunk by chunk, cancelling the transfer once it passes `maxBytes`. */
async function readCapped(res: Response, maxBytes: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new HttpError('too_large', `response body exceeds ${maxBytes} bytes`);
    }
    chunks.push(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
  }
  return Buffer.concat(chunks, size);
}

function timeoutError(ms: number, cause: unknown): HttpError {
  return new HttpError('timeout', `no complete answer within ${ms} ms`, { cause });
}

/** Parses a body as a JSON object; undefined when it is not one (arrays and scalars included). */
export function jsonObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(body.toString('utf8'));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
