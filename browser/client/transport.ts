/**
 * One request of the client to the app: the URL under `baseURL`, the cookies (the browser's, or the
 * client's own jar where there is no `document`), the XSRF header copied from the `XSRF-TOKEN` cookie,
 * a JSON body, a timeout and a cap on the answer's size, and the answer read as JSON. A refusal becomes
 * an AuthClientError with its code; a redirect is handed back, not followed (a login that ends in one
 * has set its cookies already, and following it would fetch the next page's HTML).
 */
import { CookieJar, readCookie } from './cookies.js';
import { AuthClientError, answerError } from './errors.js';

/** What every request of one client shares, checked by createAuthClient. */
export interface TransportConfig {
  /** The app's origin (and the path it is mounted on, if any), without a trailing slash. */
  baseURL: string;
  xsrfCookieName: string;
  xsrfHeaderName: string;
  timeout: number;
  maxResponseBytes: number;
  fetch: typeof fetch;
  /** The client's own cookies; undefined in a browser, which keeps them. */
  jar?: CookieJar;
}

/** An answer: its status, its JSON body (undefined when empty), and where a redirect points. */
export interface Answer {
  status: number;
  body: unknown;
  /** A redirect's target; null in a browser, which hides it (an opaque redirect). */
  redirect?: string | null;
}

export interface RequestInit {
  body?: unknown;
  query?: Record<string, string | undefined>;
  signal?: AbortSignal;
}

export class Transport {
  constructor(readonly config: TransportConfig) {}

  /** The absolute URL of `path` (which starts with `/`) under the base, with `query` (undefined values left out). */
  url(path: string, query: Record<string, string | undefined> = {}): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
    const search = params.toString();
    return this.config.baseURL + path + (search ? `?${search}` : '');
  }

  async request(method: string, path: string, init: RequestInit = {}): Promise<Answer> {
    const url = this.url(path, init.query);
    const headers = this.#headers(url, {
      accept: 'application/json',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    });
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    return this.#timed(url, init.signal, async (signal) => {
      const answer = await this.#read(await this.#fetch(url, { method, headers, body, signal }), url, signal);
      if (answer.status >= 400) throw answerError(answer.status, answer.body);
      return answer;
    });
  }

  /**
   * Any request to the app as this client (its cookies and XSRF header added), answered as fetch answers:
   * the timeout runs until the answer's headers arrive; the body is the caller's to read.
   */
  async raw(path: string, init: globalThis.RequestInit = {}): Promise<Response> {
    const url = this.url(path);
    return this.#timed(url, init.signal ?? undefined, (signal) =>
      this.#fetch(url, { ...init, headers: this.#headers(url, init.headers), signal }),
    );
  }

  /** `work` under the client's timeout and the caller's signal; a failure becomes `timeout` or `network_error` (an AuthClientError passes). */
  async #timed<T>(url: string, outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const timeout = timeoutSignal(this.config.timeout, outer);
    try {
      return await work(timeout.signal);
    } catch (err) {
      throw timeout.expired()
        ? new AuthClientError(`no answer from ${url} within ${this.config.timeout} ms`, 'timeout', 0, { cause: err })
        : fetchFailure(err, url);
    } finally {
      timeout.clear();
    }
  }

  /** `given`, and what every request carries: the XSRF token and, without a browser, the jar's cookies for the URL. */
  #headers(url: string, given: HeadersInit = {}): Headers {
    const headers = new Headers(given);
    const target = new URL(url);
    const xsrf = this.#xsrfToken(target);
    if (xsrf !== undefined && !headers.has(this.config.xsrfHeaderName)) headers.set(this.config.xsrfHeaderName, xsrf);
    const cookie = this.config.jar?.header(target);
    if (cookie && !headers.has('cookie')) headers.set('cookie', cookie);
    return headers;
  }

  /** The fetch itself: the browser's cookies go along, redirects come back unfollowed, Set-Cookie lands in the jar. */
  async #fetch(url: string, init: globalThis.RequestInit): Promise<Response> {
    const res = await this.config.fetch(url, { ...init, credentials: 'include', redirect: 'manual' });
    this.config.jar?.store(setCookies(res.headers), new URL(url));
    return res;
  }

  /** The XSRF token a page script would copy: from `document.cookie` in a browser, else from the jar. */
  #xsrfToken(url: URL): string | undefined {
    const { jar, xsrfCookieName } = this.config;
    if (jar) return jar.get(xsrfCookieName, url);
    return readCookie(typeof document !== 'undefined' ? document.cookie : '', xsrfCookieName);
  }

  async #read(res: Response, url: string, signal: AbortSignal): Promise<Answer> {
    if (res.type === 'opaqueredirect') return { status: 303, body: undefined, redirect: null };
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      return { status: res.status, body: undefined, redirect: res.headers.get('location') };
    }
    const text = await readCapped(res, this.config.maxResponseBytes, url, signal);
    const type = (res.headers.get('content-type') ?? '').split(';')[0].trim();
    if (text === '') return { status: res.status, body: undefined };
    if (type !== 'application/json') {
      // A refusal in another format (a proxy's page, Koa's plain-text 404) is still a refusal.
      if (res.status >= 400) return { status: res.status, body: undefined };
      throw new AuthClientError(
        `${url} answered ${type || 'no content type'}, not JSON`,
        'invalid_response',
        res.status,
      );
    }
    try {
      return { status: res.status, body: JSON.parse(text) };
    } catch (err) {
      throw new AuthClientError(`${url} answered JSON that does not parse`, 'invalid_response', res.status, {
        cause: err,
      });
    }
  }
}

/** The body as text, refused past `max` bytes (read in chunks, so a huge answer is not held first). */
async function readCapped(res: Response, max: number, url: string, signal: AbortSignal): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new AuthClientError(`${url} answered more than ${max} bytes`, 'response_too_large', res.status);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/** An AuthClientError passes; the caller's own abort stays an AbortError; anything else is `network_error`. */
function fetchFailure(err: unknown, url: string): unknown {
  if (err instanceof AuthClientError) return err;
  if (err instanceof Error && err.name === 'AbortError') return err;
  return new AuthClientError(
    `no answer from ${url}: ${err instanceof Error ? err.message : String(err)}`,
    'network_error',
    0,
    { cause: err },
  );
}

/** The request's signal: the caller's, and the client's timeout. `expired()` tells the timeout apart. */
function timeoutSignal(ms: number, outer: AbortSignal | undefined) {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException('timed out', 'TimeoutError'));
  }, ms);
  const onAbort = () => controller.abort(outer!.reason);
  if (outer?.aborted) onAbort();
  else outer?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    expired: () => expired,
    clear() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    },
  };
}

/** The Set-Cookie lines of an answer (Node's fetch gives each; a browser shows none to scripts). */
function setCookies(headers: Headers): string[] {
  const h = headers as Headers & { getSetCookie?: () => string[] };
  return typeof h.getSetCookie === 'function' ? h.getSetCookie() : [];
}
