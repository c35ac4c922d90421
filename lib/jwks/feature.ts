import type { FeatureModule } from '../features/contract.js';
import type { SigningConfig } from '../session/signing.js';

/**
 * The key set (docs/verify.md) as a feature: `GET <authRoutePath>/.well-known/jwks.json`, the public keys
 * of the `signing` option; 404 without keys (the route is always there, described only with keys).
 */
export function jwksFeature(authRoutePath: string, signing: SigningConfig | undefined): FeatureModule {
  return {
    name: 'jwks',
    prefix: '/.well-known',
    async create() {
      const [{ default: Router }, { mountJwksRoute }] = await Promise.all([
        import('@koa/router'),
        import('../session/jwks-route.js'),
      ]);
      const router = new Router({ prefix: authRoutePath });
      mountJwksRoute(router, signing);
      return {
        routes: router.routes() as never,
        openapi: async () => ({
          paths: signing ? (await import('./openapi.js')).jwksPaths() : {},
          tags: { keys: 'The public keys session tokens are signed with' },
        }),
      };
    },
  };
}
