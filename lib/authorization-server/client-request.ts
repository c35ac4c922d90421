import type { Context } from 'koa';
import { firstValues, json, readFormParams } from '../providers/oauth2-server/http.js';
import type { OAuthClient } from './clients/index.js';
import type { ServerParts } from './parts.js';

/** How large a form the token and revocation endpoints read. */
const FORM_LIMIT = 16 * 1024;

/**
 * The start of a request a client makes with credentials of its own (the token and revocation endpoints): its form,
 * read once, and the client it authenticated as (Basic, the form's secret, or none for a public one). A client that
 * fails is answered here, 401 `invalid_client` with a Basic challenge (RFC 6749 §5.2), and undefined comes back.
 */
export async function clientRequest(
  p: ServerParts,
  ctx: Context,
  realm: string,
): Promise<{ params: URLSearchParams; form: Record<string, string>; client: OAuthClient } | undefined> {
  ctx.set('Cache-Control', 'no-store');
  const params = await readFormParams(ctx, FORM_LIMIT);
  const form = firstValues(params);
  const who = await p.clients.authenticate({ authorization: ctx.get('authorization') || undefined, form });
  if ('error' in who) {
    ctx.set('WWW-Authenticate', `Basic realm="${realm}"`);
    json(ctx, 401, { error: who.error, error_description: who.description });
    return undefined;
  }
  return { params, form, client: who.client };
}
