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

/**
 * The security requirement of an operation that needs the user's session: any one of the session cookie
 * with its XSRF header, the `X-JWT` header, the `token` query (the document's security schemes). Basic
 * auth is not one of them: a password alone never passed the user's second factor, so routes that
 * manage factors, sessions or credentials refuse it. A kind's routeDocs say `security: SESSION_SECURITY`
 * for such a route; a route that declares no `security` is public (`security: []`).
 */
export const SESSION_SECURITY: ReadonlyArray<Readonly<Record<string, readonly string[]>>> = [
  { jwtCookie: [], xsrfHeader: [] },
  { jwtHeader: [] },
  { jwtQuery: [] },
];
