import type { Provider } from '../providers/core/contract.js';
import { openApiDocument, type FeatureDocs, type OpenAPIConfig, type OpenAPIDocument } from './document.js';
import type { ProviderRoutes } from './paths.js';

/** The document of a running instance: what its options turn on (`config`), and its providers as built. */
export function describe(
  config: OpenAPIConfig,
  providers: readonly Provider[],
  features: FeatureDocs,
): OpenAPIDocument {
  const routes: ProviderRoutes[] = providers.map((p) => ({
    name: p.name,
    kind: p.kind ?? 'custom',
    callback: typeof p.callback === 'function',
    actions: Object.keys(p.actions ?? {}),
    docs: p.routeDocs,
  }));
  return openApiDocument(config, routes, features);
}
