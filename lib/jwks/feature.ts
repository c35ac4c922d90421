import type { FeatureCapabilities } from '../features/capabilities.js';
import type { FeatureModule } from '../features/contract.js';

/**
 * The key set (docs/verify.md) as a feature: `GET <authRoutePath>/.well-known/jwks.json`, the public keys
 * of the `signing` option; 404 without keys (the route is always there, described only with keys).
 */
export function jwksFeature(has: Pick<FeatureCapabilities, 'publicKeys'>): FeatureModule {
  return {
    name: 'jwks',
    prefix: '/.well-known',
    async create(_options, context) {
      const [{ default: Router }, { mountJwksRoute }] = await Promise.all([
        import('@koa/router'),
        import('./route.js'),
      ]);
      const router = new Router({ prefix: context.authRoutePath });
      mountJwksRoute(router, has.publicKeys);
      return {
        routes: router.routes() as never,
        openapi: async () => ({
          paths: has.publicKeys ? (await import('./openapi.js')).jwksPaths() : {},
          tags: { keys: 'The public keys session tokens are signed with' },
        }),
      };
    },
  };
}
