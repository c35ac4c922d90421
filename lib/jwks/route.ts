import type Router from '@koa/router';
import { AuthError } from '../errors.js';
import { writeJSON } from '../http/respond.js';
import type { PublicJwk } from '../session/signing.js';

/**
 * How long verifiers and caches may keep the key set: short enough that a new key is seen within minutes of a rotation.
 */
export const JWKS_MAX_AGE_S = 300;

/**
 * `GET <authRoutePath>/.well-known/jwks.json`: the public keys of the `signing` option (the current one
 * first, then the previous ones), for other services to verify session tokens with. 404 without keys.
 */
export function mountJwksRoute(router: Router, body: { keys: PublicJwk[] } | undefined): void {
  router.get('/.well-known/jwks.json', (ctx) => {
    if (!body) throw new AuthError('not_found', 'no public keys: the signing option is not set');
    ctx.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE_S}`);
    ctx.set('Access-Control-Allow-Origin', '*');
    writeJSON(ctx, 200, body);
  });
}
