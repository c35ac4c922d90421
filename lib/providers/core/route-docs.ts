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
