import type { ResolvedOptions } from '../options/resolved.js';
import type { Provider } from '../providers/core/contract.js';
import { openApiDocument, type OpenAPIDocument } from './document.js';
import type { ProviderRoutes } from './paths.js';

/** The document of a running instance: what its options turn on, and its providers as built. */
export function describe(o: ResolvedOptions, providers: readonly Provider[]): OpenAPIDocument {
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
      jwks: o.signing !== undefined,
      mfa: o.mfa !== undefined,
    },
    routes,
  );
}
