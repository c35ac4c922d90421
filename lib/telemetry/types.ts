/**
 * What authkoa's modules see of OpenTelemetry: authkoa's own narrow interface, so no public type names
 * `@opentelemetry/api`'s and nothing of it loads unless it is installed and on (see instance.ts).
 */

/** Span attributes: OpenTelemetry's primitive values. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** An outbound HTTP call as a client span sees it. */
export interface ClientCall {
  method: string;
  url: string | URL;
  /**
   * What the call is, for the span's `authkoa.call` attribute: `token`, `userinfo`, `avatar`, `telegram`, `jwks`, …
   */
  what: string;
}

export interface Tracing {
  /** Whether spans and metrics are recorded: a caller may skip building attributes when not. */
  readonly on: boolean;
  /** Runs `fn` in an active internal span `name`; an error is recorded on it and rethrown. */
  span<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>): Promise<T>;
  /**
   * Runs an outbound call in a client span named by its method (HTTP semantic conventions:
   * `http.request.method`, `url.full` without query and with a bot token redacted, `server.address`,
   * `server.port`, `http.response.status_code` through `status`, `error.type`).
   */
  client<T>(call: ClientCall, fn: (status: (code: number) => void) => Promise<T>): Promise<T>;
  /** One token verification: a cache hit or a signature check, and whether it was accepted. */
  verified(cacheHit: boolean, accepted: boolean, source: string): void;
  /** One state-store operation: its duration in ms and whether it failed. */
  storeOperation(operation: string, ms: number, failed: boolean): void;
}

/** Tracing that records nothing: what every module holds until start-up found OpenTelemetry. */
export const noTracing: Tracing = {
  on: false,
  span: (_name, _attributes, fn) => fn(),
  client: (_call, fn) => fn(() => {}),
  verified: () => {},
  storeOperation: () => {},
};

/** `pending`, a token's signature check (not a cache hit), counted as a verification when it settles. */
export function signatureChecked<T>(tracing: Tracing, source: string, pending: Promise<T>): Promise<T> {
  return pending.then(
    (value) => {
      tracing.verified(false, true, source);
      return value;
    },
    (err: unknown) => {
      tracing.verified(false, false, source);
      throw err;
    },
  );
}
