import { resolveOptions } from '../options/resolve.js';
import type { ResolvedOptions } from '../options/resolved.js';
import type { AuthKoaOptions } from '../options/types.js';
import { BUILT_IN_OPTIONS, readBuiltInOptions } from './features.js';

/** authKoa()'s options checked in one pass: the service's own, then the built-in features' by the feature table. */
export function resolveAuthKoaOptions(opts: AuthKoaOptions): ResolvedOptions {
  return resolveOptions(opts, { options: BUILT_IN_OPTIONS, read: readBuiltInOptions });
}
