import type { AnyProviderModule } from '../providers/core/contract.js';
import type { CapabilityName, FeatureCapabilities } from './capabilities.js';
import type { FeatureModule } from './contract.js';

/**
 * A built-in feature as its folder describes it to the feature table (core/features.ts), from its `index.ts`:
 * the option that turns it on and how that option is read, the events it declares, the instance's shortcut to its
 * admin API, the provider kinds it brings, the capabilities it needs, and how it is made. The table is an array of
 * these, and every list of built-ins (the option names, the readers, the events, the shortcuts, the kinds, the
 * configured set) is a loop over it: adding a built-in is a folder and a line there.
 */
export interface BuiltInFeature<C = unknown, N extends CapabilityName = CapabilityName, O extends string = never> {
  /** Its feature name (`auth.features.get(name)`); also the shortcut's, `auth.<name>`, unless `shortcutMember`. */
  readonly name: string;
  /** The authKoa() option that turns it on; without one it is always on (the session list, the key set). */
  readonly option?: O;
  /** Checks that option in authKoa()'s one validation pass (a TypeError naming it); undefined when not set. */
  readonly read?: (input: unknown, context: BuiltInOptionsContext) => C | undefined;
  /** Its event types: `auth.on()` takes them whether or not the option is set. */
  readonly events?: readonly string[];
  /**
   * The methods of its admin API the instance offers as `auth.<name>.<method>` (undefined when it is off); a dotted
   * one is a method of one of its members (`clients.list`: `auth.<name>.clients.list`).
   */
  readonly shortcut?: readonly string[];
  /**
   * The shortcut's member of the instance when it is not the feature's name, which is lowercase: `authorizationServer`
   * for `authorization-server`.
   */
  readonly shortcutMember?: string;
  /**
   * Methods of its admin API the instance adds to one of its own members (`auth.tokens.list`, beside the core's
   * `auth.tokens.get`): with the option off they reject with a TypeError naming it.
   */
  readonly joins?: { readonly member: string; readonly methods: readonly string[] };
  /** Provider kinds it brings (the accounts' `password`), each loaded when a configuration first uses it. */
  readonly kinds?: Readonly<Record<string, () => Promise<AnyProviderModule>>>;
  /** The capabilities it asks for, beyond the FeatureContext every feature gets. */
  readonly needs: readonly N[];
  /** The feature of one configuration: its checked option (undefined for one always on) and what it asked for. */
  module(config: C, has: Pick<FeatureCapabilities, N>): FeatureModule;
}

/** What a built-in's option reader gets: the options authKoa() read before the features'. */
export interface BuiltInOptionsContext {
  /** The public base URL. */
  readonly url: string;
  readonly authRoutePath: string;
  /** The `secret` option (a second factor's keys derive from it by default); undefined when a secretReader decides. */
  readonly staticSecret: string | undefined;
  readonly previousSecrets: string[];
  /** `allowVolatileStores`: a memory store may hold durable data. */
  readonly allowVolatileStores: boolean;
  /** `stateStore` as given. */
  readonly stateStore: unknown;
  /** Whether an option of authKoa() is set (personal tokens need `accounts`, Shared Signals `signing`). */
  isSet(option: string): boolean;
}

/** A built-in of any configuration, as the table holds them. */
export type AnyBuiltIn = BuiltInFeature<never, CapabilityName, string>;

/** Declares a built-in with its types checked: its `module` gets exactly the capabilities its `needs` name. */
export function builtIn<C, N extends CapabilityName, O extends string = never>(
  d: BuiltInFeature<C, N, O>,
): BuiltInFeature<C, N, O> {
  return d;
}
