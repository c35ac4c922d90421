/** The JSON value of a response body's text, or undefined when it is empty or not JSON (the caller decides what that means). */
export function jsonOrUndefined(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The message and code of a refusal with body `data`: the server's `{ error, code }`, else `HTTP <status>`
 * and `http_error` (a proxy's page, an empty body). Each helper wraps them in its own error class.
 */
export function errorParts(status: number, data: unknown): { message: string; code: string } {
  const body = (data && typeof data === 'object' ? data : {}) as { error?: unknown; code?: unknown };
  return { message: typeof body.error === 'string' ? body.error : `HTTP ${status}`, code: typeof body.code === 'string' ? body.code : 'http_error' };
}
