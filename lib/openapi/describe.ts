import type { ResolvedOptions } from '../options/resolved.js';
import type { Provider } from '../providers/core/contract.js';
import { openApiDocument, type FeatureDocs, type OpenAPIDocument } from './document.js';
import type { ProviderRoutes } from './paths.js';

/** The document of a running instance: what its options turn on, and its providers as built. */
export function describe(o: ResolvedOptions, providers: readonly Provider[], features: FeatureDocs): OpenAPIDocument {
  const routes: ProviderRoutes[] = providers.map((p) => ({
    name: p.name,
    kind: p.kind ?? 'custom',
    callback: typeof p.callback === 'function',
    actions: Object.keys(p.actions ?? {}),
    docs: p.routeDocs,
  }));
  return openApiDocument(
    {
      url: o.url,
      authRoutePath: o.authRoutePath,
      avatarRoutePath: o.avatarRoutePath,
      jwtCookieName: o.jwtCookieName,
      xsrfHeaderName: o.xsrfHeaderName,
      jwtHeaderName: o.jwtHeaderName,
      jwtQueryName: o.jwtQueryName,
      basic: o.basicAuthChecker !== undefined || o.adminPasswd !== undefined,
      avatars: o.avatarStore !== undefined,
    },
    routes,
    features,
  );
}
