import type {
  AnyProviderModule,
  KindDeps,
  Provider,
  ProviderCapabilities,
  ProviderCapability,
  ProviderDepsWith,
  ProviderEntry,
  ProviderOptions,
  SecondFactor,
} from './contract.js';
import { builtinNames, providerKinds } from './kinds.js';
import { checkOptionNames } from '../../util/options.js';

/**
 * Turns `opts.providers` into the providers of one service. It happens in two steps so that what
 * needs no code stays synchronous: `planProviders()` checks every entry's shape and kind at once
 * (unknown kinds and misused built-in names throw in `authKoa()`), and `ProviderRegistry.build()`
 * then loads each kind's module and creates the providers, in order, behind `auth.ready`.
 */

/** Names a provider may take: safe in a URL path segment and not one of the service's own routes. */
const NAME = /^[A-Za-z0-9._~-]{1,64}$/;
const RESERVED = new Set(['list', 'user', 'status', 'logout']);

/** One entry, checked: a ready provider, or a kind with the options to create it with. */
export type ProviderPlan =
  { at: string; provider: Provider } | { at: string; kind: string; options: ProviderOptions; load: KindLoader };

/** Imports a kind's module. */
export type KindLoader = () => Promise<AnyProviderModule>;

function isProvider(entry: ProviderEntry): entry is Provider {
  return typeof (entry as Provider).login === 'function';
}

/**
 * Checks every entry without loading any provider code; throws a TypeError naming `providers[i]`. `featureKinds`
 * are the kinds the built-in features bring (the accounts' `password`), beside the provider kinds' own table.
 */
export function planProviders(
  entries: readonly ProviderEntry[],
  featureKinds: Readonly<Record<string, KindLoader>> = {},
): ProviderPlan[] {
  const loaderOf = (kind: string): KindLoader | undefined =>
    Object.hasOwn(featureKinds, kind)
      ? featureKinds[kind]
      : providerKinds.has(kind)
        ? () => providerKinds.load(kind)
        : undefined;
  const names = new Set<string>();
  return entries.map((entry, i) => {
    const at = `providers[${i}]`;
    if (!entry || typeof entry !== 'object') throw new TypeError(`authKoa: ${at} must be an object`);
    // A name given in the entry is checked now; a kind's default name is checked once it is created.
    if (typeof entry.name === 'string') {
      const name = entry.kind === undefined && !isProvider(entry) ? entry.name.toLowerCase() : entry.name;
      checkName(name, at, names);
      names.add(name);
    }
    if (isProvider(entry)) return { at, provider: checkReady(entry, at) };
    const builtin = typeof entry.name === 'string' ? builtinNames.get(entry.name.toLowerCase()) : undefined;
    let kind: string | undefined = entry.kind;
    let options = entry as ProviderOptions;
    if (kind === undefined) {
      if (typeof entry.name !== 'string')
        throw new TypeError(`authKoa: ${at} needs a kind, or the name of a built-in provider`);
      if (!builtin) {
        throw new TypeError(
          `authKoa: ${at}.name "${entry.name}" is not a built-in provider (known: ` +
            `${[...builtinNames.keys()].join(', ')}); give a kind for custom ones`,
        );
      }
      kind = builtin.kind;
      options = { ...entry, name: entry.name.toLowerCase(), ...(builtin.preset ? { preset: builtin.preset } : {}) };
    } else if (builtin && builtin.kind !== kind) {
      throw new TypeError(
        `authKoa: ${at}.name "${entry.name}" is the name of a built-in provider; a ${kind} provider needs another name`,
      );
    }
    if (typeof kind !== 'string') throw new TypeError(`authKoa: ${at}.kind must be a string`);
    const load = loaderOf(kind);
    if (!load) {
      const known = [...providerKinds.names(), ...Object.keys(featureKinds)].join(', ');
      throw new TypeError(`authKoa: ${at}.kind "${kind}" is not a known provider kind (known: ${known})`);
    }
    return { at, kind, options: { ...options, kind }, load };
  });
}

/** The providers of one service, in registration order, resolved by name. */
export class ProviderRegistry {
  private readonly byName = new Map<string, Provider>();

  /**
   * Loads the kinds the plans use (in parallel), then creates the providers in order. When one fails,
   * the providers already created are closed (their servers and pollers stopped) and the error is
   * rethrown, its message naming the entry.
   */
  async build(plans: readonly ProviderPlan[], deps: KindDeps): Promise<void> {
    const modules = await Promise.all(plans.map((p) => ('kind' in p ? load(p) : Promise.resolve(undefined))));
    const created: Provider[] = [];
    try {
      for (const [i, plan] of plans.entries()) {
        let provider: Provider;
        if ('provider' in plan) provider = plan.provider;
        else {
          provider = await create(modules[i]!, plan, deps);
          created.push(provider);
          checkReady(provider, plan.at);
        }
        this.add(provider, plan.at);
      }
    } catch (err) {
      this.byName.clear();
      await Promise.allSettled(created.map(async (p) => p?.close?.()));
      throw err;
    }
  }

  private add(provider: Provider, at: string): void {
    checkName(provider.name, at, this.byName);
    this.byName.set(provider.name, provider);
  }

  /** The provider registered under `name`, if any. */
  get(name: string): Provider | undefined {
    return this.byName.get(name);
  }

  /** True when a provider of this name is configured (tokens of removed providers are refused). */
  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** All providers in registration order. */
  list(): Provider[] {
    return [...this.byName.values()];
  }

  /** The providers that can also be a second factor (the passkey kind), with their factor. */
  secondFactors(): Array<{ provider: string; factor: SecondFactor }> {
    return this.list().flatMap((p) => (p.secondFactor ? [{ provider: p.name, factor: p.secondFactor }] : []));
  }
}

/** Errors already naming their option ("authKoa: …") pass as they are; others get the entry's place and kind. */
function named(err: unknown, at: string, kind: string): Error {
  if (err instanceof Error && err.message.startsWith('authKoa:')) return err;
  return new TypeError(`authKoa: ${at} (${kind}): ${(err as Error)?.message ?? String(err)}`, { cause: err });
}

async function load(plan: { at: string; kind: string; load: KindLoader }): Promise<AnyProviderModule> {
  try {
    return await plan.load();
  } catch (err) {
    throw named(err, plan.at, plan.kind);
  }
}

async function create(
  module: AnyProviderModule,
  plan: { at: string; kind: string; options: ProviderOptions },
  deps: KindDeps,
): Promise<Provider> {
  try {
    if (module.options) checkOptionNames(plan.options, module.options, '');
    return await module.create(plan.options, granted(module.needs, deps, `${plan.at} (${plan.kind}): `));
  } catch (err) {
    throw named(err, plan.at, plan.kind);
  }
}

/**
 * The login context and the capabilities a kind named in `needs`, no more: one kind's need does not reach
 * another kind's providers. `place` names the entry in what start-up says of a provider's own store.
 */
function granted(
  needs: readonly ProviderCapability[] | undefined,
  { context, capabilities }: KindDeps,
  place: string,
): ProviderDepsWith<ProviderCapability> {
  const names: unknown = needs ?? [];
  if (!Array.isArray(names)) throw new TypeError('needs must be an array of capability names');
  const given: Partial<Record<ProviderCapability, unknown>> = {};
  for (const need of names as unknown[]) {
    if (typeof need !== 'string' || !Object.hasOwn(capabilities, need)) {
      const known = Object.keys(capabilities).join(', ');
      throw new TypeError(`needs names "${String(need)}", which is not a provider capability (known: ${known})`);
    }
    const name = need as ProviderCapability;
    given[name] = name === 'stores' ? { ...capabilities.stores, place } : capabilities[name];
  }
  return { ...context, ...(given as Partial<ProviderCapabilities>) } as ProviderDepsWith<ProviderCapability>;
}

function checkName(name: string, at: string, taken: { has(name: string): boolean }): void {
  if (!NAME.test(name) || RESERVED.has(name)) {
    throw new TypeError(
      `authKoa: ${at}.name "${name}" is not allowed: use letters, digits, '.', '_', '~' or '-', and none of ` +
        `list, user, status, logout`,
    );
  }
  if (taken.has(name)) throw new TypeError(`authKoa: ${at}.name "${name}" is used by another provider`);
}

function checkReady(p: Provider, at: string): Provider {
  if (!p || typeof p.name !== 'string') throw new TypeError(`authKoa: ${at}.name must be a string`);
  if (typeof p.login !== 'function' || typeof p.logout !== 'function') {
    throw new TypeError(`authKoa: ${at} must implement login(ctx) and logout(ctx)`);
  }
  return p;
}
