/**
 * createAuthClient's options, checked once: a missing `baseURL` outside a browser, a value of the wrong
 * type or a misspelled option is a TypeError naming it, before any request is made.
 */
import { CookieJar } from './cookies.js';
import type { TransportConfig } from './transport.js';
import { browserWebAuthn, type WebAuthnDevice } from './webauthn.js';

export interface AuthClientOptions {
  /**
   * The app's origin, e.g. `https://app.example` (with the path the app is mounted on, if any). In a
   * browser it defaults to the page's origin; elsewhere it is required.
   */
  baseURL?: string;
  /** The auth routes' prefix (the server's `authRoutePath`). Default `/auth`. */
  authPath?: string;
  /** The cookie the XSRF token is read from. Default `XSRF-TOKEN`. */
  xsrfCookieName?: string;
  /** The header the XSRF token is sent in (the server's `xsrfHeaderName`). Default `X-XSRF-TOKEN`. */
  xsrfHeaderName?: string;
  /** Milliseconds a request may take before it rejects with `timeout`. Default 15000. */
  timeout?: number;
  /** The largest answer read, in bytes; a larger one rejects with `response_too_large`. Default 1 MiB. */
  maxResponseBytes?: number;
  /** The fetch to use. Default the global one. */
  fetch?: typeof fetch;
  /**
   * Who keeps the cookies: `'browser'` (the default where there is a `document`) or `'client'` (the
   * default elsewhere: the client keeps what the answers set and sends it back).
   */
  cookies?: 'browser' | 'client';
  /** The authenticator of the passkey calls. Default the browser's (`navigator.credentials`). */
  webauthn?: WebAuthnDevice;
}

/** The options once checked, defaults filled in. */
export interface ClientConfig {
  transport: TransportConfig;
  authPath: string;
  webauthn: WebAuthnDevice;
}

const KNOWN = [
  'baseURL',
  'authPath',
  'xsrfCookieName',
  'xsrfHeaderName',
  'timeout',
  'maxResponseBytes',
  'fetch',
  'cookies',
  'webauthn',
] as const;

export function clientConfig(options: AuthClientOptions): ClientConfig {
  if (!options || typeof options !== 'object')
    throw new TypeError(
      'createAuthClient(options): options must be an object, e.g. { baseURL: "https://app.example" }',
    );
  for (const key of Object.keys(options)) {
    if (!(KNOWN as readonly string[]).includes(key))
      throw new TypeError(`createAuthClient: unknown option "${key}"${suggest(key)}`);
  }
  const inBrowser = typeof document !== 'undefined' && typeof location !== 'undefined';
  const baseURL = options.baseURL ?? (inBrowser ? location.origin : undefined);
  if (typeof baseURL !== 'string' || !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(baseURL)) {
    throw new TypeError(
      `createAuthClient: baseURL must be the app's http(s) origin, e.g. "https://app.example"${baseURL === undefined ? ' (required outside a browser)' : `, not ${JSON.stringify(baseURL)}`}`,
    );
  }
  const authPath = options.authPath ?? '/auth';
  if (typeof authPath !== 'string' || !authPath.startsWith('/'))
    throw new TypeError('createAuthClient: authPath must be a path starting with "/", e.g. "/auth"');
  const cookies = options.cookies ?? (inBrowser ? 'browser' : 'client');
  if (cookies !== 'browser' && cookies !== 'client')
    throw new TypeError('createAuthClient: cookies must be "browser" or "client"');
  const fetchFn = options.fetch ?? (typeof fetch === 'function' ? fetch.bind(globalThis) : undefined);
  if (typeof fetchFn !== 'function')
    throw new TypeError('createAuthClient: fetch must be a function (there is no global fetch here)');
  return {
    authPath: authPath.replace(/\/+$/, ''),
    webauthn: options.webauthn ?? browserWebAuthn,
    transport: {
      baseURL: baseURL.replace(/\/+$/, ''),
      xsrfCookieName: text(options.xsrfCookieName, 'xsrfCookieName', 'XSRF-TOKEN'),
      xsrfHeaderName: text(options.xsrfHeaderName, 'xsrfHeaderName', 'X-XSRF-TOKEN'),
      timeout: positive(options.timeout, 'timeout', 15_000),
      maxResponseBytes: positive(options.maxResponseBytes, 'maxResponseBytes', 1 << 20),
      fetch: fetchFn,
      jar: cookies === 'client' ? new CookieJar() : undefined,
    },
  };
}

function text(value: unknown, name: string, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value === '')
    throw new TypeError(`createAuthClient: ${name} must be a non-empty string`);
  return value;
}

function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new TypeError(`createAuthClient: ${name} must be a positive number`);
  return value;
}

/** ` (did you mean "baseURL"?)` for a known option that differs only in case or by a letter or two. */
function suggest(key: string): string {
  const close = KNOWN.find(
    (k) => k.toLowerCase() === key.toLowerCase() || distance(k.toLowerCase(), key.toLowerCase()) <= 2,
  );
  return close ? ` (did you mean "${close}"?)` : `; the options are ${KNOWN.join(', ')}`;
}

function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}
