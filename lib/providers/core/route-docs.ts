/**
 * Pieces of the OpenAPI operation objects kinds declare (Provider.routeDocs) and the generic provider
 * routes share: plain JSON, no OpenAPI code.
 */

/**
 * A redirect: its Location, and the short body Koa writes with it (`Redirecting to …`, HTML for a
 * browser, plain text otherwise).
 */
export function redirectDoc(description: string): Record<string, unknown> {
  return {
    description,
    headers: { Location: { schema: { type: 'string' } } },
    content: { 'text/html': { schema: { type: 'string' } }, 'text/plain': { schema: { type: 'string' } } },
  };
}

/**
 * The empty answer of a logout or a kept-for-compatibility callback: 200 with a zero-length text/plain
 * body (Koa still sends the type), so a client that reads the body gets '' and nothing else.
 */
export function emptyTextDoc(description: string): Record<string, unknown> {
  return { description, content: { 'text/plain': { schema: { type: 'string', maxLength: 0 } } } };
}
