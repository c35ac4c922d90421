import { builtIn } from '../features/built-in.js';
import { jwksFeature } from './feature.js';

/** The key set, always on (404 without `signing`): the feature table's row (core/features.ts). */
export const jwks = builtIn({
  name: 'jwks',
  needs: ['publicKeys'],
  module: (_config: undefined, has) => jwksFeature(has),
});
