import type { ProviderCapability, ProviderModule, ProviderOptions } from './providers/core/contract.js';
import { FEATURE_KINDS } from './core/features.js';
import { providerKinds } from './providers/core/kinds.js';
import { stateSchemes, type StateStoreOpener } from './state/schemes.js';
import { storeSchemes, type StoreOpener } from './avatar/stores/schemes.js';
import { schemeName } from './util/scheme-table.js';

export type { Provider, ProviderEntry, ProviderOptions } from './providers/core/contract.js';
export type {
  KindTokens,
  ProviderCapabilities,
  ProviderCapability,
  ProviderDeps,
  ProviderDepsWith,
  ProviderModule,
} from './providers/core/contract.js';
export type { StoreOpener } from './avatar/stores/schemes.js';
export type { StateStoreOpener } from './state/schemes.js';

/**
 * Where applications and plug-ins add to authkoa's three plug-in points: provider kinds, avatar-store
 * schemes and state-store schemes. Each is a table of name → lazy loader kept beside what it loads
 * (providers/core/kinds.ts, stores/schemes.ts, state/schemes.ts); built-in rows are dynamic imports, so a kind
 * or a backend is loaded the first time a configuration names it and never otherwise. Nothing here runs
 * at import.
 */

/**
 * Adds a provider kind: `{ kind, needs?, create(opts, deps) }`. Kinds are code, shared by every authKoa()
 * instance in the process; providers are not. Registering the same module again is harmless.
 */
export function registerProvider<O extends ProviderOptions, N extends ProviderCapability = never>(
  module: ProviderModule<O, N>,
): void {
  if (!module || typeof module.kind !== 'string' || !module.kind || typeof module.create !== 'function') {
    throw new TypeError('registerProvider() requires { kind: string, create(opts, deps) }');
  }
  // A kind a built-in feature brings (the accounts' `password`) is built in too: the feature's entries would shadow it.
  if (Object.hasOwn(FEATURE_KINDS, module.kind))
    throw new TypeError(`registerProvider(): provider kind "${module.kind}" is built in and cannot be replaced`);
  providerKinds.add(module.kind, module);
}

/**
 * Adds an avatar-store scheme: `registerStore('s3', (uri) => new S3Store(uri))` makes
 * `avatarStore: 's3://bucket/prefix'` (and `authctl avatars … --require`) open one.
 */
export function registerStore(scheme: string, open: StoreOpener): void {
  const name = schemeName('registerStore()', scheme);
  if (typeof open !== 'function') throw new TypeError('registerStore() requires an open(uri) function');
  storeSchemes.add(name, open);
}

/**
 * Adds a state-store scheme: `registerStateStore('etcd', (uri, { clock }) => …)` makes
 * `stateStore: 'etcd://…'` open one.
 */
export function registerStateStore(scheme: string, open: StateStoreOpener): void {
  const name = schemeName('registerStateStore()', scheme);
  if (typeof open !== 'function') throw new TypeError('registerStateStore() requires an open(uri, options) function');
  stateSchemes.add(name, open);
}
