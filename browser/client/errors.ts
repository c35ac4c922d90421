import type { ErrorCode } from './schema.js';

/**
 * What went wrong on the client's side, where the server gave no code: the request never got an answer
 * (`network_error`, `timeout`), the answer was not what the route answers (`invalid_response`,
 * `response_too_large`, `http_error` for a refusal without authkoa's error body), or the browser cannot
 * do it (`unsupported`, `no_credential` for passkeys).
 */
export type ClientErrorCode =
  | 'network_error'
  | 'timeout'
  | 'invalid_response'
  | 'response_too_large'
  | 'http_error'
  | 'unsupported'
  | 'no_credential';

/**
 * Every refusal the client rejects with: `code` is the server's (one of authkoa's error codes, see
 * docs/tokens.md) or one of the client's own, `status` the HTTP status (0 when no answer came),
 * `message` the server's `error` text. Branch on `code`, never on the message.
 */
export class AuthClientError extends Error {
  readonly code: ErrorCode | ClientErrorCode;
  readonly status: number;

  constructor(message: string, code: ErrorCode | ClientErrorCode, status: number, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuthClientError';
    this.code = code;
    this.status = status;
  }
}

/**
 * The error for a non-2xx answer: the server's `{ error, code }` when the body is one, else `HTTP <status>`
 * and `http_error` (a proxy's page, an empty body).
 */
export function answerError(status: number, body: unknown): AuthClientError {
  const b = (body && typeof body === 'object' ? body : {}) as { error?: unknown; code?: unknown };
  const message = typeof b.error === 'string' ? b.error : `HTTP ${status}`;
  const code = typeof b.code === 'string' ? (b.code as ErrorCode) : 'http_error';
  return new AuthClientError(message, code, status);
}
